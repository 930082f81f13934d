// N-API addon over pocketsphinx 0.8 (Debian's libpocketsphinx 5prealpha): a
// resident decoder that decodes live. Every pocketsphinx call (ps_init too,
// ~0.7 s) runs on the libuv thread pool, never on the main thread.
//
// Per decoder, calls run one at a time in the order they were made: each
// method queues a job and returns a promise; a job starts on the pool when
// the one before it has finished, so no pool thread ever waits on another
// job of the same decoder. A call in the wrong state (process before
// startUtterance, endUtterance twice) rejects when its turn comes; any call
// after close() rejects at once; close() again returns the first close's
// promise. See decoder.h for the pocketsphinx side and
// src/voice/stt/pocketsphinx-addon.ts for the types.
#include <napi.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "decoder.h"
#include "sphinx_log.h"

namespace {

using psnode::Decoder;

struct AddonData {
  Napi::FunctionReference decoder_class;
};

Napi::Promise Rejected(Napi::Env env, const Napi::Error& error) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(error.Value());
  return deferred.Promise();
}

class DecoderWrap;

// One promised call; Execute runs on the thread pool.
class Job : public Napi::AsyncWorker {
 public:
  explicit Job(Napi::Env env) : Napi::AsyncWorker(env, "pocketsphinx"), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }
  // On the main thread, when the call is made: the decoder outlives the
  // job, since close() frees it in a job queued after this one.
  void Bind(DecoderWrap* owner, Decoder* decoder) {
    owner_ = owner;
    decoder_ = decoder;
  }

 protected:
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

  Decoder* decoder_ = nullptr;

 private:
  Napi::Promise::Deferred deferred_;
  DecoderWrap* owner_ = nullptr;
};

class DecoderWrap : public Napi::ObjectWrap<DecoderWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativeDecoder",
                       {
                           InstanceMethod("startUtterance", &DecoderWrap::StartUtterance),
                           InstanceMethod("process", &DecoderWrap::Process),
                           InstanceMethod("endUtterance", &DecoderWrap::EndUtterance),
                           InstanceMethod("resetNormalisation", &DecoderWrap::ResetNormalisation),
                           InstanceMethod("close", &DecoderWrap::Close),
                       });
  }

  // Only createDecoder makes one: its argument is an External JavaScript
  // code cannot create.
  explicit DecoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DecoderWrap>(info) {
    if (info.Length() < 1 || !info[0].IsExternal()) {
      throw Napi::TypeError::New(info.Env(), "pocketsphinx: decoders are made by createDecoder()");
    }
    decoder_.reset(info[0].As<Napi::External<Decoder>>().Data());
  }

  // Garbage collected without close(): nothing can be queued (a busy
  // decoder holds a reference to itself), so ps_free runs here, on the
  // main thread, as a last resort.
  ~DecoderWrap() override = default;

  // The job before has settled: start the next one, or go idle.
  void Finished() {
    running_ = false;
    if (!pending_.empty()) {
      StartNext();
    } else {
      Unref();
    }
  }

 private:
  Napi::Value Enqueue(Job* job) {
    Napi::Promise promise = job->Promise();
    job->Bind(this, decoder_.get());
    pending_.push_back(job);
    if (!running_) {
      // Busy: keep this object (and so the decoder) alive until the queue
      // is empty, however the caller drops its reference.
      Ref();
      StartNext();
    }
    return promise;
  }

  void StartNext() {
    Job* job = pending_.front();
    pending_.pop_front();
    running_ = true;
    job->Queue();
  }

  Napi::Value Closed(Napi::Env env, const char* what) {
    return Rejected(env, Napi::Error::New(env, std::string("pocketsphinx: ") + what + ": the decoder is closed"));
  }

  Napi::Value StartUtterance(const Napi::CallbackInfo& info);
  Napi::Value Process(const Napi::CallbackInfo& info);
  Napi::Value EndUtterance(const Napi::CallbackInfo& info);
  Napi::Value ResetNormalisation(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  std::unique_ptr<Decoder> decoder_;
  std::deque<Job*> pending_;
  bool running_ = false;
  bool closed_ = false;
  Napi::ObjectReference close_promise_;
};

void Job::OnOK() {
  deferred_.Resolve(Result(Env()));
  owner_->Finished();
}

void Job::OnError(const Napi::Error& error) {
  deferred_.Reject(error.Value());
  owner_->Finished();
}

class StartJob : public Job {
 public:
  using Job::Job;
  void Execute() override { decoder_->StartUtterance(); }
};

class ResetJob : public Job {
 public:
  using Job::Job;
  void Execute() override { decoder_->ResetNormalisation(); }
};

class ProcessJob : public Job {
 public:
  ProcessJob(Napi::Env env, const Napi::Int16Array& samples, bool want)
      : Job(env), samples_(samples.Data(), samples.Data() + samples.ElementLength()), want_(want) {}
  void Execute() override { decoder_->Process(samples_.data(), samples_.size(), want_, &hyp_); }
  Napi::Value Result(Napi::Env env) override {
    if (!want_) return env.Undefined();
    Napi::Object o = Napi::Object::New(env);
    o.Set("text", hyp_.text);
    o.Set("frames", hyp_.frames);
    o.Set("endProbability", hyp_.end_probability);
    return o;
  }

 private:
  std::vector<int16_t> samples_;  // a copy: the caller may reuse its buffer
  bool want_;
  psnode::Hypothesis hyp_;
};

class EndJob : public Job {
 public:
  using Job::Job;
  void Execute() override { decoder_->EndUtterance(&final_); }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object o = Napi::Object::New(env);
    o.Set("text", final_.text);
    o.Set("frames", final_.frames);
    Napi::Array words = Napi::Array::New(env, final_.words.size());
    double sum = 0;
    for (size_t i = 0; i < final_.words.size(); ++i) {
      const psnode::Word& w = final_.words[i];
      Napi::Object wo = Napi::Object::New(env);
      wo.Set("word", w.word);
      wo.Set("startMs", w.start_ms);
      wo.Set("endMs", w.end_ms);
      wo.Set("posterior", w.posterior);
      words.Set(static_cast<uint32_t>(i), wo);
      sum += w.posterior;
    }
    o.Set("words", words);
    if (!final_.words.empty()) o.Set("confidence", sum / final_.words.size());
    return o;
  }

 private:
  psnode::Final final_;
};

// Takes the decoder when its turn comes, so ps_free runs on the pool.
class CloseJob : public Job {
 public:
  using Job::Job;
  void Take(std::unique_ptr<Decoder> decoder) { owned_ = std::move(decoder); }
  void Execute() override { owned_.reset(); }

 private:
  std::unique_ptr<Decoder> owned_;
};

Napi::Value DecoderWrap::StartUtterance(const Napi::CallbackInfo& info) {
  if (closed_) return Closed(info.Env(), "startUtterance");
  return Enqueue(new StartJob(info.Env()));
}

Napi::Value DecoderWrap::ResetNormalisation(const Napi::CallbackInfo& info) {
  if (closed_) return Closed(info.Env(), "resetNormalisation");
  return Enqueue(new ResetJob(info.Env()));
}

Napi::Value DecoderWrap::Process(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closed_) return Closed(env, "process");
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
    return Rejected(env, Napi::TypeError::New(env, "pocketsphinx: process: samples must be an Int16Array"));
  }
  bool want = info.Length() > 1 && info[1].ToBoolean().Value();
  return Enqueue(new ProcessJob(env, info[0].As<Napi::Int16Array>(), want));
}

Napi::Value DecoderWrap::EndUtterance(const Napi::CallbackInfo& info) {
  if (closed_) return Closed(info.Env(), "endUtterance");
  return Enqueue(new EndJob(info.Env()));
}

Napi::Value DecoderWrap::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closed_) return close_promise_.Value();
  closed_ = true;
  // The jobs queued before this one still reach the decoder through their
  // pointer, and run first.
  auto* job = new CloseJob(env);
  job->Take(std::move(decoder_));
  Napi::Value promise = Enqueue(job);
  close_promise_ = Napi::Persistent(promise.As<Napi::Object>());
  return promise;
}

// createDecoder(options) -> Promise<NativeDecoder>; ps_init on the pool.
class CreateJob : public Napi::AsyncWorker {
 public:
  CreateJob(Napi::Env env, psnode::DecoderConfig config)
      : Napi::AsyncWorker(env, "pocketsphinx"), deferred_(Napi::Promise::Deferred::New(env)), config_(std::move(config)) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }
  void Execute() override { decoder_ = Decoder::Create(config_); }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Function cls = env.GetInstanceData<AddonData>()->decoder_class.Value();
    Napi::Object wrap = cls.New({Napi::External<Decoder>::New(env, decoder_.get())});
    decoder_.release();  // now the wrap's
    deferred_.Resolve(wrap);
  }
  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  psnode::DecoderConfig config_;
  std::unique_ptr<Decoder> decoder_;
};

// Reads a string option; false (and a TypeError in *error) when it has
// another type, or is missing and required.
bool StringOption(Napi::Object o, const char* key, bool required, std::string* out, std::string* error) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined() && !required) return true;
  if (!v.IsString()) {
    *error = std::string("options.") + key + " must be a string (a path)";
    return false;
  }
  *out = v.As<Napi::String>().Utf8Value();
  return true;
}

Napi::Value CreateDecoder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto reject = [&](const std::string& message) {
    return Rejected(env, Napi::TypeError::New(env, "pocketsphinx: createDecoder: " + message));
  };
  if (info.Length() < 1 || !info[0].IsObject()) return reject("expected an options object");
  Napi::Object o = info[0].As<Napi::Object>();
  psnode::DecoderConfig config;
  std::string error;
  if (!StringOption(o, "hmm", true, &config.hmm, &error) || !StringOption(o, "dict", true, &config.dict, &error) ||
      !StringOption(o, "lm", false, &config.lm, &error) || !StringOption(o, "jsgf", false, &config.jsgf, &error)) {
    return reject(error);
  }
  Napi::Value flags = o.Get("flags");
  if (!flags.IsUndefined()) {
    if (!flags.IsObject()) return reject("options.flags must be an object of strings");
    Napi::Object f = flags.As<Napi::Object>();
    Napi::Array names = f.GetPropertyNames();
    for (uint32_t i = 0; i < names.Length(); ++i) {
      std::string name = names.Get(i).ToString().Utf8Value();
      Napi::Value v = f.Get(name);
      std::string value;
      if (v.IsString()) {
        value = v.As<Napi::String>().Utf8Value();
      } else if (v.IsNumber()) {
        value = v.ToString().Utf8Value();
      } else if (v.IsBoolean()) {
        value = v.As<Napi::Boolean>().Value() ? "yes" : "no";
      } else {
        return reject("flags." + name + " must be a string");
      }
      config.flags.emplace_back(name, value);
    }
  }
  auto* job = new CreateJob(env, std::move(config));
  Napi::Promise promise = job->Promise();
  job->Queue();
  return promise;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  psnode::InstallSphinxLog();
  auto* data = new AddonData();
  data->decoder_class = Napi::Persistent(DecoderWrap::Define(env));
  env.SetInstanceData<AddonData>(data);
  exports.Set("createDecoder", Napi::Function::New(env, CreateDecoder, "createDecoder"));
  return exports;
}

}  // namespace

NODE_API_MODULE(pocketsphinx_decoder, Init)

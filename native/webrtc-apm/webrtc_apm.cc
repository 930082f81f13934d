// N-API wrapper over WebRTC's AudioProcessing (libwebrtc-audio-processing 0.3).
// One object per stream pair: render (what the speaker played) and capture
// (the microphone), both 10 ms int16 interleaved frames at one native rate.
// Library return codes go back to JavaScript as numbers; the TypeScript side
// turns a failure into AppError AUDIO_APM_FAILED. Only argument misuse throws
// here, and the TypeScript side checks arguments before calling.
#include <napi.h>

#include <memory>

#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

namespace {

using webrtc::AudioProcessing;

int OptInt(const Napi::Object& o, const char* key, int fallback) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int32Value() : fallback;
}

bool OptBool(const Napi::Object& o, const char* key, bool fallback) {
  Napi::Value v = o.Get(key);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : fallback;
}

class Apm : public Napi::ObjectWrap<Apm> {
 public:
  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function ctor = DefineClass(env, "Apm", {
      InstanceMethod("processRender", &Apm::ProcessRender),
      InstanceMethod("processCapture", &Apm::ProcessCapture),
      InstanceMethod("setStreamDelayMs", &Apm::SetStreamDelayMs),
      InstanceMethod("stats", &Apm::Stats),
      InstanceMethod("close", &Apm::Close),
    });
    exports.Set("Apm", ctor);
    return exports;
  }

  // new Apm({ sampleRate, channels, noiseSuppression, nsLevel, gainControl,
  //           agcTargetDbfs, agcCompressionGainDb, highPassFilter,
  //           suppressionLevel }) -> throws on a creation/configuration error
  // with the library's code in the message.
  explicit Apm(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Apm>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject()) {
      throw Napi::TypeError::New(env, "Apm: expected an options object");
    }
    Napi::Object o = info[0].As<Napi::Object>();
    rate_ = OptInt(o, "sampleRate", 16000);
    channels_ = OptInt(o, "channels", 1);
    samples_per_channel_ = rate_ / 100;

    webrtc::Config config;
    // The full AEC's extended filter and delay-agnostic mode: a desktop's
    // playback-to-capture delay is unknown and drifts, so the AEC estimates it.
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    // The experimental AGC drives an analog microphone volume we do not own.
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    apm_.reset(AudioProcessing::Create(config));
    if (!apm_) throw Napi::Error::New(env, "Apm: AudioProcessing::Create failed (code -2)");

    Check(env, "Initialize", apm_->Initialize(rate_, rate_, rate_,
        channels_ == 2 ? AudioProcessing::kStereo : AudioProcessing::kMono,
        channels_ == 2 ? AudioProcessing::kStereo : AudioProcessing::kMono,
        channels_ == 2 ? AudioProcessing::kStereo : AudioProcessing::kMono));

    webrtc::EchoCancellation* aec = apm_->echo_cancellation();
    Check(env, "echo_cancellation.Enable", aec->Enable(true));
    Check(env, "echo_cancellation.enable_drift_compensation", aec->enable_drift_compensation(false));
    int level = OptInt(o, "suppressionLevel", 1);
    Check(env, "echo_cancellation.set_suppression_level", aec->set_suppression_level(
        level <= 0 ? webrtc::EchoCancellation::kLowSuppression
        : level == 1 ? webrtc::EchoCancellation::kModerateSuppression
                     : webrtc::EchoCancellation::kHighSuppression));
    Check(env, "echo_cancellation.enable_metrics", aec->enable_metrics(true));
    Check(env, "echo_cancellation.enable_delay_logging", aec->enable_delay_logging(true));

    webrtc::NoiseSuppression* ns = apm_->noise_suppression();
    bool ns_on = OptBool(o, "noiseSuppression", true);
    Check(env, "noise_suppression.Enable", ns->Enable(ns_on));
    if (ns_on) {
      int l = OptInt(o, "nsLevel", 1);
      Check(env, "noise_suppression.set_level", ns->set_level(
          l <= 0 ? webrtc::NoiseSuppression::kLow
          : l == 1 ? webrtc::NoiseSuppression::kModerate
          : l == 2 ? webrtc::NoiseSuppression::kHigh
                   : webrtc::NoiseSuppression::kVeryHigh));
    }

    webrtc::GainControl* agc = apm_->gain_control();
    bool agc_on = OptBool(o, "gainControl", true);
    if (agc_on) {
      Check(env, "gain_control.set_mode", agc->set_mode(webrtc::GainControl::kAdaptiveDigital));
      Check(env, "gain_control.set_target_level_dbfs", agc->set_target_level_dbfs(OptInt(o, "agcTargetDbfs", 3)));
      Check(env, "gain_control.set_compression_gain_db", agc->set_compression_gain_db(OptInt(o, "agcCompressionGainDb", 9)));
      Check(env, "gain_control.enable_limiter", agc->enable_limiter(true));
    }
    Check(env, "gain_control.Enable", agc->Enable(agc_on));
    Check(env, "high_pass_filter.Enable", apm_->high_pass_filter()->Enable(OptBool(o, "highPassFilter", true)));
  }

 private:
  static void Check(Napi::Env env, const char* what, int rc) {
    if (rc != AudioProcessing::kNoError) {
      throw Napi::Error::New(env, std::string("Apm: ") + what + " failed (code " + std::to_string(rc) + ")");
    }
  }

  bool Ready(Napi::Env env) {
    if (!apm_) throw Napi::Error::New(env, "Apm: closed");
    return true;
  }

  // Copies one 10 ms interleaved int16 frame into frame_; throws on a length
  // the TypeScript side should have rejected.
  void Fill(const Napi::CallbackInfo& info, size_t arg) {
    Napi::Env env = info.Env();
    if (info.Length() <= arg || !info[arg].IsTypedArray() ||
        info[arg].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
      throw Napi::TypeError::New(env, "Apm: expected an Int16Array");
    }
    Napi::Int16Array in = info[arg].As<Napi::Int16Array>();
    size_t n = static_cast<size_t>(samples_per_channel_) * channels_;
    if (in.ElementLength() != n) throw Napi::RangeError::New(env, "Apm: frame is not 10 ms");
    frame_.UpdateFrame(0, 0, in.Data(), samples_per_channel_, rate_,
                       webrtc::AudioFrame::kNormalSpeech, webrtc::AudioFrame::kVadUnknown, channels_);
  }

  // processRender(frame: Int16Array) -> library code (0 = ok)
  Napi::Value ProcessRender(const Napi::CallbackInfo& info) {
    Ready(info.Env());
    Fill(info, 0);
    return Napi::Number::New(info.Env(), apm_->ProcessReverseStream(&frame_));
  }

  // processCapture(frame: Int16Array, out: Int16Array) -> library code;
  // `out` (same length) receives the cleaned frame.
  Napi::Value ProcessCapture(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Ready(env);
    Fill(info, 0);
    if (info.Length() < 2 || !info[1].IsTypedArray()) throw Napi::TypeError::New(env, "Apm: expected an output Int16Array");
    Napi::Int16Array out = info[1].As<Napi::Int16Array>();
    size_t n = static_cast<size_t>(samples_per_channel_) * channels_;
    if (out.ElementLength() != n) throw Napi::RangeError::New(env, "Apm: output is not 10 ms");
    // The AEC needs the delay set before every capture frame (else -11).
    int rc = apm_->set_stream_delay_ms(delay_ms_);
    if (rc != AudioProcessing::kNoError && rc != AudioProcessing::kBadStreamParameterWarning) {
      return Napi::Number::New(env, rc);
    }
    rc = apm_->ProcessStream(&frame_);
    if (rc == AudioProcessing::kNoError || rc == AudioProcessing::kBadStreamParameterWarning) {
      std::copy(frame_.data_, frame_.data_ + n, out.Data());
      rc = AudioProcessing::kNoError;
    }
    return Napi::Number::New(env, rc);
  }

  // setStreamDelayMs(ms): the render-to-capture delay hint, kept for each
  // capture frame. The library clamps it to 0..500 ms.
  Napi::Value SetStreamDelayMs(const Napi::CallbackInfo& info) {
    Ready(info.Env());
    delay_ms_ = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
    return info.Env().Undefined();
  }

  // stats() -> { erle: {instant, average, maximum, minimum}, erl, rerl, aNlp,
  //              delayMedianMs, delayStdMs, fractionPoorDelays, streamHasEcho,
  //              speechProbability, metricsCode, delayCode }
  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Ready(env);
    Napi::Object r = Napi::Object::New(env);
    webrtc::EchoCancellation* aec = apm_->echo_cancellation();
    webrtc::EchoCancellation::Metrics m;
    int mc = aec->GetMetrics(&m);
    r.Set("metricsCode", mc);
    if (mc == AudioProcessing::kNoError) {
      r.Set("erle", Stat(env, m.echo_return_loss_enhancement));
      r.Set("erl", Stat(env, m.echo_return_loss));
      r.Set("rerl", Stat(env, m.residual_echo_return_loss));
      r.Set("aNlp", Stat(env, m.a_nlp));
    }
    int median = 0, std_dev = 0;
    float poor = 0;
    int dc = aec->GetDelayMetrics(&median, &std_dev, &poor);
    r.Set("delayCode", dc);
    if (dc == AudioProcessing::kNoError) {
      r.Set("delayMedianMs", median);
      r.Set("delayStdMs", std_dev);
      r.Set("fractionPoorDelays", poor);
    }
    r.Set("streamHasEcho", aec->stream_has_echo());
    if (apm_->noise_suppression()->is_enabled()) {
      r.Set("speechProbability", apm_->noise_suppression()->speech_probability());
    }
    return r;
  }

  static Napi::Object Stat(Napi::Env env, const AudioProcessing::Statistic& s) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("instant", s.instant);
    o.Set("average", s.average);
    o.Set("maximum", s.maximum);
    o.Set("minimum", s.minimum);
    return o;
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    apm_.reset();
    return info.Env().Undefined();
  }

  std::unique_ptr<AudioProcessing> apm_;
  webrtc::AudioFrame frame_;
  int rate_ = 16000;
  int channels_ = 1;
  int samples_per_channel_ = 160;
  int delay_ms_ = 0;
};

}  // namespace

Napi::Object InitAll(Napi::Env env, Napi::Object exports) { return Apm::Init(env, exports); }

NODE_API_MODULE(webrtc_apm, InitAll)

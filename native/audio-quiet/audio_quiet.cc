// The sound libraries' prints, kept off the terminal and kept for the log.
//
// PortAudio's device probe (every Pa_Initialize, so every stream naudiodon
// opens) walks every PCM in ALSA's configuration. On a machine without a
// sound card ALSA reports each failed lookup through its error handler, which
// prints "ALSA lib ..." on stderr, and the JACK plugin's libjack prints that
// no JACK server runs. naudiodon itself printf()s the stream options at each
// open and close. quiet() routes the first two into a small buffer that
// takeMessages() hands to JavaScript, and points C stdio's stdout at
// /dev/null (Node writes its own stdout through libuv, on file descriptor 1,
// which is left as it is).
#include <napi.h>

#include <alsa/asoundlib.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>

namespace {

constexpr size_t kKeptMessages = 256;

std::mutex g_mutex;
std::deque<std::string> g_messages;
bool g_quiet = false;
bool g_jack = false;
bool g_stdout = false;

void Keep(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_messages.size() == kKeptMessages) g_messages.pop_front();
  g_messages.push_back(std::move(text));
}

// ALSA calls this from whichever thread hit the error.
void AlsaMessage(const char* file, int line, const char* function, int err, const char* fmt, ...) {
  char text[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  std::string out = "alsa: ";
  out += text;
  if (err != 0) {
    out += " (";
    out += snd_strerror(err);
    out += ")";
  }
  (void)file;
  (void)line;
  (void)function;
  Keep(std::move(out));
}

void JackError(const char* text) { Keep(std::string("jack: ") + text); }
void JackInfo(const char*) {}

// libjack, when installed, is loaded here first, so the ALSA JACK plugin's
// later load finds this copy with its print functions already replaced.
bool QuietJack() {
  void* jack = dlopen("libjack.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (jack == nullptr) return false;
  using SetPrint = void (*)(void (*)(const char*));
  auto set_error = reinterpret_cast<SetPrint>(dlsym(jack, "jack_set_error_function"));
  auto set_info = reinterpret_cast<SetPrint>(dlsym(jack, "jack_set_info_function"));
  if (set_error != nullptr) set_error(JackError);
  if (set_info != nullptr) set_info(JackInfo);
  return set_error != nullptr;
}

bool QuietStdio() {
  FILE* sink = std::fopen("/dev/null", "w");
  if (sink == nullptr) return false;
  std::fflush(stdout);
  stdout = sink;
  return true;
}

// quiet(): once per process; later calls only report.
Napi::Value Quiet(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!g_quiet) {
    snd_lib_error_set_handler(AlsaMessage);
    g_jack = QuietJack();
    g_stdout = QuietStdio();
    g_quiet = true;
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("alsa", true);
  out.Set("jack", g_jack);
  out.Set("stdout", g_stdout);
  return out;
}

// takeMessages(): what ALSA and JACK said since the last call, oldest first.
Napi::Value TakeMessages(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::deque<std::string> taken;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    taken.swap(g_messages);
  }
  Napi::Array out = Napi::Array::New(env, taken.size());
  for (size_t i = 0; i < taken.size(); ++i) out.Set(static_cast<uint32_t>(i), taken[i]);
  return out;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("quiet", Napi::Function::New(env, Quiet));
  exports.Set("takeMessages", Napi::Function::New(env, TakeMessages));
  return exports;
}

}  // namespace

NODE_API_MODULE(audio_quiet, Init)

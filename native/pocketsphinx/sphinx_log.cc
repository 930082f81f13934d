#include "sphinx_log.h"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include <sphinxbase/err.h>

namespace psnode {
namespace {

// Plain data only: an E_FATAL longjmps out of the callback that fills it.
struct Capture {
  std::jmp_buf jump;
  bool quiet;
  char errors[2048];
  size_t errors_len;
  char fatal[1024];
};

thread_local Capture* t_capture = nullptr;
std::atomic<bool> g_log_file{false};

// `ERROR: "dict.c", line 195: Failed to open ...` -> `Failed to open ...`
const char* WithoutLocation(const char* line) {
  const char* at = std::strstr(line, "\", line ");
  if (!at) return line;
  const char* colon = std::strstr(at, ": ");
  return colon ? colon + 2 : line;
}

void Append(Capture* c, const char* text) {
  size_t n = std::strlen(text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) --n;
  if (n == 0) return;
  size_t room = sizeof(c->errors) - 1 - c->errors_len;
  if (c->errors_len > 0 && room > 2) {
    std::memcpy(c->errors + c->errors_len, "; ", 2);
    c->errors_len += 2;
    room -= 2;
  }
  if (n > room) n = room;
  std::memcpy(c->errors + c->errors_len, text, n);
  c->errors_len += n;
  c->errors[c->errors_len] = '\0';
}

extern "C" void OnSphinxMessage(void* /*user_data*/, err_lvl_t level, const char* fmt, ...) {
  char line[1400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  Capture* c = t_capture;
  if (c ? !c->quiet : g_log_file.load()) {
    SphinxLogMutex().lock();
    if (FILE* fp = err_get_logfp()) std::fputs(line, fp);
    SphinxLogMutex().unlock();
  }
  if (!c) return;
  if (level == ERR_ERROR || level == ERR_FATAL) Append(c, WithoutLocation(line));
  if (level == ERR_FATAL) {
    const char* text = WithoutLocation(line);
    size_t n = std::min(std::strlen(text), sizeof(c->fatal) - 1);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) --n;
    std::memcpy(c->fatal, text, n);
    c->fatal[n] = '\0';
    std::longjmp(c->jump, 1);
  }
}

}  // namespace

std::recursive_mutex& SphinxLogMutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

void InstallSphinxLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    // NULL disables sphinxbase's own log stream, which some code paths
    // write to directly (ps_init prints its whole configuration there).
    err_set_logfp(nullptr);
    err_set_callback(OnSphinxMessage, nullptr);
  });
}

void EnableSphinxLogFile() { g_log_file.store(true); }

namespace {

bool Finish(bool ok, std::string* errors, std::string* fatal) {
  Capture* c = t_capture;
  t_capture = nullptr;
  if (errors) errors->assign(c->errors);
  if (fatal) fatal->assign(c->fatal);
  return ok;
}

}  // namespace

bool RunGuarded(void (*fn)(void*), void* arg, bool quiet, std::string* errors, std::string* fatal) {
  // Static storage, not automatic: the callback changes it between setjmp
  // and longjmp, which leaves automatic variables indeterminate. Guarded
  // calls do not nest (one decoder call at a time per thread).
  static thread_local Capture capture;
  capture.quiet = quiet;
  capture.errors[0] = '\0';
  capture.errors_len = 0;
  capture.fatal[0] = '\0';
  t_capture = &capture;
  if (setjmp(capture.jump) == 0) {
    fn(arg);
    return Finish(true, errors, fatal);
  }
  return Finish(false, errors, fatal);
}

}  // namespace psnode

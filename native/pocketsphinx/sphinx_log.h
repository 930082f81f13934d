// sphinxbase's log and its E_FATAL, tamed for a long-running process.
//
// sphinxbase logs through one process-wide callback and exits the process on
// E_FATAL (a corrupt model file, `varnorm` in live mode, ...). The addon
// installs its own callback: it drops messages unless a decoder asked for a
// log file (-logfn), keeps a thread's ERROR/FATAL lines while a guarded call
// runs on it (so a failure can say why), and on E_FATAL inside a guarded call
// longjmps back to RunGuarded instead of letting exit() run.
#ifndef DESKTOP_ASSISTANT_PS_SPHINX_LOG_H_
#define DESKTOP_ASSISTANT_PS_SPHINX_LOG_H_

#include <mutex>
#include <string>

namespace psnode {

// Once per process, before any decoder exists.
void InstallSphinxLog();

// Held around ps_init (which may redirect sphinxbase's log file) and around
// every write to that file.
std::recursive_mutex& SphinxLogMutex();

// From now on, messages outside a guarded call go to sphinxbase's log file.
void EnableSphinxLogFile();

// Runs fn(arg) with this thread's messages captured. `fn` must own no C++
// object with a destructor while it calls into pocketsphinx: an E_FATAL
// jumps over its frame. Returns false when fn hit an E_FATAL (its message in
// *fatal). *errors gets the ERROR lines, joined by "; ".
bool RunGuarded(void (*fn)(void*), void* arg, bool quiet, std::string* errors, std::string* fatal);

}  // namespace psnode

#endif  // DESKTOP_ASSISTANT_PS_SPHINX_LOG_H_

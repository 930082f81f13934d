// The options of createDecoder, checked and turned into ps_init's
// arguments. ps_init logs why it fails to a log that is dropped by default
// and exits the process on some bad files, so what can be checked first is.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <pocketsphinx.h>

#include "decoder.h"

namespace psnode {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsReadableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), R_OK) == 0;
}

void RequireFile(const char* what, const std::string& path) {
  if (!IsReadableFile(path)) Fail(std::string(what) + " " + path + " is not a readable file");
}

// Flags the options object sets itself.
bool IsOwnFlag(const std::string& name) { return name == "hmm" || name == "dict" || name == "lm" || name == "jsgf"; }

// Flags whose value is a file ps_init opens: checked up front, since a
// missing one is otherwise only an E_FATAL or a message in the dropped log.
bool IsFileFlag(const std::string& name) {
  static const char* const kFiles[] = {"fdict", "mdef", "mean", "var", "tmat", "mixw", "sendump",
                                       "featparams", "lda", "mllr", "fsg", "kws", "lmctl"};
  for (const char* f : kFiles) {
    if (name == f) return true;
  }
  return false;
}

const arg_t* FindArg(const std::string& name) {
  std::string dashed = "-" + name;
  for (const arg_t* a = ps_args(); a->name; ++a) {
    if (dashed == a->name) return a;
  }
  return nullptr;
}

// The checks cmd_ln_parse_r makes, done first so the error names the flag
// (cmd_ln_parse_r prints its whole help text to stderr on a bad value).
void CheckValue(const std::string& name, const std::string& value, int type) {
  const char* s = value.c_str();
  char* end = nullptr;
  bool ok = true;
  if (type & ARG_INTEGER) {
    errno = 0;
    std::strtol(s, &end, 10);
    ok = !value.empty() && *end == '\0' && errno == 0;
  } else if (type & ARG_FLOATING) {
    std::strtod(s, &end);
    ok = !value.empty() && *end == '\0';
  } else if (type & ARG_BOOLEAN) {
    ok = value == "yes" || value == "no" || value == "true" || value == "false" || value == "1" || value == "0";
  }
  if (!ok) {
    const char* kind = (type & ARG_INTEGER) ? "an integer" : (type & ARG_FLOATING) ? "a number" : "yes or no";
    Fail("flag '" + name + "' needs " + kind + ", not '" + value + "'");
  }
}

}  // namespace

std::vector<std::string> DecoderArguments(const DecoderConfig& config, bool* quiet) {
  if (config.lm.empty() == config.jsgf.empty()) Fail("give exactly one of lm (a language model) or jsgf (a grammar)");
  std::vector<std::string> args = {"-hmm", config.hmm, "-dict", config.dict};
  if (!config.lm.empty()) args.insert(args.end(), {"-lm", config.lm});
  if (!config.jsgf.empty()) args.insert(args.end(), {"-jsgf", config.jsgf});
  bool overridden[6] = {false, false, false, false, false, false};  // mdef mean var tmat mixw sendump
  static const char* const kModelFlags[6] = {"mdef", "mean", "var", "tmat", "mixw", "sendump"};
  for (const auto& [name, value] : config.flags) {
    if (!name.empty() && name[0] == '-') Fail("flag '" + name + "': name flags without the dash ('" + name.substr(1) + "')");
    if (IsOwnFlag(name)) Fail("flag '" + name + "': give it as the option " + name + ", not in flags");
    const arg_t* def = FindArg(name);
    if (!def) Fail("unknown decoder flag '" + name + "'");
    CheckValue(name, value, def->type);
    if (IsFileFlag(name)) RequireFile(("flag " + name + ":").c_str(), value);
    for (int i = 0; i < 6; ++i) overridden[i] = overridden[i] || name == kModelFlags[i];
    if (name == "logfn") *quiet = false;
    args.insert(args.end(), {"-" + name, value});
  }

  if (config.hmm.empty()) Fail("hmm (the acoustic model folder) is empty");
  if (!IsDirectory(config.hmm)) Fail("the acoustic model folder (hmm) " + config.hmm + " does not exist");
  static const char* const kModelFiles[4] = {"mdef", "means", "variances", "transition_matrices"};
  for (int i = 0; i < 4; ++i) {
    if (!overridden[i]) RequireFile("the acoustic model file", config.hmm + "/" + kModelFiles[i]);
  }
  if (!overridden[4] && !overridden[5] && !IsReadableFile(config.hmm + "/mixture_weights") &&
      !IsReadableFile(config.hmm + "/sendump")) {
    Fail("the acoustic model folder (hmm) " + config.hmm + " has neither mixture_weights nor sendump");
  }
  RequireFile("the dictionary (dict)", config.dict);
  if (!config.lm.empty()) RequireFile("the language model (lm)", config.lm);
  if (!config.jsgf.empty()) RequireFile("the grammar (jsgf)", config.jsgf);

  return args;
}

}  // namespace psnode

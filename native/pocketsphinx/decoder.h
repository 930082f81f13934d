// One resident pocketsphinx 0.8 (5prealpha) decoder, with no N-API in it:
// pocketsphinx_decoder.cc wraps it for JavaScript and runs every method here
// on the libuv thread pool, one call at a time per decoder.
//
// Every method throws std::runtime_error with a message for JavaScript. A
// sphinxbase E_FATAL (which would exit() the process) inside a call is turned
// into an error too (see sphinx_log.h); the decoder is then broken: every
// later call throws and the decoder is leaked rather than freed, since its
// state is unknown.
#ifndef DESKTOP_ASSISTANT_PS_DECODER_H_
#define DESKTOP_ASSISTANT_PS_DECODER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct ps_decoder_s;

namespace psnode {

struct DecoderConfig {
  std::string hmm;
  std::string dict;
  std::string lm;    // exactly one of lm / jsgf is set
  std::string jsgf;
  // More flags by name without the dash, in the caller's order.
  std::vector<std::pair<std::string, std::string>> flags;
};

struct Hypothesis {
  std::string text;
  int frames = 0;
  double end_probability = 0;
};

struct Word {
  std::string word;
  double start_ms = 0;
  double end_ms = 0;
  double posterior = 0;
};

struct Final {
  std::string text;
  int frames = 0;
  std::vector<Word> words;
};

// Throws std::runtime_error("pocketsphinx: " + message).
[[noreturn]] void Fail(const std::string& message);

// Checks the options and the files they name; the argument list for ps_init
// (without -logfn unless the flags give one: then *quiet is false).
std::vector<std::string> DecoderArguments(const DecoderConfig& config, bool* quiet);

class Decoder {
 public:
  // Checks the options and the files they name, then runs ps_init (0.1 s
  // with a small grammar, 0.2-0.7 s with the en-us language model).
  static std::unique_ptr<Decoder> Create(const DecoderConfig& config);
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  void StartUtterance();
  // What ps_process_raw(no_search = FALSE, full_utt = FALSE) does (in two
  // steps, see decoder.cc); the hypothesis when `want_hypothesis`.
  void Process(const int16_t* samples, size_t n, bool want_hypothesis, Hypothesis* out);
  void EndUtterance(Final* out);
  void ResetNormalisation();

 private:
  Decoder() = default;
  void Usable(const char* what) const;
  // Runs a pocketsphinx call under the E_FATAL guard; marks the decoder
  // broken and throws when it hit one.
  void Guard(const char* what, void (*fn)(void*), void* arg);
  // Frames the acoustic model scored in this utterance (the word search
  // trails it by -pl_window frames until the utterance ends).
  int SearchedFrames() const;
  double EndProbability(const char* hyp) const;
  double LmEndProbability(const std::vector<std::string>& words) const;
  double FsgEndProbability(const std::vector<std::string>& words) const;

  // The utterance frame (10 ms, from its start) of search frame k: the
  // front end drops the frames its VAD calls silence (-remove_silence), so
  // the searched frames are runs of the audio's frames.
  double FrameOfSearchFrame(int k) const;

  ps_decoder_s* ps_ = nullptr;
  bool in_utterance_ = false;
  std::string broken_;  // the fatal message once broken
  bool quiet_ = true;   // no -logfn given: sphinxbase's log is dropped
  std::vector<float> cmninit_;
  int frame_rate_ = 100;
  int frame_shift_ = 160;  // samples per frame
  int frame_size_ = 410;   // samples per analysis window
  int ceplen_ = 13;
  int cep_block_ = 7;      // frames per ps_process_cep call
  size_t piece_samples_ = 1600;  // samples per fe_process_frames call
  std::vector<float> cep_storage_;  // mfcc_t is float in Debian's build
  std::vector<float*> cep_rows_;
  // This utterance: samples given, cepstral frames the front end let
  // through, and where each run of them starts {search frame, audio frame}.
  uint64_t samples_ = 0;
  int emitted_ = 0;
  std::vector<std::pair<int, int>> runs_;
};

}  // namespace psnode

#endif  // DESKTOP_ASSISTANT_PS_DECODER_H_

#include "decoder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include <pocketsphinx.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/logmath.h>

#include "sphinx_log.h"

namespace psnode {

[[noreturn]] void Fail(const std::string& message) { throw std::runtime_error("pocketsphinx: " + message); }

namespace {

static_assert(std::is_same<mfcc_t, float>::value, "sphinxbase built with FIXED_POINT");


bool IsFiller(const char* word) {
  return word[0] == '<' || word[0] == '[' || (word[0] == '+' && word[1] == '+');
}

// "and(2)" -> "and": an alternative pronunciation of the same word.
std::string BaseWord(const char* word) {
  std::string w(word);
  size_t open = w.rfind('(');
  if (open != std::string::npos && open > 0 && w.back() == ')') w.erase(open);
  return w;
}

std::vector<std::string> Words(const char* text) {
  std::vector<std::string> out;
  const char* p = text;
  while (*p) {
    while (*p == ' ') ++p;
    const char* start = p;
    while (*p && *p != ' ') ++p;
    if (p > start) out.emplace_back(start, p - start);
  }
  return out;
}

// Arguments of the guarded calls: plain data, filled by plain functions.
struct InitCall {
  int argc;
  char** argv;
  ps_decoder_t* ps;
};

void RunInit(void* p) {
  auto* c = static_cast<InitCall*>(p);
  cmd_ln_t* config = cmd_ln_parse_r(nullptr, ps_args(), c->argc, c->argv, TRUE);
  if (!config) return;
  c->ps = ps_init(config);
  cmd_ln_free_r(config);  // the decoder holds its own reference
}

struct Call {
  ps_decoder_t* ps;
  const int16_t* samples;
  size_t n;
  int rc;
  const char* hyp;
};

void RunStartUtt(void* p) {
  auto* c = static_cast<Call*>(p);
  c->rc = ps_start_utt(c->ps);
}

// What ps_process_raw(no_search = FALSE, full_utt = FALSE) does, in its two
// halves: fe_process_frames (cepstra; the VAD drops silence) then
// ps_process_cep (CMN, dynamic features, search). Split so that the frames
// the VAD lets through can be counted, for word times (FrameOfSearchFrame).
// One difference: ps_process_raw fed 10-20 ms blocks starts each utterance
// with an empty block (the VAD holds the first frames back), and sphinxbase
// then does not repeat the first frame as the delta window's left context
// but uses whatever its buffer held (zeros, or the last utterance's frames).
// Here the first block has frames, as in pocketsphinx_continuous (2048
// samples at a time) when speech starts at once: the words, times and
// posteriors equal its output on the test clips, whatever the block size.
struct FrontEndCall {
  fe_t* fe;
  const int16_t* samples;
  size_t n;        // in: samples left; out: samples not consumed
  float** rows;
  int32 frames;    // in: room; out: frames produced
  int rc;
};

void RunFrontEnd(void* p) {
  auto* c = static_cast<FrontEndCall*>(p);
  c->rc = fe_process_frames(c->fe, &c->samples, &c->n, c->rows, &c->frames, nullptr);
}

struct SearchCall {
  ps_decoder_t* ps;
  float** rows;
  int32 frames;
  int rc;
};

void RunSearch(void* p) {
  auto* c = static_cast<SearchCall*>(p);
  c->rc = ps_process_cep(c->ps, c->rows, c->frames, FALSE, FALSE);
}

void RunEndUtt(void* p) {
  auto* c = static_cast<Call*>(p);
  c->rc = ps_end_utt(c->ps);
}

void RunHyp(void* p) {
  auto* c = static_cast<Call*>(p);
  c->hyp = ps_get_hyp(c->ps, nullptr);
}

struct Segment {
  std::string word;
  int sf, ef;
  int32 prob;
};

struct SegCall {
  ps_decoder_t* ps;
  std::vector<Segment>* out;
};

void RunSegments(void* p) {
  auto* c = static_cast<SegCall*>(p);
  for (ps_seg_t* seg = ps_seg_iter(c->ps); seg != nullptr; seg = ps_seg_next(seg)) {
    Segment s;
    s.word = ps_seg_word(seg);  // valid until ps_seg_next
    ps_seg_frames(seg, &s.sf, &s.ef);
    s.prob = ps_seg_prob(seg, nullptr, nullptr, nullptr);
    c->out->push_back(std::move(s));
  }
}

}  // namespace

std::unique_ptr<Decoder> Decoder::Create(const DecoderConfig& config) {
  bool quiet = true;
  std::vector<std::string> args = DecoderArguments(config, &quiet);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  InitCall call{static_cast<int>(argv.size()), argv.data(), nullptr};
  std::string errors, fatal;
  bool ok;
  {
    // ps_init may point sphinxbase's (process-wide) log at -logfn; a quiet
    // decoder's start-up must not print its configuration to another's log.
    std::lock_guard<std::recursive_mutex> lock(SphinxLogMutex());
    FILE* log = err_get_logfp();
    if (quiet) err_set_logfp(nullptr);
    ok = RunGuarded(RunInit, &call, quiet, &errors, &fatal);
    if (quiet) err_set_logfp(log);
  }
  if (!ok) Fail("ps_init failed fatally: " + fatal);  // what it allocated is leaked
  if (!call.ps) Fail("ps_init failed: " + (errors.empty() ? std::string("no reason given") : errors));
  if (!quiet) EnableSphinxLogFile();

  std::unique_ptr<Decoder> d(new Decoder());
  d->ps_ = call.ps;
  d->quiet_ = quiet;
  cmd_ln_t* cfg = ps_get_config(d->ps_);
  d->frame_rate_ = cmd_ln_int32_r(cfg, "-frate");
  fe_get_input_size(ps_get_fe(d->ps_), &d->frame_shift_, &d->frame_size_);
  d->ceplen_ = fe_get_output_size(ps_get_fe(d->ps_));
  d->cep_block_ = 2 * feat_window_size(ps_get_feat(d->ps_)) + 1;
  // Audio goes to fe_process_frames at most 10 frames at a time, and fewer
  // than a VAD onset takes after the one before (-vad_postspeech 50 frames
  // to fall silent, -vad_startspeech 10 to start again): so one call holds
  // at most one onset. At an onset the front end lets through the frames it
  // held back (-vad_prespeech 20, and the onset frame) and the rest of the
  // piece: the buffer holds all of them, so that the last frame out is the
  // newest.
  int gap = cmd_ln_int32_r(cfg, "-vad_postspeech") + cmd_ln_int32_r(cfg, "-vad_startspeech") - 1;
  int piece_frames = std::max(1, std::min(10, gap));
  d->piece_samples_ = static_cast<size_t>(piece_frames) * d->frame_shift_;
  int rows = cmd_ln_int32_r(cfg, "-vad_prespeech") + 1 + piece_frames + 2;
  d->cep_storage_.assign(static_cast<size_t>(rows) * d->ceplen_, 0.0f);
  for (int i = 0; i < rows; ++i) d->cep_rows_.push_back(d->cep_storage_.data() + i * d->ceplen_);
  // -cmninit as acmod_init_feat reads it (feat.params of the model wins
  // over the default "40,3,-1"): comma-separated, at most the cepstrum's
  // length.
  if (const char* init = cmd_ln_str_r(cfg, "-cmninit")) {
    for (const char* p = init; *p;) {
      d->cmninit_.push_back(static_cast<float>(std::atof(p)));
      const char* comma = std::strchr(p, ',');
      if (!comma) break;
      p = comma + 1;
    }
  }
  return d;
}

Decoder::~Decoder() {
  // A decoder broken by an E_FATAL is left allocated: freeing an unknown
  // state could crash.
  if (ps_ && broken_.empty()) ps_free(ps_);
}

void Decoder::Usable(const char* what) const {
  if (!broken_.empty()) Fail(std::string(what) + ": the decoder failed fatally earlier (" + broken_ + "); create a new one");
}

void Decoder::Guard(const char* what, void (*fn)(void*), void* arg) {
  std::string errors, fatal;
  if (!RunGuarded(fn, arg, quiet_, &errors, &fatal)) {
    broken_ = fatal;
    Fail(std::string(what) + " failed fatally: " + fatal);
  }
}

// ps_get_n_frames is acmod's output_frame + 1: it reads 1 before any frame
// is searched. The frames searched are one fewer.
int Decoder::SearchedFrames() const {
  int n = ps_get_n_frames(ps_) - 1;
  return n < 0 ? 0 : n;
}

void Decoder::StartUtterance() {
  Usable("startUtterance");
  if (in_utterance_) Fail("startUtterance: an utterance is already started (call endUtterance first)");
  Call call{ps_, nullptr, 0, 0, nullptr};
  Guard("ps_start_utt", RunStartUtt, &call);
  if (call.rc < 0) Fail("ps_start_utt failed");
  in_utterance_ = true;
  samples_ = 0;
  emitted_ = 0;
  runs_.clear();
}

void Decoder::Process(const int16_t* samples, size_t n, bool want_hypothesis, Hypothesis* out) {
  Usable("process");
  if (!in_utterance_) Fail("process: no utterance is started (call startUtterance first)");
  fe_t* fe = ps_get_fe(ps_);
  while (n > 0) {
    size_t piece = std::min(n, piece_samples_);
    bool was_speech = fe_get_vad_state(fe);
    FrontEndCall fc{fe, samples, piece, cep_rows_.data(), static_cast<int32>(cep_rows_.size()), 0};
    Guard("fe_process_frames", RunFrontEnd, &fc);
    if (fc.rc < 0) Fail("fe_process_frames failed (" + std::to_string(fc.rc) + ")");
    size_t used = piece - fc.n;
    if (used == 0 && fc.frames == 0) Fail("fe_process_frames consumed nothing");
    samples += used;
    n -= used;
    samples_ += used;
    if (fc.frames > 0) {
      // At an onset the frames let through end with the newest one; after
      // that they follow on.
      if (!was_speech || runs_.empty()) {
        int audio_frames = samples_ < static_cast<uint64_t>(frame_size_)
                               ? 0
                               : 1 + static_cast<int>((samples_ - frame_size_) / frame_shift_);
        runs_.emplace_back(emitted_, audio_frames - fc.frames);
      }
      emitted_ += fc.frames;
      // In blocks no larger than ps_process_raw's (acmod's cepstrum buffer,
      // 2 * feature window + 1 frames): acmod_process_cep trips the search's
      // assertions (an abort) on larger ones.
      for (int first = 0; first < fc.frames; first += cep_block_) {
        SearchCall sc{ps_, cep_rows_.data() + first, std::min(cep_block_, fc.frames - first), 0};
        Guard("ps_process_cep", RunSearch, &sc);
        if (sc.rc < 0) Fail("ps_process_cep failed (" + std::to_string(sc.rc) + ")");
      }
    }
  }
  if (!want_hypothesis) return;
  Call call{ps_, nullptr, 0, 0, nullptr};
  Guard("ps_get_hyp", RunHyp, &call);
  out->text = call.hyp ? call.hyp : "";
  out->frames = SearchedFrames();
  out->end_probability = EndProbability(out->text.c_str());
}

void Decoder::EndUtterance(Final* out) {
  Usable("endUtterance");
  if (!in_utterance_) Fail("endUtterance: no utterance is started (call startUtterance first)");
  in_utterance_ = false;
  Call call{ps_, nullptr, 0, 0, nullptr};
  Guard("ps_end_utt", RunEndUtt, &call);
  if (call.rc < 0) Fail("ps_end_utt failed (" + std::to_string(call.rc) + ")");
  Guard("ps_get_hyp", RunHyp, &call);
  out->text = call.hyp ? call.hyp : "";
  out->frames = SearchedFrames();
  std::vector<Segment> segments;
  SegCall seg_call{ps_, &segments};
  Guard("ps_seg_iter", RunSegments, &seg_call);
  logmath_t* lmath = ps_get_logmath(ps_);
  double frame_ms = 1000.0 / frame_rate_;
  for (const Segment& s : segments) {
    if (IsFiller(s.word.c_str())) continue;
    Word w;
    w.word = BaseWord(s.word.c_str());
    w.start_ms = FrameOfSearchFrame(s.sf) * frame_ms;
    w.end_ms = std::max(w.start_ms, (FrameOfSearchFrame(s.ef) + 1) * frame_ms);
    double p = logmath_exp(lmath, s.prob);
    w.posterior = p < 0 ? 0 : p > 1 ? 1 : p;
    out->words.push_back(std::move(w));
  }
}

// Live CMN (sphinxbase feat.c, feat_cmn): the model's feat.params says
// `-cmn batch`, but feat_cmn switches to CMN_LIVE for good on the first
// block that is not a whole utterance (full_utt = FALSE). cmn_live then
// subtracts the current mean, seeded by acmod_init_feat with -cmninit (only
// the mean: the sums and the frame count start at 0), and adds every frame
// whose c0 >= 0 to the sums; the mean becomes sum / count after 800 frames
// within an utterance (cmn_live_shiftwin) and at every utterance end
// (cmn_live_update), the sums decaying to a 500-frame weight. So after the
// first utterance the seed is forgotten and the mean follows the last ~5-8 s
// of speech, across utterances. This puts back the state ps_init left: the
// seed as the mean, empty sums. It also restarts the stream (ps_start_stream:
// the front end's noise estimate, used by its VAD and noise removal, and the
// stream's frame count), which adapts across utterances too; without it the
// same audio would not decode the same way.
// ps_seg_frames adds acmod's stream offset, which only ps_process_raw sets
// (to the last VAD onset, so earlier words of an utterance with a pause
// would move); fed through ps_process_cep it stays 0 and the frames are
// search frames, mapped here through the runs.
double Decoder::FrameOfSearchFrame(int k) const {
  int start = 0, audio = 0;
  for (const auto& [first, frame] : runs_) {
    if (first > k) break;
    start = first;
    audio = frame;
  }
  return std::max(0, audio + (k - start));
}

void Decoder::ResetNormalisation() {
  Usable("resetNormalisation");
  if (in_utterance_) Fail("resetNormalisation: not during an utterance (call endUtterance first)");
  feat_t* fcb = ps_get_feat(ps_);
  if (cmn_t* cmn = fcb->cmn_struct) {
    for (int i = 0; i < cmn->veclen; ++i) {
      cmn->cmn_mean[i] = i < static_cast<int>(cmninit_.size()) ? FLOAT2MFCC(cmninit_[i]) : 0;
      cmn->sum[i] = 0;
    }
    cmn->nframe = 0;
  }
  ps_start_stream(ps_);
}

double Decoder::EndProbability(const char* hyp) const {
  std::vector<std::string> words = Words(hyp);
  if (words.empty()) return 0;
  return ps_get_lm(ps_, ps_get_search(ps_)) ? LmEndProbability(words) : FsgEndProbability(words);
}

}  // namespace psnode

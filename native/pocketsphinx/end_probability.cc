// How strongly the search expects the sentence to end after a hypothesis.
#include <algorithm>
#include <vector>

#include <pocketsphinx.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

#include "decoder.h"

namespace psnode {

// P(</s> | the last two words) from the language model, 0..1.
//
// ngram_score would include the language weight and the word insertion
// penalty the search applied to the model (ngram_model_apply_weights), so
// it is no probability; ngram_ng_prob is the raw log probability of the
// model file, in the decoder's log base. History is most recent first; a
// word the model lacks shortens it (the model backs off the same way).
double Decoder::LmEndProbability(const std::vector<std::string>& words) const {
  ngram_model_t* lm = ps_get_lm(ps_, ps_get_search(ps_));
  int32 end = ngram_wid(lm, "</s>");
  if (end == NGRAM_INVALID_WID) return 0;
  int32 history[2];
  int32 n_hist = 0;
  history[n_hist++] = ngram_wid(lm, words.back().c_str());
  history[n_hist++] = words.size() >= 2 ? ngram_wid(lm, words[words.size() - 2].c_str()) : ngram_wid(lm, "<s>");
  if (history[1] == NGRAM_INVALID_WID) n_hist = 1;
  if (history[0] == NGRAM_INVALID_WID) n_hist = 0;
  int32 n_used = 0;
  int32 logp = ngram_ng_prob(lm, end, history, n_hist, &n_used);
  double p = logmath_exp(ps_get_logmath(ps_), logp);
  return p < 0 ? 0 : p > 1 ? 1 : p;
}

namespace {

// Adds to `in` every state reachable from it through null (epsilon or tag)
// transitions, which have a negative word id.
void NullClosure(fsg_model_t* fsg, std::vector<char>* in) {
  std::vector<int32> todo;
  for (int32 s = 0; s < fsg_model_n_state(fsg); ++s) {
    if ((*in)[s]) todo.push_back(s);
  }
  while (!todo.empty()) {
    int32 s = todo.back();
    todo.pop_back();
    for (fsg_arciter_t* it = fsg_model_arcs(fsg, s); it; it = fsg_arciter_next(it)) {
      fsg_link_t* link = fsg_arciter_get(it);
      int32 to = fsg_link_to_state(link);
      if (fsg_link_wid(link) < 0 && !(*in)[to]) {
        (*in)[to] = 1;
        todo.push_back(to);
      }
    }
  }
}

}  // namespace

// 1 when the words are a complete sentence of the grammar: walking the FSG
// from its start state with them, null transitions followed, reaches the
// final state; else 0. Fillers the search adds (<sil>, [NOISE]: self-loops)
// are not in the hypothesis and need no walking.
double Decoder::FsgEndProbability(const std::vector<std::string>& words) const {
  fsg_model_t* fsg = ps_get_fsg(ps_, ps_get_search(ps_));
  if (!fsg) return 0;  // keyword spotting or phone loop: no sentence end
  int32 n = fsg_model_n_state(fsg);
  std::vector<char> states(n, 0), next(n, 0);
  states[fsg_model_start_state(fsg)] = 1;
  NullClosure(fsg, &states);
  for (const std::string& w : words) {
    int32 wid = fsg_model_word_id(fsg, w.c_str());
    if (wid < 0) return 0;
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (int32 s = 0; s < n; ++s) {
      if (!states[s]) continue;
      for (fsg_arciter_t* it = fsg_model_arcs(fsg, s); it; it = fsg_arciter_next(it)) {
        fsg_link_t* link = fsg_arciter_get(it);
        if (fsg_link_wid(link) == wid) {
          next[fsg_link_to_state(link)] = 1;
          any = true;
        }
      }
    }
    if (!any) return 0;
    NullClosure(fsg, &next);
    states.swap(next);
  }
  return states[fsg_model_final_state(fsg)] ? 1 : 0;
}

}  // namespace psnode

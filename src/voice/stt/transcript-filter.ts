import type { Transcript } from '../types.js';

/**
 * Decides whether a final transcript is something the user said, before it
 * reaches the LLM (seed 004: empty, punctuation-only and low-confidence
 * results discard the utterance). Pure: the caller logs the reason.
 */

export type TranscriptDropReason = 'empty' | 'non-speech' | 'punctuation-only' | 'low-confidence';

export type TranscriptVerdict =
  /** `text` is the transcript without its non-speech tags, spaces collapsed. */
  | { keep: true; text: string }
  | { keep: false; reason: TranscriptDropReason };

export interface TranscriptFilterOptions {
  /** 0..1; a transcript with a lower confidence is dropped, one without a confidence is kept. */
  minConfidence?: number;
}

/**
 * Near exp(-1) ≈ 0.37, where whisper.cpp's own decoder gives up (logprob_thold
 * -1.0 on the mean token log probability). Pocketsphinx's mean word posterior
 * measured 0.61 to 0.66 on the librivox test clips and 0.17 on a synthetic
 * command it misheard with its full language model.
 */
export const DEFAULT_MIN_CONFIDENCE = 0.35;

/**
 * What whisper writes for sounds that are not speech: `[BLANK_AUDIO]`,
 * `[MUSIC]`, `[ Silence ]`, `(music)`, `(upbeat music)`, `*laughs*`, and
 * music notes. Brackets never hold words the user said.
 */
const NON_SPEECH = /\[[^\]]*\]|\([^)]*\)|\*[^*]+\*|[♪♫♬🎵🎶]/gu;
const HAS_WORD = /[\p{L}\p{N}]/u;

export function filterTranscript(
  transcript: Pick<Transcript, 'text' | 'confidence'>,
  options: TranscriptFilterOptions = {},
): TranscriptVerdict {
  const original = transcript.text.trim();
  if (original === '') return { keep: false, reason: 'empty' };
  const withoutTags = original.replace(NON_SPEECH, ' ');
  const text = withoutTags.replace(/\s+/g, ' ').trim();
  if (!HAS_WORD.test(text)) {
    return { keep: false, reason: withoutTags === original ? 'punctuation-only' : 'non-speech' };
  }
  const minConfidence = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  if (transcript.confidence !== undefined && transcript.confidence < minConfidence) {
    return { keep: false, reason: 'low-confidence' };
  }
  return { keep: true, text };
}

import { expandHome, voiceLanguages, type AssistantMode, type Config } from '../config/index.js';
import { Endpointer, SileroVad } from './vad/index.js';
import { RedecodingStt } from './streaming/index.js';
import { filterTranscript, PocketsphinxStt, ResidentPocketsphinxStt, startWhisperServer, WhisperServerStt, type WhisperProcess } from './stt/index.js';
import { EspeakTts, KokoroTts } from './tts/index.js';
import type { DetectorEvent, TranscriptCheck, UtteranceDetector } from './session/index.js';
import type { StreamingStt, Stt, Tts } from './types.js';
import type { EndpointerEvent } from './vad/index.js';

/**
 * `[stt] partial_interval_ms` when unset: hypotheses of the resident decoder are cheap; a
 * re-decode is not, and turn-based, where partials are only for the eye, a batch engine makes
 * none (each one is a whole decode, and the final would wait behind it: the daemon bench
 * measured 2.9 s p95 with them against 2.2 s without).
 */
const PARTIAL_INTERVAL_MS = { resident: 100, redecoding: { turn_based: 0, full_duplex_agent: 1000 } } as const;

/**
 * Streaming speech to text from `[stt]`: the resident pocketsphinx decoder
 * (Debian's model, optional JSGF grammar), or a batch engine behind the
 * re-decoding adapter: pocketsphinx_continuous spawned per decode, or
 * whisper-server (the one at `[whisper] url`, or one started here with the
 * model, device and port of `[whisper]` and stopped on close).
 */
export async function sttFromConfig(config: Config, mode: AssistantMode = 'turn_based'): Promise<StreamingStt> {
  const { engine, grammar, partial_interval_ms: interval } = config.stt;
  const jsgf = grammar === '' ? {} : { jsgf: expandHome(grammar) };
  if (engine === 'pocketsphinx') {
    return ResidentPocketsphinxStt.create({ ...jsgf, partialIntervalMs: interval ?? PARTIAL_INTERVAL_MS.resident });
  }
  const partialIntervalMs = interval ?? PARTIAL_INTERVAL_MS.redecoding[mode];
  if (engine === 'pocketsphinx_continuous') return new RedecodingStt(new PocketsphinxStt(jsgf), { partialIntervalMs });
  return new RedecodingStt(await whisperFromConfig(config), { partialIntervalMs });
}

async function whisperFromConfig(config: Config): Promise<Stt> {
  const { url, binary, model, device, port } = config.whisper;
  if (url !== '') return new WhisperServerStt({ url });
  const server: WhisperProcess = await startWhisperServer({ binary, model: expandHome(model), device, port, configKey: 'whisper.model' });
  const stt = new WhisperServerStt({ url: server.url });
  return {
    name: stt.name,
    transcribe: (audio, options) => stt.transcribe(audio, options),
    close: async () => {
      await stt.close();
      await server.close();
    },
  };
}

/** Text to speech from `[tts]`: espeak-ng, or Kokoro from the files of `[kokoro]`. */
export async function ttsFromConfig(config: Config): Promise<Tts> {
  if (config.tts.engine === 'espeak') return new EspeakTts();
  return KokoroTts.create({ model: expandHome(config.kokoro.model), voices: expandHome(config.kokoro.voices), languages: voiceLanguages(config) });
}

/** Silero VAD with the endpointing of `[vad]`, as the session's utterance detector. */
export async function detectorFromConfig(config: Config): Promise<UtteranceDetector & { close(): Promise<void> }> {
  const vad = await SileroVad.load();
  const endpointer = new Endpointer(vad, {
    threshold: config.vad.threshold,
    minSpeechMs: config.vad.min_speech_ms,
    endSilenceMs: config.vad.silence_ms,
    sentenceEndSilenceMs: config.vad.sentence_end_silence_ms,
    unfinishedSilenceMs: config.vad.unfinished_silence_ms,
    prefixPaddingMs: config.vad.prefix_ms,
  });
  const holdMs = config.vad.sentence_end_silence_ms;
  return {
    push: async (frame) => detectorEvents(await endpointer.push(frame.samples)),
    flush: async () => detectorEvents(await endpointer.flush()),
    reset: () => endpointer.reset(),
    setEndCheck: (check) => endpointer.setEndCheck(check && ((silenceMs) => check(holdMs, silenceMs))),
    setPauseListener: (listener) => endpointer.setPauseListener(listener),
    close: () => vad.close(),
  };
}

function detectorEvents(events: EndpointerEvent[]): DetectorEvent[] {
  return events.map((e) =>
    e.type === 'speech_start' ? { type: 'start', frame: e.frameIndex, samples: e.samples } : { type: 'end', frame: e.endFrameIndex, samples: e.samples, rule: e.rule, silenceMs: e.silenceMs },
  );
}

/** `[stt] min_confidence` and the empty, punctuation-only and non-speech rules. */
export function transcriptCheck(config: Config): TranscriptCheck {
  return (transcript) => {
    const verdict = filterTranscript(transcript, { minConfidence: config.stt.min_confidence });
    return verdict.keep ? undefined : verdict.reason;
  };
}

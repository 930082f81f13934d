import { expandHome, voiceLanguages, type Config } from '../config/index.js';
import { Endpointer, SileroVad } from './vad/index.js';
import { filterTranscript, PocketsphinxStt, startWhisperServer, WhisperServerStt, type WhisperProcess } from './stt/index.js';
import { EspeakTts, KokoroTts } from './tts/index.js';
import type { DetectorEvent, TranscriptCheck, UtteranceDetector } from './session/voice-session.js';
import type { Stt, Tts } from './types.js';
import type { EndpointerEvent } from './vad/index.js';

/**
 * Speech to text from `[stt]`: pocketsphinx (Debian's model, optional JSGF
 * grammar), or whisper-server: the one at `[whisper] url`, or one started
 * here with the model, device and port of `[whisper]` and stopped on close.
 */
export async function sttFromConfig(config: Config): Promise<Stt> {
  if (config.stt.engine === 'pocketsphinx') {
    return new PocketsphinxStt(config.stt.grammar === '' ? {} : { jsgf: expandHome(config.stt.grammar) });
  }
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
    prefixPaddingMs: config.vad.prefix_ms,
  });
  return {
    push: async (frame) => detectorEvents(await endpointer.push(frame.samples)),
    flush: async () => detectorEvents(await endpointer.flush()),
    reset: () => endpointer.reset(),
    close: () => vad.close(),
  };
}

function detectorEvents(events: EndpointerEvent[]): DetectorEvent[] {
  return events.map((e) => (e.type === 'speech_start' ? { type: 'start', frame: e.frameIndex } : { type: 'end', frame: e.endFrameIndex, samples: e.samples }));
}

/** `[stt] min_confidence` and the empty, punctuation-only and non-speech rules. */
export function transcriptCheck(config: Config): TranscriptCheck {
  return (transcript) => {
    const verdict = filterTranscript(transcript, { minConfidence: config.stt.min_confidence });
    return verdict.keep ? undefined : verdict.reason;
  };
}

/**
 * The full-duplex runtime on fakes, in virtual time: a simulated room
 * (speaker echo back into the microphone), a pass-through APM, a VAD and an
 * STT that read loudness, a TTS that plays each sentence as a tone of its
 * own level, and the real Conversation, router and OpenAI client against
 * the scripted LLM server. Levels:
 *   assistant audio 500 + 10 x sentence -> VAD 0.6 (echo: over the speech
 *   threshold, under the barge-in one);
 *   user speech >= 3000 -> VAD 0.95; STT: >= 6500 "stop talking please",
 *   4500..6500 "what is the weather", below that no words.
 */
import { defaultConfig } from '../../../src/config/index.js';
import { AppError } from '../../../src/errors/index.js';
import type { AssistantEvent } from '../../../src/events/index.js';
import type { Apm } from '../../../src/voice/apm/index.js';
import { SimulatedRoom } from '../../support/simulated-room.js';
import { DuplexVoice, resolveDuplexConfig, type DuplexConfig } from '../../../src/voice/duplex/index.js';
import { RedecodingStt } from '../../../src/voice/streaming/index.js';
import type { StreamingStt, Stt, Tts, Vad } from '../../../src/voice/types.js';
import type { EndpointerConfig } from '../../../src/voice/vad/index.js';
import type { ScriptedReply } from '../../fakes/scripted-llm-server.js';
import { allowAll, conversationFixture } from '../../host/conversation/conversation-fixture.js';

export const LEVEL = { weather: 5000, stop: 7000, cough: 3500 } as const;
export const SENTENCE_MS = 400;

export function tone(level: number, ms: number): Int16Array {
  return new Int16Array((ms * 16_000) / 1000).fill(level);
}

const peak = (samples: Int16Array) => samples.reduce((max, s) => Math.max(max, Math.abs(s)), 0);

export function passThroughApm(options: { failAtFrame?: number } = {}): Apm & { captured: number } {
  const apm = {
    format: { sampleRate: 16_000, channels: 1 },
    frameSamples: 160,
    captured: 0,
    processRender: () => undefined,
    processCapture(frame: Int16Array) {
      apm.captured += 1;
      if (apm.captured === options.failAtFrame) throw new AppError('AUDIO_APM_FAILED', 'the echo canceller failed (test)');
      return frame.slice();
    },
    setStreamDelayMs: () => undefined,
    stats: () => ({ framesRendered: 0, framesCaptured: apm.captured, streamHasEcho: false }),
    close: () => undefined,
  };
  return apm;
}

export const levelVad: Vad = {
  frameSamples: 512,
  probability: async (samples) => {
    const level = samples.reduce((sum, s) => sum + Math.abs(s), 0) / samples.length;
    return level >= 3000 ? 0.95 : level >= 200 ? 0.6 : 0.02;
  },
  reset: () => undefined,
  close: async () => undefined,
};

export function levelStt(): Stt & { calls: number } {
  const stt = {
    name: 'level-stt',
    calls: 0,
    async *transcribe(audio: Int16Array) {
      stt.calls += 1;
      const level = peak(audio);
      const text = level >= 6500 ? 'stop talking please' : level >= 4500 ? 'what is the weather' : '';
      yield { text, final: true };
    },
    close: async () => undefined,
  };
  return stt;
}

/** Each sentence a tone of level 500 + 10 x the number of sentences synthesized before it, SENTENCE_MS long, in 100 ms chunks; "FAIL" in it throws. */
export function toneTts(): Tts & { spoken: string[] } {
  const tts = {
    name: 'tone-tts',
    spoken: [] as string[],
    async *synthesize(text: string, options: { signal?: AbortSignal }) {
      tts.spoken.push(text);
      if (text.includes('FAIL')) throw new Error('the voice is broken (test)');
      const level = 500 + 10 * (tts.spoken.length - 1);
      for (let ms = 0; ms < SENTENCE_MS; ms += 100) {
        if (options.signal?.aborted) return;
        await Promise.resolve();
        yield tone(level, 100);
      }
    },
    close: async () => undefined,
  };
  return tts;
}

export interface DuplexHarnessOptions {
  config?: Partial<DuplexConfig>;
  /** Partial transcripts every so many ms of audio (default none). */
  partialIntervalMs?: number;
  failApmAtFrame?: number;
  /** Recognition in place of the level STT (a resident decoder on a scripted one: words by time, not by level). */
  recognizer?: StreamingStt;
  endpointer?: Partial<EndpointerConfig>;
}

const DEFAULT_DUPLEX = defaultConfig().duplex;

export async function duplexHarness(replies: ScriptedReply[], options: DuplexHarnessOptions = {}) {
  const fixture = await conversationFixture(replies);
  const room = new SimulatedRoom({ echoGain: 1, echoDelayMs: 40 });
  const stt = levelStt();
  const tts = toneTts();
  const apm = passThroughApm(options.failApmAtFrame === undefined ? {} : { failAtFrame: options.failApmAtFrame });
  const voice = new DuplexVoice({
    input: room.input,
    output: room.output,
    apm,
    vad: levelVad,
    stt: options.recognizer ?? new RedecodingStt(stt, { partialIntervalMs: options.partialIntervalMs ?? 0 }),
    ...(options.endpointer ? { endpointer: options.endpointer } : {}),
    tts,
    conversation: fixture.conversation,
    bus: fixture.bus,
    confirmation: allowAll,
    checkTranscript: (t) => (t.text.trim() === '' ? 'no words' : undefined),
    sanitize: (text) => text,
    sentenceLanguage: (_sentence, fallback) => fallback,
    languages: ['en', 'it'],
    defaultLanguage: 'en',
    echoWarmupMs: 0,
    clock: () => room.now(),
    config: resolveDuplexConfig(options.config),
    renderBufferMs: DEFAULT_DUPLEX.render_buffer_ms,
    captureBufferMs: DEFAULT_DUPLEX.capture_buffer_ms,
    driftTolerancePpm: DEFAULT_DUPLEX.drift_tolerance_ppm,
  });
  const events = fixture.events;
  const states = () => events.filter((e): e is Extract<AssistantEvent, { type: 'state.changed' }> => e.type === 'state.changed').map((e) => e.state);

  /** Runs the room until `done` holds (checked every frame's worth of events) or `maxAudioMs` of audio passed. */
  async function runUntil(done: () => boolean, maxAudioMs = 20_000): Promise<void> {
    voice.start();
    while (!done()) {
      if (room.audioMs > maxAudioMs) throw new Error(`not done after ${maxAudioMs} ms of audio; states: ${states().join(' -> ')}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /** Calls `then` once, at the first event that matches. */
  function onFirst(match: (e: AssistantEvent) => boolean, then: (e: AssistantEvent) => void): void {
    let fired = false;
    fixture.bus.subscribe((e) => {
      if (fired || !match(e)) return;
      fired = true;
      then(e);
    });
  }

  return {
    ...fixture,
    room,
    stt,
    tts,
    apm,
    voice,
    states,
    runUntil,
    onFirst,
    /** The levels the speaker played, one per 20 ms frame (0 = silence), runs collapsed. */
    playedLevels(): number[] {
      const levels: number[] = [];
      for (const frame of room.played) {
        const level = peak(frame);
        if (levels[levels.length - 1] !== level) levels.push(level);
      }
      return levels;
    },
    close: async () => {
      await voice.close();
      room.close();
      await fixture.close();
    },
  };
}

/**
 * One recorded question through the turn-based voice's listening, as
 * `VoiceSession.listenOnce` hears it: the real endpointer and recognizer of
 * a config, fed as fast as the decoder takes the audio (each 20 ms frame
 * once the decoder has finished the ones before it, so the sentence check
 * sees the words it would see in real time). Times are audio time: where the
 * recording ended, and by which rule. Used by the pauses bench and the
 * end-of-turn tests.
 */
import type { Config } from '../../src/config/index.js';
import { createAssistantBus, type AssistantEvent } from '../../src/events/index.js';
import { noConfirmationChannel } from '../../src/host/router/index.js';
import { transcriptCheck } from '../../src/voice/engines.js';
import type { VoiceConversation } from '../../src/voice/host-ports.js';
import { Speaker } from '../../src/voice/session/speaker.js';
import { VoiceSession, type UtteranceDetector } from '../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput, StreamingStt, Tts } from '../../src/voice/types.js';
import { NullOutput } from './null-output.js';

const FRAME = 320;

export interface ClipListening {
  config: Config;
  stt: StreamingStt;
  detector: UtteranceDetector;
  /** 16 kHz mono: the question and the quiet after it. */
  samples: Int16Array;
  signal?: AbortSignal;
}

export interface HeardClip {
  /** The sample at which the recording ended (the end of the frame that ended it); undefined: no speech heard. */
  endedAt?: number;
  endRule?: string;
  transcript?: string;
}

export async function listenToClip(options: ClipListening): Promise<HeardClip> {
  const { config, stt, detector, signal } = options;
  const input = new DecoderPacedInput(options.samples, stt);
  const bus = createAssistantBus();
  const events: AssistantEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const clock = (): number => input.framesGiven * 20;
  const session = new VoiceSession({
    input,
    detector,
    stt,
    speaker: new Speaker({ tts: SILENT_TTS, output: new NullOutput(), bus, sanitize: (t) => t, clock }),
    conversation: NO_CONVERSATION,
    bus,
    checkTranscript: transcriptCheck(config),
    languages: ['en'],
    defaultLanguage: 'en',
    confirmation: noConfirmationChannel('a recorded question'),
    sentenceLanguage: () => 'en',
    clock,
  });
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const heard = await session.listenOnce('http', stop.signal);
    if (!heard) return {};
    const endedAt = input.framesGiven * FRAME;
    const ended = events.find((e) => e.type === 'voice.speech' && e.phase === 'end');
    const transcript = await heard.recognition.finish().then((t) => t.text, () => undefined);
    return { endedAt, ...(ended?.type === 'voice.speech' && ended.endRule ? { endRule: ended.endRule } : {}), ...(transcript === undefined ? {} : { transcript }) };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A file as a microphone that waits for the decoder: each frame is given
 * only once the decoder has finished everything queued (the frames before
 * it), so the sentence check sees the words it would see in real time.
 * Engines without a queue to wait on are fed at once.
 */
class DecoderPacedInput implements AudioInput {
  readonly name = 'recorded question';
  framesGiven = 0;

  constructor(
    private readonly samples: Int16Array,
    private readonly stt: StreamingStt,
  ) {}

  async *frames(options: { signal?: AbortSignal } = {}): AsyncIterable<AudioFrame> {
    const queue = this.stt as StreamingStt & { enqueue?: (work: () => Promise<void>) => Promise<void> };
    for (let index = 0; index * FRAME < this.samples.length; index++) {
      if (options.signal?.aborted) return;
      await queue.enqueue?.(async () => undefined);
      this.framesGiven = index + 1;
      yield { samples: this.samples.slice(index * FRAME, (index + 1) * FRAME), index, atMs: index * 20 };
    }
  }

  async close(): Promise<void> {}
}

const SILENT_TTS: Tts = {
  name: 'none',
  // eslint-disable-next-line require-yield
  async *synthesize() {
    return;
  },
  close: async () => undefined,
};

/** listenOnce asks the conversation only to anticipate (memory recall); no turn is ever taken here. */
const NO_CONVERSATION: VoiceConversation = {
  turn: () => Promise.reject(new Error('the pauses bench takes no turns')),
  commit: () => undefined,
  anticipate: () => undefined,
};

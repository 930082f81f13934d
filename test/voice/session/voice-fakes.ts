import type { DetectorEvent, UtteranceDetector } from '../../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput, AudioOutput, PartialTranscript, RecognitionSession, StreamingStt, Transcript, Tts } from '../../../src/voice/types.js';
import { FRAME_SAMPLES, SAMPLE_RATE } from '../../../src/voice/types.js';

/** `count` frames of silence, then the input ends. */
export function framesInput(count: number): AudioInput {
  return {
    name: 'frames',
    async *frames() {
      for (let index = 0; index < count; index++) yield { samples: new Int16Array(FRAME_SAMPLES), index, atMs: index * 20 } satisfies AudioFrame;
    },
    close: async () => undefined,
  };
}

/** Utterances at given frame ranges: [start, end) each; the samples' length tells which one. */
export function scriptedDetector(utterances: [number, number][]): UtteranceDetector & { resets: number } {
  let open: number | undefined;
  const detector = {
    resets: 0,
    async push(frame: AudioFrame): Promise<DetectorEvent[]> {
      const starting = utterances.find(([start]) => start === frame.index);
      if (starting) {
        open = starting[0];
        // The pre-roll: this frame (the scripted detector has no padding).
        return [{ type: 'start', frame: frame.index, samples: frame.samples }];
      }
      const ending = utterances.find(([, end]) => end === frame.index);
      if (ending && open !== undefined) {
        open = undefined;
        return [{ type: 'end', frame: frame.index, samples: new Int16Array((ending[1] - ending[0]) * FRAME_SAMPLES) }];
      }
      return [];
    },
    async flush(): Promise<DetectorEvent[]> {
      if (open === undefined) return [];
      const start = open;
      open = undefined;
      return [{ type: 'end', frame: start + 1, samples: new Int16Array(FRAME_SAMPLES) }];
    },
    reset() {
      detector.resets += 1;
      open = undefined;
    },
  };
  return detector;
}

/**
 * A streaming recognizer that answers each utterance with the next script
 * entry: while the utterance grows past its pre-roll, one partial of the
 * entry's first word; on finish, the entry (an Error entry rejects).
 * `heard` has the samples each finished utterance was fed.
 */
export function scriptedStt(script: (Transcript | Error)[]): StreamingStt & { heard: number[]; cancelled: number } {
  const stt = {
    name: 'scripted-stt',
    heard: [] as number[],
    cancelled: 0,
    startUtterance(): RecognitionSession {
      const listeners = new Set<(partial: PartialTranscript) => void>();
      let samples = 0;
      let pushes = 0;
      let cancelled = false;
      return {
        push(chunk) {
          if (cancelled) return;
          samples += chunk.length;
          pushes += 1;
          const next = script[0];
          if (pushes === 2 && next && !(next instanceof Error)) {
            for (const listener of listeners) listener({ text: next.text.split(' ')[0] ?? '', stable: '', audioMs: (samples / SAMPLE_RATE) * 1000 });
          }
        },
        onPartial(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async finish() {
          if (cancelled) throw Object.assign(new Error('cancelled'), { code: 'STT_CANCELLED' });
          stt.heard.push(samples);
          const next = script.shift();
          if (!next) throw new Error('scripted stt ran out of transcripts');
          if (next instanceof Error) throw next;
          return next;
        },
        cancel() {
          if (!cancelled) stt.cancelled += 1;
          cancelled = true;
        },
      };
    },
    close: async () => undefined,
  };
  return stt;
}

/** Two chunks per sentence; remembers what it said in which language. */
export function recordingTts(): Tts & { said: { text: string; language: string }[] } {
  const said: { text: string; language: string }[] = [];
  return {
    name: 'recording-tts',
    said,
    async *synthesize(text, { language }) {
      said.push({ text, language });
      yield new Int16Array(160).fill(1);
      yield new Int16Array(160).fill(2);
    },
    close: async () => undefined,
  };
}

export function recordingOutput(): AudioOutput & { written: number; drains: number } {
  const output = {
    name: 'recording',
    written: 0,
    drains: 0,
    write: async (samples: Int16Array) => {
      output.written += samples.length;
    },
    drain: async () => {
      output.drains += 1;
    },
    clear: () => undefined,
    close: async () => undefined,
  };
  return output;
}

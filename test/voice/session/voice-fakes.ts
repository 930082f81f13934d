import type { DetectorEvent, UtteranceDetector } from '../../../src/voice/session/voice-session.js';
import type { AudioFrame, AudioInput, AudioOutput, Stt, Transcript, Tts } from '../../../src/voice/types.js';
import { FRAME_SAMPLES } from '../../../src/voice/types.js';

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
        return [{ type: 'start', frame: frame.index }];
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

/** Answers each utterance with the next script entry: a partial of its first word, then the final. */
export function scriptedStt(script: (Transcript | Error)[]): Stt & { heard: number[] } {
  const heard: number[] = [];
  return {
    name: 'scripted-stt',
    heard,
    async *transcribe(audio) {
      heard.push(audio.length);
      const next = script.shift();
      if (!next) throw new Error('scripted stt ran out of transcripts');
      if (next instanceof Error) throw next;
      yield { text: next.text.split(' ')[0] ?? '', final: false };
      yield next;
    },
    close: async () => undefined,
  };
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

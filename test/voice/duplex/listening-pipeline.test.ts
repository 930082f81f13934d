import { describe, expect, it } from 'vitest';
import { createAssistantBus } from '../../../src/events/index.js';
import type { BargeInDetector, BargeInFrameResult } from '../../../src/voice/duplex/barge-in-detector.js';
import { ListeningPipeline } from '../../../src/voice/duplex/listening-pipeline.js';
import { ScoreReplayVad } from '../../../src/voice/duplex/score-replay-vad.js';
import type { DuplexInput } from '../../../src/voice/duplex/states.js';
import type { Stt } from '../../../src/voice/types.js';
import { Endpointer } from '../../../src/voice/vad/index.js';

/**
 * A detector stand-in for frames 20 ms long: "speech" from frame 10 to 40;
 * the cleaned path carries it at 100 (a voice the strong suppression nearly
 * silenced), the light path at 5000; the onset is confirmed at frame 15 by
 * `rule`.
 */
function scriptedDetector(rule: 'cleaned' | 'double_talk'): BargeInDetector {
  let frame = 0;
  let pending = 0;
  return {
    async process(): Promise<BargeInFrameResult> {
      const speech = frame >= 10 && frame < 40;
      const result: BargeInFrameResult = {
        atMs: frame * 20,
        playing: true,
        cleaned: new Int16Array(320).fill(speech ? 100 : 0),
        lightlyCleaned: new Int16Array(320).fill(speech ? 5000 : 0),
        windows: [],
      };
      pending += 320;
      while (pending >= 512) {
        pending -= 512;
        result.windows.push({ startMs: 0, probability: speech ? 0.95 : 0.01 });
      }
      if (frame === 15) result.event = { type: 'speech_started', confidence: 0.9, rule, startedAtMs: 200, atMs: 300, duringPlayback: true };
      frame += 1;
      return result;
    },
    reset: () => undefined,
  } as unknown as BargeInDetector;
}

async function heardBy(rule: 'cleaned' | 'double_talk'): Promise<{ heard: number[]; inputs: string[] }> {
  const heard: number[] = [];
  const stt: Stt = {
    name: 'peak',
    async *transcribe(audio) {
      heard.push(audio.reduce((max, s) => Math.max(max, s), 0));
      yield { text: 'stop', final: true };
    },
    close: async () => undefined,
  };
  const scores = new ScoreReplayVad(512);
  const inputs: string[] = [];
  const pipeline = new ListeningPipeline({
    detector: scriptedDetector(rule),
    endpointer: new Endpointer(scores, { minSpeechMs: 100, endSilenceMs: 200, suffixPaddingMs: 100 }),
    scores,
    stt,
    checkTranscript: () => undefined,
    partialIntervalMs: 0,
    setTimer: () => 0,
    clearTimer: () => undefined,
    bus: createAssistantBus(),
    clock: () => 0,
    eventClock: () => 0,
    dispatch: (input: DuplexInput) => inputs.push(input.type),
    confidenceScale: () => 1,
    onLanguage: () => undefined,
    signal: new AbortController().signal,
  });
  for (let i = 0; i < 70; i++) await pipeline.frame({ samples: new Int16Array(320), index: i, atMs: i * 20 }, new Int16Array(320));
  await pipeline.settled();
  return { heard, inputs };
}

describe('the listening pipeline', () => {
  it('lets recognition hear the less suppressed audio when the double-talk rule caught the voice', async () => {
    const { heard, inputs } = await heardBy('double_talk');
    expect(heard).toEqual([5000]);
    expect(inputs).toEqual(['speech_started', 'speech_ended', 'transcript_final']);
  });

  it('keeps to the strongly cleaned audio when the cleaned path caught it (the light one carries more echo)', async () => {
    const { heard } = await heardBy('cleaned');
    expect(heard).toEqual([100]);
  });
});

import { describe, expect, it } from 'vitest';
import { createAssistantBus } from '../../../src/events/index.js';
import type { BargeInDetector, BargeInFrameResult } from '../../../src/voice/duplex/barge-in-detector.js';
import { ListeningPipeline } from '../../../src/voice/duplex/listening-pipeline.js';
import { ScoreReplayVad } from '../../../src/voice/duplex/score-replay-vad.js';
import type { DuplexInput } from '../../../src/voice/duplex/states.js';
import type { RecognitionSession, Stt, StreamingStt } from '../../../src/voice/types.js';
import { RedecodingStt } from '../../../src/voice/streaming/index.js';
import { Endpointer } from '../../../src/voice/vad/index.js';

/**
 * A detector stand-in for frames 20 ms long: the VAD hears speech in frames
 * [from, to) at level 100; the onset is confirmed at frame 15 by `rule`.
 */
function scriptedDetector(rule: 'cleaned' | 'double_talk', from: number, to: number, confirm = { frame: 15, startedAtMs: 200 }): BargeInDetector {
  let frame = 0;
  let pending = 0;
  return {
    async process(): Promise<BargeInFrameResult> {
      const speech = frame >= from && frame < to;
      const result: BargeInFrameResult = { atMs: frame * 20, playing: true, cleaned: new Int16Array(320).fill(speech ? 100 : 0), windows: [] };
      pending += 320;
      while (pending >= 512) {
        pending -= 512;
        result.windows.push({ startMs: 0, probability: speech ? 0.95 : 0.01 });
      }
      if (frame === confirm.frame) result.event = { type: 'speech_started', confidence: 0.9, rule, startedAtMs: confirm.startedAtMs, atMs: frame * 20 + 20, duringPlayback: true };
      frame += 1;
      return result;
    },
    reset: () => undefined,
  } as unknown as BargeInDetector;
}

async function run(rule: 'cleaned' | 'double_talk', from = 10, to = 40, recognizer?: StreamingStt, confirm?: { frame: number; startedAtMs: number }): Promise<{ heard: number[]; inputs: string[] }> {
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
    detector: scriptedDetector(rule, from, to, confirm),
    endpointer: new Endpointer(scores, { minSpeechMs: 100, endSilenceMs: 200, suffixPaddingMs: 100 }),
    scores,
    stt: recognizer ?? new RedecodingStt(stt, { partialIntervalMs: 0 }),
    checkTranscript: () => undefined,
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
  it('reports a confirmed utterance as started, ended and transcribed, from the strongly cleaned audio whichever rule caught it', async () => {
    for (const rule of ['cleaned', 'double_talk'] as const) {
      const { heard, inputs } = await run(rule);
      // The less suppressed audio carries the assistant's own words; in the loopback bench they came back as transcripts.
      expect(heard).toEqual([100]);
      expect(inputs).toEqual(['speech_started', 'speech_ended', 'transcript_final']);
    }
  });

  it('ends a confirmed onset that never grows into an utterance with no words', async () => {
    const { heard, inputs } = await run('double_talk', 14, 17);
    expect(heard).toEqual([]);
    expect(inputs).toEqual(['speech_started', 'speech_ended', 'transcript_empty']);
  });

  it('recognizes confirmed speech as it comes: the pre-roll of the endpointer at the onset, then every frame, finished at the end', async () => {
    const sessions: { pushes: Int16Array[]; finished: boolean; cancelled: boolean }[] = [];
    const recording: StreamingStt = {
      name: 'recording',
      startUtterance(): RecognitionSession {
        const session = { pushes: [] as Int16Array[], finished: false, cancelled: false };
        sessions.push(session);
        return {
          push: (samples) => session.pushes.push(samples),
          onPartial: () => () => undefined,
          finish: async () => ((session.finished = true), { text: 'stop', final: true }),
          cancel: () => (session.cancelled = true),
        };
      },
      close: async () => undefined,
    };
    const { inputs } = await run('cleaned', 10, 40, recording);
    expect(inputs).toEqual(['speech_started', 'speech_ended', 'transcript_final']);
    expect(sessions).toHaveLength(1);
    const [{ pushes, finished, cancelled }] = sessions as [(typeof sessions)[0]];
    expect([finished, cancelled]).toEqual([true, false]);
    // The first push is the utterance so far, from before the voice began (silence, then speech).
    const preroll = pushes[0]!;
    expect(preroll.length).toBeGreaterThan(320);
    expect(preroll[0]).toBe(0);
    expect(preroll.at(-1)).toBe(100);
    // Then one frame at a time, every frame of the speech among them.
    expect(pushes.slice(1).every((p) => p.length === 320)).toBe(true);
    const speech = pushes.reduce((n, p) => n + p.filter((x) => x === 100).length, 0);
    expect(speech).toBe(30 * 320);
  });

  it('starts recognizing 300 ms before the run that confirmed the speech, so a first syllable said before any rule was sure is heard', async () => {
    const firstPush: Int16Array[] = [];
    const recording: StreamingStt = {
      name: 'first-push',
      startUtterance: () => ({
        push: (samples) => void (firstPush.length === 0 && firstPush.push(samples)),
        onPartial: () => () => undefined,
        finish: async () => ({ text: 'wait', final: true }),
        cancel: () => undefined,
      }),
      close: async () => undefined,
    };
    // The voice starts at frame 10; the run that confirmed it began at 600 ms (frame 30) and was confirmed in frame 35.
    await run('double_talk', 10, 60, recording, { frame: 35, startedAtMs: 600 });
    // From 300 ms (frame 15) through the confirming frame: 21 frames, all of them the voice.
    expect(firstPush[0]!.length).toBe(21 * 320);
    expect(firstPush[0]!.every((x) => x === 100)).toBe(true);
  });

  it('cancels the recognition of a confirmed onset that never grows into an utterance', async () => {
    let cancelled = 0;
    let finished = 0;
    const counting: StreamingStt = {
      name: 'counting',
      startUtterance: () => ({
        push: () => undefined,
        onPartial: () => () => undefined,
        finish: async () => (finished++, { text: '', final: true }),
        cancel: () => void cancelled++,
      }),
      close: async () => undefined,
    };
    await run('double_talk', 14, 17, counting);
    expect([cancelled, finished]).toEqual([1, 0]);
  });
});

import { describe, expect, it } from 'vitest';
import { BargeInRule, type DoubleTalkWindow } from '../../../src/voice/duplex/barge-in-rule.js';
import { resolveDuplexConfig } from '../../../src/voice/duplex/index.js';

/** Windows of 32 ms from 0 ms on: [cleaned probability, double-talk probability, excess dB]; the onsets they give. */
function run(windows: Array<[number, number?, number?]>, playing = true, config = resolveDuplexConfig()) {
  const rule = new BargeInRule(config, 32);
  return windows.flatMap(([probability, second, excessDb], i) => {
    const doubleTalk: DoubleTalkWindow | undefined = second === undefined ? undefined : { probability: second, excessDb: excessDb ?? -Infinity };
    const event = rule.score(i * 32, probability, playing, doubleTalk);
    return event ? [{ window: i, ...event }] : [];
  });
}

describe('BargeInRule, in audio time', () => {
  it('during playback, confirms the cleaned path after 100 ms at the barge-in threshold, from the run’s first window', () => {
    const onsets = run([[0.2], [0.9], [0.9], [0.9], [0.9], [0.9]]);
    expect(onsets).toEqual([expect.objectContaining({ window: 4, rule: 'cleaned', startedAtMs: 32, atMs: 160, duringPlayback: true })]);
  });

  it('never confirms speech under the barge-in threshold during playback (echo residue, an echo tail), however long', () => {
    // 0.7 passes the speech threshold (0.5), not the barge-in one (0.8).
    expect(run(Array.from({ length: 20 }, (): [number] => [0.7]))).toEqual([]);
    expect(run([[0.85], [0.85], [0.85], [0.85]])).toEqual([expect.objectContaining({ window: 3, confidence: 0.85 })]);
  });

  it('never confirms speech shorter than min_barge_in_speech_ms during playback (a cough)', () => {
    expect(run([[0.95], [0.95], [0.1], [0.95], [0.95], [0.1]])).toEqual([]);
  });

  it('honours a configured minimum and threshold', () => {
    const strict = resolveDuplexConfig({ minBargeInSpeechMs: 300, bargeInThreshold: 0.95 });
    const loud = Array.from({ length: 12 }, (): [number] => [0.96]);
    expect(run(loud.slice(0, 9), true, strict)).toEqual([]);
    expect(run(loud, true, strict)).toEqual([expect.objectContaining({ window: 9, startedAtMs: 0 })]);
    expect(run(Array.from({ length: 12 }, (): [number] => [0.9]), true, strict)).toEqual([]);
  });

  it('wants surer speech over playback while it is trusted less (clock drift), on both paths', () => {
    const score = (trust: number, probability: number, second?: DoubleTalkWindow) => {
      const rule = new BargeInRule(resolveDuplexConfig(), 32);
      const onsets = [0, 1, 2, 3, 4].map((i) => rule.score(i * 32, probability, true, second, trust)).filter((e) => e !== undefined);
      return onsets.map((e) => e.rule);
    };
    expect(score(1, 0.85)).toEqual(['cleaned']);
    expect(score(0.9, 0.85)).toEqual([]);
    expect(score(0.9, 0.95)).toEqual(['cleaned']);
    expect(score(1, 0.1, { probability: 0.52, excessDb: 20 })).toEqual(['double_talk']);
    expect(score(0.9, 0.1, { probability: 0.52, excessDb: 20 })).toEqual([]);
    // With nothing playing, trust does not matter.
    const idle = new BargeInRule(resolveDuplexConfig(), 32);
    expect(idle.score(0, 0.6, false, undefined, 0.5)).toMatchObject({ rule: 'cleaned' });
  });

  it('starts a double-talk run only where the mic stands above the echo, and then carries it on the VAD alone', () => {
    // Voiced over echo but never above it: nothing.
    expect(run([[0.1, 0.9, 2], [0.1, 0.9, 3], [0.1, 0.9, 5], [0.1, 0.9, 1]], true, resolveDuplexConfig({ echoExcessDb: 6 }))).toEqual([]);
    // Above it in the first window, not in the second: confirmed after 64 ms.
    const oneWindow = resolveDuplexConfig({ doubleTalkExcessWindows: 1, echoExcessDb: 6 });
    const onsets = run([[0.1, 0.2, 9], [0.1, 0.9, 7], [0.1, 0.8, 0], [0.1, 0.9, 0]], true, oneWindow);
    // Its confidence is the double-talk path's own score for the confirming window, not rescaled for a second check.
    expect(onsets).toEqual([expect.objectContaining({ window: 2, rule: 'double_talk', startedAtMs: 32, atMs: 96, confidence: 0.8 })]);
  });

  it('can want more than one window of the run above the echo: then one loud window alone is not a voice', () => {
    const threeWindows = resolveDuplexConfig({ doubleTalkExcessWindows: 3, echoExcessDb: 6 });
    const loneLoudWindow: Array<[number, number, number]> = [[0.1, 0.9, 9], [0.1, 0.9, 2], [0.1, 0.9, 1], [0.1, 0.9, 3], [0.1, 0.9, 0]];
    expect(run(loneLoudWindow, true, threeWindows)).toEqual([]);
    const onsets = run([[0.1, 0.9, 9], [0.1, 0.9, 2], [0.1, 0.9, 8], [0.1, 0.9, 1], [0.1, 0.9, 7], [0.1, 0.9, 0]], true, threeWindows);
    expect(onsets).toEqual([expect.objectContaining({ window: 4, rule: 'double_talk', startedAtMs: 0, atMs: 160 })]);
  });

  it('does not let the first moments of a reply after a pause interrupt, and starts no run there', () => {
    const config = resolveDuplexConfig({ replyPauseMs: 500, replyStartGuardMs: 500 });
    const rule = new BargeInRule(config, 32);
    const onsets: number[] = [];
    // 640 ms idle, then a reply whose echo leaks through as loud "speech" on both paths from its first window.
    for (let i = 0; i < 60; i++) {
      const playing = i >= 20;
      const event = rule.score(i * 32, playing ? 0.95 : 0.01, playing, { probability: playing ? 0.95 : 0.01, excessDb: playing ? 20 : -Infinity });
      if (event) onsets.push(event.startedAtMs);
    }
    // The guard ends 500 ms after the reply's first window (640 ms): the first run starts at the first window after it.
    expect(onsets).toEqual([1152]);
    // A reply that follows a short pause (a new sentence) is not guarded.
    const short = new BargeInRule(config, 32);
    const found: number[] = [];
    for (let i = 0; i < 30; i++) {
      const playing = i < 10 || i >= 15;
      const loud = i >= 15;
      const event = short.score(i * 32, loud ? 0.95 : 0.01, playing, { probability: loud ? 0.95 : 0.01, excessDb: loud ? 20 : -Infinity });
      if (event) found.push(event.startedAtMs);
    }
    expect(found).toEqual([480]);
  });

  it('takes the echo-excess threshold from its settings', () => {
    const windows: Array<[number, number, number]> = [[0.1, 0.9, 8], [0.1, 0.9, 8], [0.1, 0.9, 8], [0.1, 0.9, 8]];
    expect(run(windows, true, resolveDuplexConfig({ echoExcessDb: 6 }))).toHaveLength(1);
    expect(run(windows, true, resolveDuplexConfig({ echoExcessDb: 12 }))).toEqual([]);
  });

  it('outside playback, one window at the speech threshold is an onset, and the double-talk path is not asked', () => {
    expect(run([[0.3, 0.9, 20], [0.6]], false)).toEqual([expect.objectContaining({ window: 1, rule: 'cleaned', duringPlayback: false })]);
  });

  it('gives one onset per utterance: quiet until both paths fall below the speech threshold', () => {
    const onsets = run([[0.6], [0.1, 0.7, 0], [0.6], [0.1, 0.1, 0], [0.6]], false);
    expect(onsets.map((o) => o.window)).toEqual([0, 4]);
  });
});

describe('the duplex settings given in code', () => {
  it('are held to the config schema bounds for what the config sets, and to their own for the rule constants', () => {
    expect(() => resolveDuplexConfig({ recoveryTimeoutMs: 50 })).toThrow(/duplex settings: recoveryTimeoutMs \(duplex\.recovery_timeout_ms must be >= 100\)/);
    expect(() => resolveDuplexConfig({ minBargeInSpeechMs: 5000 })).toThrow(/minBargeInSpeechMs \(duplex\.min_barge_in_speech_ms must be <= 2000\)/);
    expect(() => resolveDuplexConfig({ speechThreshold: 1 })).toThrow(/speechThreshold \(vad\.threshold must be < 1\)/);
    expect(() => resolveDuplexConfig({ bargeInThreshold: 0.4 })).toThrow(/bargeInThreshold \(duplex\.barge_in_threshold: must be at least vad\.threshold/);
    expect(() => resolveDuplexConfig({ doubleTalkExcessWindows: 0 })).toThrow(/doubleTalkExcessWindows: must be a whole number >= 1/);
    expect(resolveDuplexConfig({ recoveryTimeoutMs: 100, minBargeInSpeechMs: 2000 })).toMatchObject({ recoveryTimeoutMs: 100, minBargeInSpeechMs: 2000 });
  });
});

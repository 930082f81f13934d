/** Capture timestamps from chunk arrivals: pure, with arrival times made up by the test. */
import { describe, expect, it } from 'vitest';
import { CaptureClock, FrameAssembler } from '../../../src/voice/devices/index.js';
import { FRAME_MS, FRAME_SAMPLES } from '../../../src/voice/types.js';

/** A repeatable jitter in [0, max), zero on every 7th chunk (the queue was empty then). */
function jitter(i: number, max: number): number {
  return i % 7 === 0 ? 0 : ((i * 7919) % 97) / (97 / max);
}

describe('CaptureClock', () => {
  it('recovers the start time from late, jittery arrivals', () => {
    const clock = new CaptureClock(16000);
    const startMs = 5000;
    for (let i = 1; i <= 100; i++) clock.observe(startMs + i * 10 + 3 + jitter(i, 8), i * 160);
    // 3 ms is the least any chunk waited: the estimate is that close to the truth, and never early.
    expect(clock.timeOf(0)).toBeCloseTo(startMs + 3, 6);
    expect(clock.timeOf(16000)).toBeCloseTo(startMs + 1003, 6);
  });

  it('follows the device after it dropped audio, once the window has passed', () => {
    const clock = new CaptureClock(16000, 1000);
    // At 1 s the device loses 50 ms on an overflow: later chunks come 50 ms later than their position says.
    for (let i = 1; i <= 300; i++) clock.observe(i * 10 + (i >= 100 ? 50 : 0), i * 160);
    expect(clock.timeOf(300 * 160)).toBeCloseTo(3050, 6);
  });

  it('follows a device clock that runs slow against ours', () => {
    const clock = new CaptureClock(16000, 1000);
    // 1000 ppm slow: a 10 ms chunk takes 10.01 ms of our time.
    for (let i = 1; i <= 1000; i++) clock.observe(i * 10.01, i * 160);
    expect(Math.abs(clock.timeOf(1000 * 160) - 1000 * 10.01)).toBeLessThan(1.1);
  });

  it('knows no time before the first chunk', () => {
    expect(new CaptureClock(48000).timeOf(0)).toBeNaN();
  });
});

describe('FrameAssembler', () => {
  it('passes 16 kHz mono through as 20 ms frames, numbered and stamped on the capture clock', () => {
    const assembler = new FrameAssembler(16000, 1);
    const input = Int16Array.from({ length: 1600 }, (_, i) => i);
    const frames = [];
    // 100 ms in uneven chunks, each arriving 2 ms after its last sample.
    for (const [from, to] of [[0, 100], [100, 700], [700, 1600]] as const) frames.push(...assembler.push(input.subarray(from, to), 1000 + to / 16 + 2));
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4]);
    expect(frames.map((f) => f.atMs)).toEqual([1002, 1022, 1042, 1062, 1082]);
    expect(Array.from(frames[1]!.samples.slice(0, 3))).toEqual([320, 321, 322]);
    expect(frames.every((f) => f.samples.length === FRAME_SAMPLES)).toBe(true);
  });

  it('mixes 48 kHz stereo to 16 kHz mono', () => {
    const assembler = new FrameAssembler(48000, 2);
    const frames = [];
    for (let chunk = 0; chunk < 20; chunk++) {
      const stereo = new Int16Array(480 * 2);
      for (let i = 0; i < 480; i++) stereo.set([1000, 3000], i * 2);
      frames.push(...assembler.push(stereo, (chunk + 1) * 10));
    }
    expect(frames.length).toBeGreaterThanOrEqual(9);
    expect(frames.at(-1)!.samples[100]).toBeGreaterThan(1990);
    expect(frames.at(-1)!.samples[100]).toBeLessThan(2010);
    for (let i = 1; i < frames.length; i++) expect(frames[i]!.atMs - frames[i - 1]!.atMs).toBeCloseTo(FRAME_MS, 6);
  });

  it('keeps timestamps rising when a better start estimate arrives late', () => {
    const assembler = new FrameAssembler(16000, 1);
    // The first chunk waited 30 ms; the second, none.
    const first = assembler.push(new Int16Array(320), 50);
    const second = assembler.push(new Int16Array(320), 40);
    expect(first[0]!.atMs).toBe(30);
    expect(second[0]!.atMs).toBeGreaterThan(first[0]!.atMs);
  });
});

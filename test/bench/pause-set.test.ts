import { describe, expect, it } from 'vitest';
import { loadPauseSet, noiseFloor, noiseFloorRms, rmsOf, voicedSpan, withTrailingFloor, type PauseSet } from '../support/pause-set.js';

const RATE = 16_000;
const db = (a: number, b: number): number => 20 * Math.log10(a / b);

describe('the pause set', () => {
  let set: PauseSet | undefined;
  const load = async (): Promise<PauseSet> => (set ??= await loadPauseSet());

  it('holds the ten clips whole and 40 paused copies, 500 and 800 ms each', async () => {
    const { whole, paused } = await load();
    expect(whole.map((c) => c.name)).toEqual(['librivox 0870', 'librivox 0880', 'librivox 0890', 'librivox 0920', 'librivox 0930', 'cards 001', 'cards 002', 'cards 003', 'cards 004', 'cards 005']);
    expect(paused).toHaveLength(40);
    expect(paused.filter((c) => c.pause?.ms === 500)).toHaveLength(20);
    expect(paused.filter((c) => c.pause?.ms === 800)).toHaveLength(20);
  });

  it('inserts exactly the pause, and leaves the audio around it as it was', async () => {
    const { whole, paused } = await load();
    for (const clip of paused) {
      const original = whole.find((w) => w.clip === clip.clip)!;
      const { startSample, endSample, ms } = clip.pause!;
      expect(endSample - startSample).toBe((ms * RATE) / 1000);
      expect(clip.samples.length).toBe(original.samples.length + (ms * RATE) / 1000);
      expect(clip.samples.subarray(0, startSample)).toEqual(original.samples.subarray(0, startSample));
      expect(clip.samples.subarray(endSample)).toEqual(original.samples.subarray(startSample));
      expect(clip.endOfSpeechSample).toBe(original.endOfSpeechSample + (ms * RATE) / 1000);
    }
  });

  it('puts the pause at a quiet point in the middle of the speech', async () => {
    const { whole, paused } = await load();
    for (const clip of paused) {
      const original = whole.find((w) => w.clip === clip.clip)!;
      const { startSample: onset, endSample: end } = voicedSpan(original.samples);
      const at = clip.pause!.startSample;
      expect(at, clip.name).toBeGreaterThanOrEqual(onset + 0.2 * (end - onset));
      expect(at, clip.name).toBeLessThanOrEqual(end - 0.2 * (end - onset));
      // The 60 ms of the clip around the point: near its noise floor, far below its speech.
      const around = rmsOf(original.samples, at - 480, at + 480);
      expect(db(around, original.floorRms), clip.name).toBeLessThanOrEqual(15);
      const speech = rmsOf(original.samples, onset, end);
      expect(db(speech, around), clip.name).toBeGreaterThan(10);
    }
  });

  it("fills the pause with the clip's own noise floor, never digital silence", async () => {
    const { paused } = await load();
    for (const clip of paused) {
      const { startSample, endSample } = clip.pause!;
      expect(Math.abs(db(rmsOf(clip.samples, startSample, endSample), clip.floorRms)), clip.name).toBeLessThan(3);
      for (let s = startSample; s + 320 <= endSample; s += 320) {
        expect(rmsOf(clip.samples, s, s + 320), `${clip.name} at ${s}`).toBeGreaterThan(clip.floorRms / 4);
      }
    }
  });

  it('ends a clip with its noise floor for as long as asked', async () => {
    const { whole } = await load();
    const clip = whole[0]!;
    const padded = withTrailingFloor(clip, 1500);
    expect(padded.length).toBe(clip.samples.length + 1.5 * RATE);
    expect(Math.abs(db(rmsOf(padded, clip.samples.length), clip.floorRms))).toBeLessThan(3);
  });
});

describe('noiseFloor', () => {
  it('loops the quietest frames of a signal at their level', () => {
    // 1 s of a loud tone with 200 ms of quiet noise in the middle.
    let seed = 7;
    const noise = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 200;
    const signal = Int16Array.from({ length: RATE }, (_, i) => (i >= 6400 && i < 9600 ? noise() : 8000 * Math.sin(i / 5)));
    const floor = noiseFloor(signal, 2 * RATE);
    expect(floor.length).toBe(2 * RATE);
    expect(Math.abs(db(rmsOf(floor), noiseFloorRms(signal)))).toBeLessThan(1.5);
    expect(rmsOf(floor)).toBeLessThan(100);
    expect(rmsOf(floor)).toBeGreaterThan(30);
  });
});

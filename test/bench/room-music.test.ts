/**
 * The echo room's music, synthesized by sox: the length and level asked
 * for, and music rather than noise (its level moves with the notes, and
 * the chord changes from bar to bar).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { rmsDbfs } from '../support/echo-room.js';
import { atRms, ROOM_MUSIC_SECONDS, writeRoomMusic } from '../support/room-music.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const RATE = 48_000;

/** The amplitude of one frequency in the samples (Goertzel's single bin, normalized). */
function amplitudeAt(samples: Int16Array, hz: number): number {
  let c = 0;
  let s = 0;
  for (let i = 0; i < samples.length; i++) {
    c += samples[i]! * Math.cos((2 * Math.PI * hz * i) / RATE);
    s += samples[i]! * Math.sin((2 * Math.PI * hz * i) / RATE);
  }
  return (2 * Math.hypot(c, s)) / samples.length;
}

describe('the room music', () => {
  it('is one pass of the piece at the level asked for, moving with its notes and chords', async () => {
    const dir = await makeTempDir('room-music-');
    try {
      const file = `${dir.path}/music.raw`;
      await writeRoomMusic(file, { rate: RATE, rmsDbfs: -35, scratchDir: dir.path });
      const bytes = await readFile(file);
      const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
      expect(samples.length).toBe(ROOM_MUSIC_SECONDS * RATE);
      expect(rmsDbfs(samples)).toBeCloseTo(-35, 1);

      // Plucked notes rise and decay: 50 ms levels spread over more than 5 dB (steady pink noise: about 1 dB).
      const levels: number[] = [];
      for (let at = 0; at + 2400 <= samples.length; at += 2400) levels.push(rmsDbfs(samples.subarray(at, at + 2400)));
      levels.sort((a, b) => a - b);
      expect(levels[Math.floor(levels.length * 0.9)]! - levels[Math.floor(levels.length * 0.1)]!).toBeGreaterThan(5);

      // G3 (196 Hz) is in the first bar's C chord, not in the second bar's A minor.
      const bar = (i: number) => samples.subarray(i * 2 * RATE, (i + 1) * 2 * RATE);
      expect(20 * Math.log10(amplitudeAt(bar(0), 196) / amplitudeAt(bar(1), 196))).toBeGreaterThan(10);
    } finally {
      await dir.remove();
    }
  });

  it('refuses a level at which the piece would clip, and silence', () => {
    const loud = Int16Array.from({ length: 480 }, (_, i) => (i % 48 === 0 ? 30_000 : 100));
    expect(() => atRms(loud, -3)).toThrow(/would clip/);
    expect(() => atRms(new Int16Array(480), -35)).toThrow(/silent/);
    expect(rmsDbfs(atRms(loud, -35))).toBeCloseTo(-35, 1);
  });
});

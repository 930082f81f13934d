import { describe, expect, it } from 'vitest';
import { RenderReference, type OverrunReport } from '../../../src/voice/buffers/index.js';

/** A ramp whose value says which render sample it is: sample k holds (k % 30000) + 1, so 0 means silence. */
function ramp(length: number, first = 0): Int16Array {
  return Int16Array.from({ length }, (_, i) => ((first + i) % 30_000) + 1);
}

function manualClock(start = 0): { now(): number; t: number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

describe('RenderReference', () => {
  it('returns the render audio that played one delay before the capture', () => {
    const ref = new RenderReference({ delayMs: 40, clock: manualClock() });
    ref.write(ramp(8000), 1000); // 500 ms of playback from 1000 ms
    // capture at 1100 ms holds echo of what played at 1060 ms: render sample (1060 - 1000) * 16 = 960
    expect(Array.from(ref.reference(1100, 160))).toEqual(Array.from(ramp(160, 960)));
    // with no delay the same capture lines up 640 samples (40 ms) later
    ref.delayMs = 0;
    expect(ref.reference(1100, 160)[0]).toBe(1601);
  });

  it('lines up across the 10 ms frames the render was stored in, at any sample offset', () => {
    const ref = new RenderReference({ delayMs: 40, clock: manualClock() });
    ref.write(ramp(1600), 0);
    // 45.5 ms capture - 40 ms delay = 5.5 ms = sample 88, in the middle of the first stored frame
    expect(Array.from(ref.reference(45.5, 320))).toEqual(Array.from(ramp(320, 88)));
  });

  it('pads with silence before playback started and after it ended', () => {
    const ref = new RenderReference({ delayMs: 40, clock: manualClock() });
    ref.write(ramp(160), 1000); // 10 ms from 1000 ms
    const before = ref.reference(1035, 160); // render time 995..1005: 5 ms of silence first
    expect(Array.from(before.subarray(0, 80))).toEqual(new Array(80).fill(0));
    expect(Array.from(before.subarray(80))).toEqual(Array.from(ramp(80)));
    const after = ref.reference(1045, 160); // render time 1005..1015: the last 5 ms, then silence
    expect(Array.from(after.subarray(0, 80))).toEqual(Array.from(ramp(80, 80)));
    expect(Array.from(after.subarray(80))).toEqual(new Array(80).fill(0));
    expect(ref.reference(5000, 160).every((v) => v === 0)).toBe(true);
  });

  it('fills a gap between writes with silence', () => {
    const ref = new RenderReference({ clock: manualClock() });
    ref.write(ramp(160), 0);
    ref.write(ramp(160, 160), 20); // 10 ms of nothing between
    const out = ref.reference(0, 480);
    expect(Array.from(out.subarray(0, 160))).toEqual(Array.from(ramp(160)));
    expect(out.subarray(160, 320).every((v) => v === 0)).toBe(true);
    expect(Array.from(out.subarray(320))).toEqual(Array.from(ramp(160, 160)));
  });

  it('pairs a 20 ms capture frame with render reference as two 10 ms frames', () => {
    const ref = new RenderReference({ delayMs: 40, clock: manualClock() });
    ref.write(ramp(3200), 0);
    const capture = Int16Array.from({ length: 320 }, (_, i) => -i);
    const frames = ref.align({ samples: capture, atMs: 100 });
    expect(frames.map((f) => f.atMs)).toEqual([100, 110]);
    expect(frames.every((f) => f.capture.length === 160 && f.render.length === 160)).toBe(true);
    expect(Array.from(frames[0]!.capture)).toEqual(Array.from(capture.subarray(0, 160)));
    expect(Array.from(frames[1]!.capture)).toEqual(Array.from(capture.subarray(160)));
    expect(Array.from(frames[0]!.render)).toEqual(Array.from(ramp(160, 960))); // played at 60 ms
    expect(Array.from(frames[1]!.render)).toEqual(Array.from(ramp(160, 1120)));
  });

  it('pads a short last capture frame to a whole 10 ms', () => {
    const ref = new RenderReference({ clock: manualClock() });
    const frames = ref.align({ samples: new Int16Array(200).fill(3), atMs: 0 });
    expect(frames).toHaveLength(2);
    expect(frames[1]!.capture).toHaveLength(160);
    expect(frames[1]!.capture.subarray(0, 40).every((v) => v === 3)).toBe(true);
    expect(frames[1]!.capture.subarray(40).every((v) => v === 0)).toBe(true);
  });

  it('refuses capture in another format than the render reference', () => {
    const ref = new RenderReference({ clock: manualClock() });
    expect(() => ref.align({ samples: new Int16Array(960), atMs: 0, sampleRate: 48_000 })).toThrow(
      expect.objectContaining({ code: 'AUDIO_APM_FORMAT_MISMATCH' }),
    );
    expect(() => ref.align({ samples: new Int16Array(640), atMs: 0, channels: 2 })).toThrow(expect.objectContaining({ code: 'AUDIO_APM_FORMAT_MISMATCH' }));
  });

  it('places untimed writes after the queue, or now when the speaker ran dry', () => {
    const clock = manualClock(500);
    const ref = new RenderReference({ clock });
    expect(ref.write(ramp(320))[0]!.atMs).toBe(500);
    expect(ref.write(ramp(160))[0]!.atMs).toBe(520); // queued behind the first
    clock.t = 900;
    expect(ref.write(ramp(160))[0]!.atMs).toBe(900);
  });

  it('stores writes as 10 ms frames, a trailing part shorter', () => {
    const ref = new RenderReference({ clock: manualClock() });
    const frames = ref.write(ramp(400), 0);
    expect(frames.map((f) => [f.atMs, f.durationMs])).toEqual([
      [0, 10],
      [10, 10],
      [20, 5],
    ]);
  });

  it('stops using audio a barge-in cleared from the speaker queue', () => {
    const clock = manualClock(0);
    const ref = new RenderReference({ clock });
    ref.write(ramp(16_000), 0); // one second queued
    clock.t = 205;
    ref.clearQueued();
    const out = ref.reference(200, 160);
    expect(Array.from(out.subarray(0, 80))).toEqual(Array.from(ramp(80, 3200)));
    expect(out.subarray(80).every((v) => v === 0)).toBe(true);
    expect(ref.write(ramp(160))[0]!.atMs).toBe(205); // the next reply plays from now
  });

  it('holds capacityMs of render and reports what a long write pushed out', () => {
    const reports: OverrunReport[] = [];
    const ref = new RenderReference({ capacityMs: 100, clock: manualClock(), onOverrun: (r) => reports.push(r) });
    ref.write(ramp(4000), 0); // 250 ms into a 100 ms buffer
    expect(ref.buffer.size).toBe(10);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ buffer: 'render', dropped: 15, fromMs: 0, toMs: 150, droppedMs: 150 });
    expect(ref.reference(0, 160).every((v) => v === 0)).toBe(true);
    expect(ref.reference(150, 160)[0]).toBe(2401);
  });

  it('rejects a negative delay', () => {
    const ref = new RenderReference({ clock: manualClock() });
    expect(() => {
      ref.delayMs = -1;
    }).toThrow(expect.objectContaining({ code: 'AUDIO_BUFFER_CONFIG_INVALID' }));
  });
});

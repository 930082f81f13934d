import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { AudioRingBuffer, type OverrunReport } from '../../../src/voice/buffers/index.js';

const FRAME = 320; // 20 ms at 16 kHz

function frame(n: number, atMs = n * 20, length = FRAME): { samples: Int16Array; atMs: number } {
  return { samples: new Int16Array(length).fill(n), atMs };
}

function filled(capacity: number, count: number, reports: OverrunReport[] = []): AudioRingBuffer {
  const buffer = new AudioRingBuffer({ capacity, name: 'capture', onOverrun: (r) => reports.push(r) });
  for (let n = 0; n < count; n++) buffer.push(frame(n));
  return buffer;
}

describe('AudioRingBuffer', () => {
  it('gives frames monotonic ids and their format, in push order', () => {
    const buffer = filled(8, 3);
    const frames = buffer.frames();
    expect(frames.map((f) => f.id)).toEqual([0, 1, 2]);
    expect(frames.map((f) => f.atMs)).toEqual([0, 20, 40]);
    expect(frames[0]).toMatchObject({ sampleRate: 16_000, channels: 1, durationMs: 20 });
    expect(buffer.nextId).toBe(3);
    expect(buffer.oldest?.id).toBe(0);
    expect(buffer.newest?.id).toBe(2);
  });

  it('copies samples, so a caller may reuse its array', () => {
    const buffer = new AudioRingBuffer({ capacity: 2 });
    const scratch = new Int16Array(FRAME).fill(7);
    buffer.push({ samples: scratch, atMs: 0 });
    scratch.fill(9);
    expect(buffer.byId(0)?.samples[0]).toBe(7);
  });

  it('derives duration from channels and sample rate', () => {
    const buffer = new AudioRingBuffer({ capacity: 2, sampleRate: 48_000, channels: 2 });
    expect(buffer.push({ samples: new Int16Array(960), atMs: 5 }).durationMs).toBe(10);
    expect(() => buffer.push({ samples: new Int16Array(3), atMs: 10 })).toThrow(expect.objectContaining({ code: 'AUDIO_FORMAT_INVALID' }));
  });

  it('drops the oldest frame when full and reports each overrun', () => {
    const reports: OverrunReport[] = [];
    const buffer = filled(4, 6, reports);
    expect(buffer.frames().map((f) => f.id)).toEqual([2, 3, 4, 5]);
    expect(reports).toEqual([
      { buffer: 'capture', dropped: 1, fromId: 0, toId: 0, fromMs: 0, toMs: 20, droppedMs: 20, totalDropped: 1, capacity: 4 },
      { buffer: 'capture', dropped: 1, fromId: 1, toId: 1, fromMs: 20, toMs: 40, droppedMs: 20, totalDropped: 2, capacity: 4 },
    ]);
  });

  it('reports one overrun for a batch, with the count and span of what it dropped', () => {
    const reports: OverrunReport[] = [];
    const buffer = filled(4, 4, reports);
    buffer.pushMany([frame(4), frame(5), frame(6)]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toEqual({ buffer: 'capture', dropped: 3, fromId: 0, toId: 2, fromMs: 0, toMs: 60, droppedMs: 60, totalDropped: 3, capacity: 4 });
    expect(buffer.totalDropped).toBe(3);
    expect(buffer.frames().map((f) => f.id)).toEqual([3, 4, 5, 6]);
  });

  it('drops nothing and reports nothing while there is room', () => {
    const reports: OverrunReport[] = [];
    filled(4, 4, reports);
    expect(reports).toEqual([]);
  });

  it('keeps memory bounded by capacity however much is pushed', () => {
    const buffer = filled(8, 1000);
    expect(buffer.size).toBe(8);
    expect(buffer.frames()).toHaveLength(8);
    expect(buffer.totalDropped).toBe(992);
    expect(buffer.oldest?.id).toBe(992);
    expect(buffer.newest?.id).toBe(999);
  });

  it('reads a time range across the wrap of the ring', () => {
    const buffer = filled(5, 12); // holds ids 7..11, stored across the end of the slot array
    // frame 8 (160..180) overlaps 170; frame 10 starts at 200, before 210
    expect(buffer.range(170, 210).map((f) => f.id)).toEqual([8, 9, 10]);
    expect(buffer.range(140, 160).map((f) => f.id)).toEqual([7]);
    expect(buffer.range(0, 140)).toEqual([]); // dropped
    expect(buffer.range(240, 1000)).toEqual([]); // not yet captured
    expect(buffer.range(100, 10_000).map((f) => f.id)).toEqual([7, 8, 9, 10, 11]);
    expect(buffer.range(200, 200)).toEqual([]);
  });

  it('reads by id, and from an id onwards', () => {
    const buffer = filled(5, 12);
    expect(buffer.byId(9)?.samples[0]).toBe(9);
    expect(buffer.byId(6)).toBeUndefined();
    expect(buffer.byId(12)).toBeUndefined();
    expect(buffer.since(10).map((f) => f.id)).toEqual([10, 11]);
    expect(buffer.since(0).map((f) => f.id)).toEqual([7, 8, 9, 10, 11]);
  });

  it('rejects a timestamp older than the last, storing nothing of the batch', () => {
    const buffer = filled(8, 3);
    let error: unknown;
    try {
      buffer.pushMany([frame(3), frame(4, 10)]);
    } catch (e) {
      error = e;
    }
    expect(isAppError(error, 'AUDIO_BUFFER_TIMESTAMP_INVALID')).toBe(true);
    expect(buffer.size).toBe(3);
    expect(buffer.nextId).toBe(3);
  });

  it('clears without reusing ids, and takes timestamps from anywhere afterwards', () => {
    const buffer = filled(4, 6);
    buffer.clear();
    expect(buffer.size).toBe(0);
    expect(buffer.range(0, 1000)).toEqual([]);
    expect(buffer.push(frame(0, 0)).id).toBe(6);
    expect(buffer.byId(6)?.atMs).toBe(0);
  });

  it('drops audio queued after a time and cuts the frame that straddles it', () => {
    const buffer = filled(8, 5); // 0..100 ms
    expect(buffer.dropNewerThan(50)).toBe(2); // frames at 60 and 80
    const last = buffer.newest!;
    expect(last.id).toBe(2);
    expect(last.durationMs).toBe(10);
    expect(last.samples).toHaveLength(160);
    expect(buffer.push(frame(9, 50)).id).toBe(5); // ids keep counting
    expect(buffer.byId(3)).toBeUndefined();
    expect(buffer.since(3).map((f) => f.id)).toEqual([5]);
  });

  it('rejects a capacity that is not a whole number >= 1', () => {
    expect(() => new AudioRingBuffer({ capacity: 0 })).toThrow(expect.objectContaining({ code: 'AUDIO_BUFFER_CONFIG_INVALID' }));
    expect(() => new AudioRingBuffer({ capacity: 2.5 })).toThrow(expect.objectContaining({ code: 'AUDIO_BUFFER_CONFIG_INVALID' }));
  });
});

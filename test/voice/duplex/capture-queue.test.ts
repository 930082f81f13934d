import { describe, expect, it } from 'vitest';
import type { OverrunReport } from '../../../src/voice/buffers/index.js';
import { CaptureQueue } from '../../../src/voice/duplex/capture-queue.js';
import type { AudioFrame, AudioInput } from '../../../src/voice/types.js';

/** An input that hands out `count` frames at once (a device that delivered a burst while the loop was busy), then ends or fails. */
function burst(count: number, failWith?: Error): AudioInput {
  return {
    name: 'burst',
    async *frames() {
      for (let i = 0; i < count; i++) yield { samples: new Int16Array(320).fill(i), index: i, atMs: i * 20 } satisfies AudioFrame;
      if (failWith) throw failWith;
    },
    close: async () => undefined,
  };
}

describe('the capture queue', () => {
  it('keeps every frame, in order, while the loop keeps up', async () => {
    const overruns: OverrunReport[] = [];
    const queue = new CaptureQueue(200, (r) => overruns.push(r));
    const filling = queue.fill(burst(30), new AbortController().signal);
    const seen: number[] = [];
    for await (const frame of queue.frames()) seen.push(frame.samples[0]!);
    await filling;
    expect(seen).toEqual([...Array(30).keys()]);
    expect(overruns).toEqual([]);
  });

  it('drops the oldest unprocessed frames of a burst beyond its capacity, and says which', async () => {
    const overruns: OverrunReport[] = [];
    const queue = new CaptureQueue(200, (r) => overruns.push(r)); // 10 frames
    await queue.fill(burst(25), new AbortController().signal); // all in before the loop takes any
    const seen: number[] = [];
    for await (const frame of queue.frames()) seen.push(frame.samples[0]!);
    expect(seen).toEqual([...Array(10).keys()].map((i) => 15 + i));
    expect(overruns.reduce((n, r) => n + r.dropped, 0)).toBe(15);
    expect(overruns[0]).toMatchObject({ buffer: 'capture', fromId: 0, capacity: 10 });
    expect(overruns.at(-1)).toMatchObject({ toId: 14, totalDropped: 15 });
  });

  it('hands on a failing input after the frames it delivered', async () => {
    const queue = new CaptureQueue(200, () => undefined);
    // fill() hands the input's failure on through the queue, where it is read below.
    void queue.fill(burst(3, new Error('the device went away')), new AbortController().signal);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const frame of queue.frames()) seen.push(frame.samples[0]!);
      })(),
    ).rejects.toThrow('the device went away');
    expect(seen).toEqual([0, 1, 2]);
  });
});

import { describe, expect, it } from 'vitest';
import { throttledProgress, timedProgress, type MemoryProgress, type TimedProgress } from '../../src/memory/index.js';

describe('timedProgress', () => {
  it('adds the rate and the time left, timed from each task’s first report', () => {
    let now = 1000;
    const seen: TimedProgress[] = [];
    const report = timedProgress((p) => seen.push(p), () => now);
    report({ task: 'embedding', done: 0, total: 1000 });
    now += 2000;
    report({ task: 'embedding', done: 500, total: 1000 });
    now += 500;
    report({ task: 'indexing', done: 0, total: 1000 });
    expect(seen[0]).toMatchObject({ elapsedMs: 0, ratePerS: 0, remainingS: undefined });
    expect(seen[1]).toMatchObject({ elapsedMs: 2000, ratePerS: 250, remainingS: 2 });
    // A new task starts its own clock.
    expect(seen[2]).toMatchObject({ task: 'indexing', elapsedMs: 0, remainingS: undefined });
  });
});

describe('throttledProgress', () => {
  it('passes the first and the last report of each task, and one per interval between', () => {
    let now = 0;
    const seen: MemoryProgress[] = [];
    const report = throttledProgress((p) => seen.push(p), 500, () => now);
    for (let done = 0; done <= 100; done += 10) {
      report({ task: 'indexing', done, total: 100 });
      now += 100;
    }
    expect(seen.map((p) => p.done)).toEqual([0, 50, 100]);
  });
});

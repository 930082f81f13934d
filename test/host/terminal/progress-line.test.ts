import { describe, expect, it } from 'vitest';
import { describeProgress, progressLine } from '../../../src/host/terminal/index.js';

function fakeStream(isTTY: boolean): { stream: NodeJS.WritableStream & { isTTY: boolean }; text: () => string } {
  let written = '';
  const stream = { isTTY, write: (chunk: string) => ((written += chunk), true) } as unknown as NodeJS.WritableStream & { isTTY: boolean };
  return { stream, text: () => written };
}

describe('progressLine', () => {
  it('on a terminal: one line per task, redrawn in place, left standing when the task is done', () => {
    let now = 0;
    const { stream, text } = fakeStream(true);
    const line = progressLine(stream, 'memory', () => now);
    line.listener({ task: 'indexing', done: 0, total: 100_000 });
    now = 10_000;
    line.listener({ task: 'indexing', done: 4096, total: 100_000 });
    now = 240_000;
    line.listener({ task: 'indexing', done: 100_000, total: 100_000 });
    line.end();
    const redraws = text().split('\r').filter(Boolean);
    expect(redraws).toEqual([
      'memory: indexing 0 of 100,000 records\x1b[K',
      'memory: indexing 4,096 of 100,000 records (410/s, 3 min 54 s left)\x1b[K',
      'memory: indexing 100,000 of 100,000 records, done in 4 min\x1b[K\n',
    ]);
  });

  it('not on a terminal (a pipe, a log, a service): nothing', () => {
    const { stream, text } = fakeStream(false);
    const line = progressLine(stream, 'memory');
    line.listener({ task: 'embedding', done: 0, total: 10 });
    line.listener({ task: 'embedding', done: 10, total: 10 });
    line.end();
    expect(text()).toBe('');
  });
});

describe('describeProgress', () => {
  it('says seconds under a minute, and nothing of a rate it does not have yet', () => {
    expect(describeProgress('memory', { task: 'embedding', done: 64, total: 200, elapsedMs: 1000, ratePerS: 64, remainingS: 2.1 })).toBe('memory: computing vectors for 64 of 200 records (64/s, 2 s left)');
    expect(describeProgress('memory', { task: 'embedding', done: 0, total: 200, elapsedMs: 0, ratePerS: 0, remainingS: undefined })).toBe('memory: computing vectors for 0 of 200 records');
  });
});

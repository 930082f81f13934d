import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../src/serial-queue/index.js';

describe('SerialQueue', () => {
  it('runs work one piece at a time, in the order queued', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let release!: () => void;
    const first = queue.run(async () => {
      log.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('first ends');
      return 1;
    });
    const second = queue.run(() => {
      log.push('second');
      return 2;
    });
    await Promise.resolve();
    expect(log).toEqual(['first starts']);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(['first starts', 'first ends', 'second']);
  });

  it('gives a failure to whoever queued it and goes on with the rest', async () => {
    const queue = new SerialQueue();
    const failed = queue.run(() => Promise.reject(new Error('boom')));
    const after = queue.run(() => 'after');
    await expect(failed).rejects.toThrow('boom');
    expect(await after).toBe('after');
    await expect(queue.idle()).resolves.toBeUndefined();
  });

  it('idle waits for everything queued so far', async () => {
    const queue = new SerialQueue();
    let release!: () => void;
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    let idle = false;
    const idling = queue.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    release();
    await running;
    await idling;
    expect(idle).toBe(true);
  });
});

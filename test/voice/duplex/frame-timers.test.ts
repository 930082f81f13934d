import { describe, expect, it } from 'vitest';
import { FrameTimers } from '../../../src/voice/duplex/frame-timers.js';

describe('frame timers', () => {
  it('fire when due, in the order set, and not after being cleared, even by one that fired first in the same tick', () => {
    let now = 0;
    const timers = new FrameTimers(() => now);
    const fired: string[] = [];
    let b = 0;
    timers.setAt(() => {
      fired.push('a');
      timers.clear(b);
    }, 40);
    b = timers.set(() => fired.push('b'), 40);
    timers.set(() => fired.push('c'), 60);
    now = 20;
    timers.tick();
    expect(fired).toEqual([]);
    now = 60;
    timers.tick();
    expect(fired).toEqual(['a', 'c']);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, restartDelayMs } from '../../../src/host/hub/index.js';
import { StderrTail } from '../../../src/host/hub/stderr-tail.js';

describe('restartDelayMs', () => {
  it('doubles from 0.5 s and stops at 2 s, tried for about a minute and a half', () => {
    const delays = [1, 2, 3, 4, 5, 50].map((n) => restartDelayMs(n, DEFAULT_RESTART_POLICY));
    expect(delays).toEqual([500, 1000, 2000, 2000, 2000, 2000]);
    const tried = Array.from({ length: DEFAULT_RESTART_POLICY.maxConsecutiveFailures }, (_, i) => restartDelayMs(i + 1, DEFAULT_RESTART_POLICY)).reduce((a, b) => a + b, 0);
    expect(tried).toBeGreaterThan(80_000);
    expect(tried).toBeLessThan(100_000);
  });

  it('follows the policy it is given', () => {
    expect(restartDelayMs(1, { ...DEFAULT_RESTART_POLICY, initialDelayMs: 50, maxDelayMs: 150 })).toBe(50);
    expect(restartDelayMs(3, { ...DEFAULT_RESTART_POLICY, initialDelayMs: 50, maxDelayMs: 150 })).toBe(150);
    expect(restartDelayMs(10_000, { ...DEFAULT_RESTART_POLICY, maxDelayMs: 30_000 })).toBe(30_000);
  });
});

describe('StderrTail', () => {
  it('keeps the last lines, joining chunks split mid-line', () => {
    const tail = new StderrTail(3);
    tail.push('one\ntw');
    tail.push('o\r\nthree\nfour\nfi');
    expect(tail.lines()).toEqual(['three', 'four', 'fi']);
    tail.push('ve\n');
    expect(tail.lines()).toEqual(['three', 'four', 'five']);
  });

  it('clips very long lines, and a line that never ends', () => {
    const tail = new StderrTail(5, 10);
    tail.push(`${'a'.repeat(25)}\n`);
    tail.push('b'.repeat(30));
    expect(tail.lines()).toEqual(['aaaaaaaaaa... [15 more]', 'bbbbbbbbbb... [20 more]']);
  });
});

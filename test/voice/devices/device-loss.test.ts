/**
 * A device that stops (the sound server went away: naudiodon then neither
 * delivers, takes a write, nor errors), in virtual time on the fake
 * naudiodon: the stall watch, the input's and the output's AUDIO_DEVICE_LOST.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import type { AudioClock } from '../../../src/voice/audio/index.js';
import { PortAudioInput, PortAudioOutput, watchStall } from '../../../src/voice/devices/index.js';
import { FakePortAudio } from './fake-portaudio.js';

/** The fake timers' clock, as the devices read it. */
const clock: AudioClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Beats every `everyMs` for `forMs`. */
async function beating(watch: { beat(): void }, everyMs: number, forMs: number): Promise<void> {
  for (let t = 0; t < forMs; t += everyMs) {
    watch.beat();
    await vi.advanceTimersByTimeAsync(everyMs);
  }
}

describe('watchStall', () => {
  it('gives a starting stream unsteadyMs, and one that beat steadily for 2 s stallMs; calls once', async () => {
    const stalls: number[] = [];
    const watch = watchStall({ stallMs: 1000, unsteadyMs: 3000, now: () => Date.now(), onStall: (ms) => stalls.push(ms) });
    await vi.advanceTimersByTimeAsync(2500);
    expect(stalls).toEqual([]);
    await beating(watch, 10, 2500);
    await vi.advanceTimersByTimeAsync(900);
    expect(stalls).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(1000);
    expect(stalls[0]).toBeLessThanOrEqual(1300);
    await vi.advanceTimersByTimeAsync(5000);
    expect(stalls).toHaveLength(1);
  });

  it('keeps unsteadyMs for a stream that delivers in blocks (a null sink without a low-latency client), and after a gap', async () => {
    const stalls: number[] = [];
    const watch = watchStall({ stallMs: 1000, unsteadyMs: 3000, now: () => Date.now(), onStall: (ms) => stalls.push(ms) });
    // Blocks 2 s apart: never steady, never lost.
    await beating(watch, 2000, 10_000);
    expect(stalls).toEqual([]);
    // Steady for 1.5 s only, then a 2 s gap: still within the unsteady limit.
    await beating(watch, 10, 1500);
    await vi.advanceTimersByTimeAsync(2000);
    expect(stalls).toEqual([]);
    // Steady again for 2 s after the gap: the tight limit is back.
    await beating(watch, 10, 2200);
    await vi.advanceTimersByTimeAsync(1300);
    expect(stalls).toHaveLength(1);
    watch.stop();
  });

  it('says nothing once stopped', async () => {
    const stalls: number[] = [];
    const watch = watchStall({ stallMs: 1000, now: () => Date.now(), onStall: (ms) => stalls.push(ms) });
    watch.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(stalls).toEqual([]);
  });
});

describe('PortAudioInput whose device stops delivering', () => {
  it('ends the capture with AUDIO_DEVICE_LOST about stallMs after the last chunk, and quits the stream', async () => {
    const binding = new FakePortAudio();
    const input = PortAudioInput.open({ device: 'pulse', sampleRate: 16000, binding, clock, stallMs: 1000, unsteadyStallMs: 3000 });
    const frames: number[] = [];
    let failure: unknown;
    const reading = (async () => {
      try {
        for await (const frame of input.frames()) frames.push(frame.index);
      } catch (error) {
        failure = error;
      }
    })();
    await vi.advanceTimersByTimeAsync(0);
    const stream = binding.last;
    for (let i = 0; i < 150; i++) {
      stream.deliver(new Int16Array(320));
      await vi.advanceTimersByTimeAsync(20);
    }
    // The server is gone: no chunk, no error, no end.
    await vi.advanceTimersByTimeAsync(900);
    expect(failure).toBeUndefined();
    await vi.advanceTimersByTimeAsync(400);
    await reading;
    expect(frames).toHaveLength(150);
    expect(isAppError(failure, 'AUDIO_DEVICE_LOST')).toBe(true);
    expect((failure as Error).message).toContain('audio input "pulse" stopped delivering sound');
    expect(stream.quitCalls).toBe(1);
  });

  it('gives a capture that has not started unsteadyStallMs before calling it lost', async () => {
    const binding = new FakePortAudio();
    const input = PortAudioInput.open({ device: 'pulse', sampleRate: 16000, binding, clock, stallMs: 1000, unsteadyStallMs: 3000 });
    let failure: unknown;
    const reading = (async () => {
      try {
        for await (const frame of input.frames()) void frame;
      } catch (error) {
        failure = error;
      }
    })();
    await vi.advanceTimersByTimeAsync(2900);
    expect(failure).toBeUndefined();
    await vi.advanceTimersByTimeAsync(400);
    await reading;
    expect(isAppError(failure, 'AUDIO_DEVICE_LOST')).toBe(true);
  });
});

describe('PortAudioOutput whose device stops taking audio', () => {
  it('is lost about stallMs after its last taken write: the write under way and drain throw, later writes throw at once, quit once', async () => {
    const binding = new FakePortAudio();
    const output = PortAudioOutput.open({ device: 'pulse', sampleRate: 16000, binding, clock, queueChunks: 2, stallMs: 1000, unsteadyStallMs: 3000 });
    const stream = binding.last;
    let ready = false;
    // `ready` and `lost` only resolve; the flags are what the test reads.
    void output.ready.then(() => (ready = true));
    let lost: unknown;
    void output.lost.then((error) => (lost = error));
    // The first two writes fill naudiodon's queue; the third is taken when the device plays. 2.5 s of it: steady.
    for (let i = 0; i < 250; i++) {
      await vi.advanceTimersByTimeAsync(10);
      stream.accept();
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(ready).toBe(true);
    const writing = output.write(new Int16Array(1600)).catch((error: unknown) => error);
    const draining = output.drain().catch((error: unknown) => error);
    // The device stops taking chunks.
    await vi.advanceTimersByTimeAsync(900);
    expect(lost).toBeUndefined();
    await vi.advanceTimersByTimeAsync(400);
    expect(isAppError(lost, 'AUDIO_DEVICE_LOST')).toBe(true);
    expect((lost as Error).message).toContain('audio output "pulse" stopped taking sound');
    expect(isAppError(await writing, 'AUDIO_DEVICE_LOST')).toBe(true);
    expect(isAppError(await draining, 'AUDIO_DEVICE_LOST')).toBe(true);
    await expect(output.write(new Int16Array(160))).rejects.toMatchObject({ code: 'AUDIO_DEVICE_LOST' });
    await output.close();
    // naudiodon's quit of a dead output never returns: it is asked once, not again at close.
    expect(stream.quitCalls).toBe(1);
  });

  it('is not ready, and not lost, while naudiodon only fills its queue within unsteadyStallMs', async () => {
    const binding = new FakePortAudio();
    const output = PortAudioOutput.open({ device: 'pulse', sampleRate: 16000, binding, clock, queueChunks: 2, stallMs: 1000, unsteadyStallMs: 3000 });
    const stream = binding.last;
    let ready = false;
    let lost = false;
    // `ready` and `lost` only resolve; the flags are what the test reads.
    void output.ready.then(() => (ready = true));
    void output.lost.then(() => (lost = true));
    for (let i = 0; i < 2; i++) {
      await vi.advanceTimersByTimeAsync(10);
      stream.accept();
    }
    await vi.advanceTimersByTimeAsync(2000);
    expect({ ready, lost }).toEqual({ ready: false, lost: false });
    await vi.advanceTimersByTimeAsync(1000);
    expect({ ready, lost }).toEqual({ ready: false, lost: true });
    await output.close();
  });
});

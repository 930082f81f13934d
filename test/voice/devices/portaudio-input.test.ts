/** The input's stream handling on a fake device whose chunks the test delivers. */
import { describe, expect, it } from 'vitest';
import type { AudioClock } from '../../../src/voice/audio/index.js';
import { PortAudioInput } from '../../../src/voice/devices/index.js';
import type { AudioFrame } from '../../../src/voice/types.js';
import { FakePortAudio, settle } from './fake-portaudio.js';

const clock: AudioClock = { now: () => 0, sleep: async () => undefined };

function open(options: { maxBufferedFrames?: number } = {}) {
  const binding = new FakePortAudio();
  const input = PortAudioInput.open({ device: 'pulse', sampleRate: 16000, binding, clock, ...options });
  return { input, binding };
}

/** Iterates in the background, keeping what arrives. */
function consume(input: PortAudioInput, signal?: AbortSignal) {
  const frames: AudioFrame[] = [];
  const done = (async () => {
    for await (const frame of input.frames(signal ? { signal } : {})) frames.push(frame);
  })();
  return { frames, done };
}

describe('PortAudioInput on a fake device', () => {
  it('opens the device in 10 ms chunks (not naudiodon\'s 512 ms) that survive an overflow', async () => {
    const { input, binding } = open();
    const controller = new AbortController();
    const { done } = consume(input, controller.signal);
    await settle();
    expect(binding.last.options).toMatchObject({ sampleRate: 16000, channelCount: 1, framesPerBuffer: 160, highwaterMark: 320, maxQueue: 50, closeOnError: false });
    expect(binding.last.started).toBe(true);
    controller.abort();
    await done;
  });

  it('captures at 48 kHz where the device takes it, else at its default, and keeps the rate that worked', async () => {
    const binding = new FakePortAudio();
    binding.refusedRates = [48000];
    const input = PortAudioInput.open({ device: 'pulse', binding, clock });
    for (const expected of [44100, 44100]) {
      const controller = new AbortController();
      const run = consume(input, controller.signal);
      await settle();
      expect(binding.last.options).toMatchObject({ sampleRate: expected, framesPerBuffer: 441, highwaterMark: 882 });
      expect(input.stats().sampleRate).toBe(expected);
      controller.abort();
      await run.done;
      // Once 44.1 kHz has worked, 48 kHz is not tried again.
      binding.refusedRates = [];
    }
    const usb = new FakePortAudio();
    const capture = PortAudioInput.open({ device: 'usb pnp', binding: usb, clock });
    const controller = new AbortController();
    const run = consume(capture, controller.signal);
    await settle();
    expect(usb.last.options).toMatchObject({ sampleRate: 48000, framesPerBuffer: 480 });
    controller.abort();
    await run.done;
  });

  it('yields 20 ms frames as chunks arrive, and quits the device when aborted', async () => {
    const { input, binding } = open();
    const controller = new AbortController();
    const { frames, done } = consume(input, controller.signal);
    await settle();
    for (let i = 0; i < 5; i++) binding.last.deliver(new Int16Array(160).fill(i));
    await settle();
    expect(frames.map((f) => f.index)).toEqual([0, 1]);
    expect(Array.from(frames[1]!.samples.slice(158, 162))).toEqual([2, 2, 3, 3]);
    expect(input.stats()).toMatchObject({ sampleRate: 16000, chunks: 5, minChunkMs: 10, maxChunkMs: 10, droppedFrames: 0 });
    controller.abort();
    await done;
    expect(binding.last.quitCalls).toBe(1);
  });

  it('allows one capture at a time, and a fresh stream (from frame 0) for the next', async () => {
    const { input, binding } = open();
    const controller = new AbortController();
    const first = consume(input, controller.signal);
    await settle();
    await expect(input.frames()[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'AUDIO_INPUT_BUSY' });
    controller.abort();
    await first.done;

    const again = new AbortController();
    const second = consume(input, again.signal);
    await settle();
    expect(binding.streams).toHaveLength(2);
    binding.last.deliver(new Int16Array(320));
    await settle();
    expect(second.frames[0]!.index).toBe(0);
    again.abort();
    await second.done;
  });

  it('drops the oldest frames for a consumer that falls behind, and counts them', async () => {
    const { input, binding } = open({ maxBufferedFrames: 3 });
    const iterator = input.frames()[Symbol.asyncIterator]();
    const first = iterator.next();
    await settle();
    binding.last.deliver(new Int16Array(320).fill(1));
    expect((await first).value.index).toBe(0);
    // While nobody reads, 5 more frames arrive; only the newest 3 are kept.
    for (let i = 2; i <= 6; i++) binding.last.deliver(new Int16Array(320).fill(i));
    expect((await iterator.next()).value.index).toBe(3);
    expect(input.stats().droppedFrames).toBe(2);
    await iterator.return?.();
  });

  it('fails with AUDIO_DEVICE_FAILED when the device errors or stops on its own', async () => {
    const { input, binding } = open();
    const failing = consume(input);
    await settle();
    binding.last.emit('error', new Error('portAudio status - input overflow'));
    await expect(failing.done).rejects.toMatchObject({ code: 'AUDIO_DEVICE_FAILED' });

    const ending = consume(input);
    await settle();
    binding.last.emit('end');
    await expect(ending.done).rejects.toMatchObject({ code: 'AUDIO_DEVICE_FAILED' });
  });

  it('close() ends a running capture quietly', async () => {
    const { input, binding } = open();
    const { done } = consume(input);
    await settle();
    await input.close();
    await done;
    expect(binding.last.quitCalls).toBe(1);
    const after = consume(input);
    await after.done;
    expect(after.frames).toEqual([]);
  });
});

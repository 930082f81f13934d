/**
 * The output's queue semantics on a fake device that takes a chunk only when
 * the test says so: what write, drain, clear and close promise, chunk by
 * chunk. 16 kHz, so samples pass unconverted; 10 ms chunks are 160 samples.
 */
import { describe, expect, it } from 'vitest';
import type { AudioClock } from '../../../src/voice/audio/index.js';
import { PortAudioOutput } from '../../../src/voice/devices/index.js';
import { FakePortAudio, settle, type FakeStream } from './fake-portaudio.js';

const CHUNK = 160;

class StepClock implements AudioClock {
  nowMs = 0;
  readonly sleeps: number[] = [];
  now(): number {
    return this.nowMs;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.nowMs += ms;
  }
}

function open(options: { queueChunks?: number; latencyMs?: number; channels?: number } = {}) {
  const binding = new FakePortAudio();
  const clock = new StepClock();
  const output = PortAudioOutput.open({ device: 'pulse', sampleRate: 16000, binding, clock, ...options });
  return { output, device: binding.last, clock };
}

/** Samples 1..n, so every chunk says where it came from. */
function ramp(n: number, start = 1): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => start + i);
}

async function accept(device: FakeStream): Promise<Int16Array> {
  await settle();
  const taken = device.accept();
  if (!taken) throw new Error('the output had nothing waiting for the device');
  await settle();
  return taken;
}

describe('PortAudioOutput on a fake device', () => {
  it('opens in small chunks, hands silence while idle, and keeps PortAudio from closing on an underflow', async () => {
    const { output, device } = open();
    expect(device.options).toMatchObject({ sampleRate: 16000, channelCount: 1, framesPerBuffer: CHUNK, highwaterMark: CHUNK * 2, maxQueue: 4, closeOnError: false });
    expect(device.started).toBe(true);
    const idle = await accept(device);
    expect(idle.length).toBe(CHUNK);
    expect(idle.every((s) => s === 0)).toBe(true);
    await output.close();
  });

  it('resolves write once the last of its samples is handed to the device', async () => {
    const { output, device } = open();
    let written = false;
    const writing = output.write(ramp(2 * CHUNK)).then(() => (written = true));
    await accept(device); // the silence in flight before the write
    expect(Array.from(await accept(device)).slice(0, 3)).toEqual([1, 2, 3]);
    expect(written).toBe(false);
    expect((await accept(device))[0]).toBe(CHUNK + 1);
    await writing;
    expect(written).toBe(true);
    await output.close();
  });

  it('clear() drops what is queued at the next chunk boundary and settles its writes', async () => {
    const { output, device } = open();
    const writing = output.write(ramp(10 * CHUNK));
    await accept(device);
    expect((await accept(device))[0]).toBe(1);
    // The second chunk is already with the device (waiting); the rest is still ours.
    output.clear();
    await writing;
    expect((await accept(device))[0]).toBe(CHUNK + 1);
    expect((await accept(device)).every((s) => s === 0)).toBe(true);
    await output.close();
  });

  it('drain() waits until the last audio has left the queue, then for the device latency', async () => {
    const { output, device, clock } = open({ queueChunks: 2, latencyMs: 30 });
    // Resolves only when the device takes the chunk; drain() is what is tested.
    void output.write(ramp(CHUNK));
    let drained = false;
    const draining = output.drain().then(() => (drained = true));
    // The silence in flight, the audio, then queueChunks: the audio may still be in naudiodon's queue.
    for (let i = 0; i < 4; i++) {
      await accept(device);
      expect(drained).toBe(false);
    }
    clock.nowMs = 1000;
    await accept(device);
    await draining;
    expect(clock.sleeps).toEqual([30]);
    await output.close();
  });

  it('drain() with nothing written resolves at once: no chunk taken by the device, no latency waited', async () => {
    const { output, device, clock } = open();
    let drained = false;
    // Read through `drained` below; a rejection would leave it false and fail the test.
    const draining = output.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(true);
    await draining;
    expect(device.taken).toEqual([]);
    expect(clock.sleeps).toEqual([]);
    await output.close();
  });

  it('copies the mono voice to every channel it opened', async () => {
    const { output, device } = open({ channels: 2 });
    // Resolves only when the device takes the chunk, which accept() does below.
    void output.write(ramp(CHUNK));
    await accept(device);
    expect(Array.from((await accept(device)).slice(0, 4))).toEqual([1, 1, 2, 2]);
    await output.close();
  });

  it('opens at 48 kHz, not the 44.1 kHz PortAudio reports for pulse, and converts 16 kHz to it', async () => {
    const binding = new FakePortAudio();
    const output = PortAudioOutput.open({ device: 'pulse', binding });
    const device = binding.last;
    expect(device.options).toMatchObject({ sampleRate: 48000, framesPerBuffer: 480 });
    // Resolves only when the device takes the chunks, which accept() does below.
    void output.write(new Int16Array(1600).fill(1000));
    await accept(device);
    const chunk = await accept(device);
    expect(chunk.length).toBe(480);
    // Past the filter's start-up, a constant stays that constant.
    expect(chunk[300]).toBeGreaterThan(990);
    expect(chunk[300]).toBeLessThan(1010);
    await output.close();
  });

  it('falls back to the device default when it refuses 48 kHz', async () => {
    const binding = new FakePortAudio();
    binding.refusedRates = [48000];
    const output = PortAudioOutput.open({ device: 'pulse', binding });
    expect(output.sampleRate).toBe(44100);
    expect(binding.last.options.framesPerBuffer).toBe(441);
    await output.close();
  });

  it('fails pending and later calls with AUDIO_DEVICE_FAILED when the device fails', async () => {
    const { output, device } = open();
    const writing = output.write(ramp(4 * CHUNK));
    await settle();
    device.fail('portAudio status - output underflow');
    await expect(writing).rejects.toMatchObject({ code: 'AUDIO_DEVICE_FAILED' });
    await expect(output.drain()).rejects.toMatchObject({ code: 'AUDIO_DEVICE_FAILED' });
    await output.close();
  });

  it('close() quits the device once, and later writes fail with AUDIO_OUTPUT_CLOSED', async () => {
    const { output, device } = open();
    await settle();
    await Promise.all([output.close(), output.close()]);
    expect(device.quitCalls).toBe(1);
    await expect(output.write(ramp(10))).rejects.toMatchObject({ code: 'AUDIO_OUTPUT_CLOSED' });
    await output.drain();
  });
});

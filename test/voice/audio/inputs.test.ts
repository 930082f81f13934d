import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WavFileInput, encodeWav, writeWav } from '../../../src/voice/audio/index.js';
import { NullInput } from '../../support/null-input.js';
import type { AudioFrame, AudioInput } from '../../../src/voice/types.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { FakeClock } from './fake-clock.js';
import { sine, toInt16, toneAmplitude } from './signals.js';

async function collect(input: AudioInput, signal?: AbortSignal, stopAfter = Infinity): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  for await (const frame of input.frames(signal ? { signal } : {})) {
    frames.push(frame);
    if (frames.length >= stopAfter) break;
  }
  return frames;
}

describe('WavFileInput', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('da-wavin-');
  });
  afterAll(() => dir.remove());

  it('cuts a 16 kHz file into 20 ms frames on the file clock; the last one may be short', async () => {
    const file = join(dir.path, 'a.wav');
    await writeWav(file, { sampleRate: 16000, channels: 1, samples: Int16Array.from({ length: 16000 + 100 }, (_, i) => i % 1000) });
    const input = await WavFileInput.open(file);
    expect(input.name).toBe('wav:a.wav');
    const frames = await collect(input);
    expect(frames.length).toBe(51);
    expect(frames.map((f) => f.index)).toEqual([...Array(51).keys()]);
    expect(frames.map((f) => f.atMs)).toEqual([...Array(51).keys()].map((i) => i * 20));
    expect(frames.slice(0, 50).every((f) => f.samples.length === 320)).toBe(true);
    expect(frames[50]!.samples.length).toBe(100);
    expect(frames[1]!.samples[0]).toBe(320);
    // Replays from the start.
    expect((await collect(input)).length).toBe(51);
  });

  it('converts a 44.1 kHz stereo file to 16 kHz mono frames', async () => {
    const tone = toInt16(sine(1000, 44100, 2, 0.5));
    const stereo = new Int16Array(tone.length * 2);
    tone.forEach((v, i) => {
      stereo[2 * i] = v;
      stereo[2 * i + 1] = v;
    });
    const file = join(dir.path, 'stereo.wav');
    await writeWav(file, { sampleRate: 44100, channels: 2, samples: stereo });
    const input = await WavFileInput.open(file);
    const frames = await collect(input);
    expect(frames.length).toBe(100);
    expect(input.samples.length).toBe(32000);
    expect(toneAmplitude(input.samples, 1000, 16000, 1000, 31000) / 32768).toBeCloseTo(0.5, 2);
  });

  it('fails at open, with the WAV code, for a bad file', async () => {
    const file = await dir.write('bad.wav', 'RIFF....WAVEjunk');
    await expect(WavFileInput.open(file)).rejects.toMatchObject({ code: 'AUDIO_WAV_INVALID' });
    const float = encodeWav({ sampleRate: 16000, channels: 1, samples: new Int16Array(4) });
    float.writeUInt16LE(3, 20);
    const floatFile = join(dir.path, 'float.wav');
    await writeFile(floatFile, float);
    await expect(WavFileInput.open(floatFile)).rejects.toMatchObject({ code: 'AUDIO_WAV_UNSUPPORTED' });
  });

  it('paces frames at capture speed on its clock when realtime', async () => {
    const clock = new FakeClock();
    clock.nowMs = 1000;
    const input = new WavFileInput('t', new Int16Array(320 * 5), { realtime: true, clock });
    const seen: number[] = [];
    for await (const frame of input.frames()) seen.push(clock.nowMs - 1000 - frame.atMs);
    // Each frame arrives once it has been "captured": 20 ms after its start.
    expect(seen).toEqual([20, 20, 20, 20, 20]);
    expect(clock.sleeps).toEqual([20, 20, 20, 20, 20]);
  });

  it('stops on abort and on close', async () => {
    const input = new WavFileInput('t', new Int16Array(320 * 10), { realtime: true, clock: new FakeClock() });
    const controller = new AbortController();
    const frames: AudioFrame[] = [];
    for await (const frame of input.frames({ signal: controller.signal })) {
      frames.push(frame);
      if (frames.length === 3) controller.abort();
    }
    expect(frames.length).toBe(3);

    const closing = new WavFileInput('t', new Int16Array(320 * 10));
    const got: AudioFrame[] = [];
    for await (const frame of closing.frames()) {
      got.push(frame);
      if (got.length === 2) await closing.close();
    }
    expect(got.length).toBe(2);
    expect(await collect(closing)).toEqual([]);
  });
});

describe('NullInput', () => {
  it('gives N silent frames unpaced', async () => {
    const frames = await collect(new NullInput({ frameCount: 4 }));
    expect(frames.map((f) => [f.index, f.atMs, f.samples.length, Math.max(...f.samples)])).toEqual([
      [0, 0, 320, 0],
      [1, 20, 320, 0],
      [2, 40, 320, 0],
      [3, 60, 320, 0],
    ]);
  });

  it('is endless and paced until aborted', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const input = new NullInput({ clock });
    let count = 0;
    for await (const frame of input.frames({ signal: controller.signal })) {
      expect(clock.nowMs).toBe(frame.atMs + 20);
      if (++count === 250) controller.abort();
    }
    expect(count).toBe(250);
    expect(clock.nowMs).toBe(5000);
  });

  it('refuses an endless unpaced input and a bad count', () => {
    expect(() => new NullInput({ realtime: false })).toThrow(expect.objectContaining({ code: 'AUDIO_INPUT_CONFIG_INVALID' }));
    expect(() => new NullInput({ frameCount: -1 })).toThrow(expect.objectContaining({ code: 'AUDIO_INPUT_CONFIG_INVALID' }));
  });

  it('ends when the signal aborts during a wait', async () => {
    const controller = new AbortController();
    const clock = new FakeClock();
    clock.sleep = async (_ms, signal) => {
      controller.abort();
      throw signal?.reason;
    };
    const frames = await collect(new NullInput({ clock }), controller.signal);
    expect(frames).toEqual([]);
  });
});

/**
 * RecoveringOutput and RecoveringInput in virtual time, over fake devices
 * the test loses and brings back: what is missing while it is, the refusals
 * meanwhile, and the reopening with its backoff (100, 250, 500, then every
 * 1000 ms), so a device is back within about 1 s of returning.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import type { AudioClock } from '../../../src/voice/audio/index.js';
import { DeviceHealth, RecoveringInput, RecoveringOutput, type DeviceChange, type LosableOutput } from '../../../src/voice/devices/index.js';
import type { AudioFrame, AudioInput } from '../../../src/voice/types.js';
import { FRAME_SAMPLES } from '../../../src/voice/types.js';

const clock: AudioClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const aborted = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }, ms);
      signal?.addEventListener('abort', aborted, { once: true });
    }),
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether the sound server is up: the fakes open, play and capture only then. */
class FakeServer {
  up = true;
  opened = 0;
  refused = 0;
}

class FakeOutput implements LosableOutput {
  readonly name = 'fake:speaker';
  written = 0;
  closed = false;
  private loseNow: (error: AppError) => void = () => undefined;
  readonly lost = new Promise<AppError>((resolve) => (this.loseNow = resolve));
  readonly ready = Promise.resolve();
  private gone = false;

  async write(): Promise<void> {
    if (this.gone) throw new AppError('AUDIO_DEVICE_LOST', 'gone');
    this.written += 1;
  }
  async drain(): Promise<void> {
    if (this.gone) throw new AppError('AUDIO_DEVICE_LOST', 'gone');
  }
  clear(): void {}
  async close(): Promise<void> {
    this.closed = true;
  }
  /** What the stall watch does when the server disappears. */
  lose(): void {
    this.gone = true;
    this.loseNow(new AppError('AUDIO_DEVICE_LOST', 'audio output "default" stopped taking sound (a write waited 1000 ms)'));
  }
}

function outputOn(server: FakeServer, made: FakeOutput[]): () => LosableOutput {
  return () => {
    if (!server.up) {
      server.refused += 1;
      throw new AppError('AUDIO_DEVICE_OPEN_FAILED', 'cannot open audio output "default" (Connection refused)');
    }
    server.opened += 1;
    const output = new FakeOutput();
    made.push(output);
    return output;
  };
}

/** A capture that delivers a frame every 20 ms while the server is up, and fails like PortAudioInput when it goes. */
function inputOn(server: FakeServer): () => AudioInput {
  return () => ({
    name: 'fake:microphone',
    async *frames({ signal } = {}) {
      if (!server.up) {
        server.refused += 1;
        throw new AppError('AUDIO_DEVICE_OPEN_FAILED', 'cannot open audio input "default" (Connection refused)');
      }
      server.opened += 1;
      for (let index = 0; !signal?.aborted; index++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (!server.up) throw new AppError('AUDIO_DEVICE_LOST', 'audio input "default" stopped delivering sound (nothing for 1000 ms)');
        yield { samples: new Int16Array(FRAME_SAMPLES), index, atMs: Date.now() } satisfies AudioFrame;
      }
    },
    close: async () => undefined,
  });
}

function watched(health: DeviceHealth): DeviceChange[] {
  const changes: DeviceChange[] = [];
  health.subscribe((change) => changes.push(change));
  return changes;
}

describe('RecoveringOutput', () => {
  it('refuses at once while lost, says what is missing, and plays again within about 1 s of the server returning', async () => {
    const server = new FakeServer();
    const made: FakeOutput[] = [];
    const health = new DeviceHealth();
    const changes = watched(health);
    const output = new RecoveringOutput({ open: outputOn(server, made), health, deviceName: 'default', clock });
    await output.write(new Int16Array(160));
    expect(made[0]!.written).toBe(1);

    server.up = false;
    made[0]!.lose();
    await vi.advanceTimersByTimeAsync(0);
    expect(made[0]!.closed).toBe(true);
    expect(health.missing).toEqual([
      {
        device: 'output',
        message: 'the speaker (default) is missing: audio output "default" stopped taking sound (a write waited 1000 ms). The voice comes back by itself when it returns',
        sinceMs: Date.now(),
      },
    ]);
    await expect(output.write(new Int16Array(160))).rejects.toMatchObject({ code: 'AUDIO_DEVICE_LOST', message: expect.stringContaining('the speaker (default) is missing') });
    await expect(output.drain()).rejects.toMatchObject({ code: 'AUDIO_DEVICE_LOST' });

    // Away for 10 s: tries at 100, 350, 850, 1850, ... ms, then every second.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.refused).toBe(12);
    expect(health.missing).toHaveLength(1);
    const returnedAt = Date.now();
    server.up = true;
    for (let waited = 0; health.missing.length > 0 && waited < 2000; waited += 10) await vi.advanceTimersByTimeAsync(10);
    expect(health.missing).toEqual([]);
    expect(changes.map((change) => change.status)).toEqual(['lost', 'restored']);
    const restored = changes[1] as Extract<DeviceChange, { status: 'restored' }>;
    expect(restored.message).toMatch(/^the speaker \(default\) is back after \d+\.\d s$/);
    expect(restored.missingMs - 10_000).toBeLessThanOrEqual(1000);
    expect(Date.now() - returnedAt).toBeLessThanOrEqual(1000);
    await output.write(new Int16Array(160));
    expect(made[1]!.written).toBe(1);
    await output.close();
    expect(made[1]!.closed).toBe(true);
  });

  it('close() stops the reopening: nothing is opened after it', async () => {
    const server = new FakeServer();
    const made: FakeOutput[] = [];
    const health = new DeviceHealth();
    const output = new RecoveringOutput({ open: outputOn(server, made), health, deviceName: 'default', clock });
    server.up = false;
    made[0]!.lose();
    await vi.advanceTimersByTimeAsync(500);
    await output.close();
    server.up = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(server.opened).toBe(1);
  });
});

describe('RecoveringInput', () => {
  it('a recording that loses its device fails, later ones are refused at once, and a probe brings it back', async () => {
    const server = new FakeServer();
    const health = new DeviceHealth();
    const changes = watched(health);
    const input = new RecoveringInput({ open: inputOn(server), health, deviceName: 'default', clock });

    const stop = new AbortController();
    let failure: unknown;
    let frames = 0;
    const recording = (async () => {
      try {
        for await (const frame of input.frames({ signal: stop.signal })) frames += frame.index >= 0 ? 1 : 0;
      } catch (error) {
        failure = error;
      }
    })();
    await vi.advanceTimersByTimeAsync(200);
    server.up = false;
    await vi.advanceTimersByTimeAsync(100);
    await recording;
    expect(frames).toBeGreaterThan(5);
    expect(failure).toMatchObject({ code: 'AUDIO_DEVICE_LOST' });
    expect(health.missing.map((device) => device.message)).toEqual([
      'the microphone (default) is missing: audio input "default" stopped delivering sound (nothing for 1000 ms). The voice comes back by itself when it returns',
    ]);
    const refused = input.frames()[Symbol.asyncIterator]().next();
    await expect(refused).rejects.toMatchObject({ code: 'AUDIO_DEVICE_LOST', message: expect.stringContaining('the microphone (default) is missing') });

    await vi.advanceTimersByTimeAsync(3000);
    const returnedAt = Date.now();
    server.up = true;
    for (let waited = 0; health.missing.length > 0 && waited < 2000; waited += 10) await vi.advanceTimersByTimeAsync(10);
    expect(health.missing).toEqual([]);
    // The next try (at most 1 s away) and its first frame (20 ms).
    expect(Date.now() - returnedAt).toBeLessThanOrEqual(1020);
    expect(changes.map((change) => `${change.status}`)).toEqual(['lost', 'restored']);

    const again = new AbortController();
    let heard = 0;
    const next = (async () => {
      for await (const frame of input.frames({ signal: again.signal })) {
        heard += frame.samples.length === FRAME_SAMPLES ? 1 : 0;
        if (heard === 3) again.abort();
      }
    })();
    await vi.advanceTimersByTimeAsync(100);
    await next;
    expect(heard).toBe(3);
    await input.close();
  });

  it('a stopped recording or a busy capture is not a lost device', async () => {
    const health = new DeviceHealth();
    const input = new RecoveringInput({
      open: () => ({
        name: 'busy',
        async *frames() {
          throw new AppError('AUDIO_INPUT_BUSY', 'already capturing');
        },
        close: async () => undefined,
      }),
      health,
      deviceName: 'default',
      clock,
    });
    await expect(input.frames()[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'AUDIO_INPUT_BUSY' });
    expect(health.missing).toEqual([]);
    await input.close();
  });
});

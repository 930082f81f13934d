/**
 * The start-up room measurement on a loopback in virtual time: the fake
 * microphone delivers a frame every FRAME_MS of fake-timer time, as a device
 * does in real time, and the measurement's own polling runs on the same timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { calibrateRoom } from '../../../src/voice/duplex/index.js';
import { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, type AudioFrame, type AudioInput, type AudioOutput } from '../../../src/voice/types.js';

/** A speaker that takes what is written at once and plays it in (fake-timer) real time: drain waits for its last sample. */
function output(played: Int16Array[]): AudioOutput {
  let playsUntilMs = 0;
  return {
    name: 'test speaker',
    write: async (samples) => {
      playsUntilMs = Math.max(playsUntilMs, performance.now()) + (samples.length * 1000) / SAMPLE_RATE;
      played.push(samples.slice());
    },
    drain: () => new Promise((resolve) => setTimeout(resolve, Math.max(0, playsUntilMs - performance.now()))),
    clear: () => undefined,
    close: async () => undefined,
  };
}

/** A microphone that hears exactly what was played, `delayFrames` frames late, over silence: a frame every FRAME_MS. */
function loopbackInput(played: Int16Array[], delayFrames: number): AudioInput {
  return {
    name: 'test microphone',
    async *frames({ signal } = {}) {
      let index = 0;
      const heard: number[] = [];
      let playedAtFrame: number | undefined;
      for (let n = 0; !signal?.aborted && n < 1000; n++) {
        await new Promise((resolve) => setTimeout(resolve, FRAME_MS));
        for (const chunk of played.splice(0)) heard.push(...chunk);
        if (heard.length > 0) playedAtFrame ??= index;
        const samples = new Int16Array(FRAME_SAMPLES);
        const start = playedAtFrame === undefined ? -1 : (index - playedAtFrame - delayFrames) * FRAME_SAMPLES;
        if (start >= 0) for (let i = 0; i < FRAME_SAMPLES; i++) samples[i] = heard[start + i] ?? 0;
        // Stamped on the clock the measurement reads (performance.now, faked with the timers).
        yield { samples, index, atMs: performance.now() } satisfies AudioFrame;
        index += 1;
      }
    },
    close: async () => undefined,
  };
}

function collect(): { bus: ReturnType<typeof createAssistantBus>; events: AssistantEvent[] } {
  const bus = createAssistantBus();
  const events: AssistantEvent[] = [];
  bus.subscribe((e) => events.push(e));
  return { bus, events };
}

/** Runs the calibration to its end on the fake timers. */
async function calibrated(...args: Parameters<typeof calibrateRoom>): ReturnType<typeof calibrateRoom> {
  const reporting = calibrateRoom(...args);
  await vi.runAllTimersAsync();
  return reporting;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('calibrateRoom', () => {
  it('reports the chirp heard back, as an event and as its answer', async () => {
    const played: Int16Array[] = [];
    const { bus, events } = collect();
    const report = await calibrated(loopbackInput(played, 5), output(played), bus);
    expect(report).toMatchObject({ heard: true, problems: [] });
    // Heard exactly as played: 0 dB.
    expect(Math.abs(report!.echoDb!)).toBeLessThan(1);
    // Five frames late, plus at most the frame the chirp was written in.
    expect(report!.delayMs).toBeGreaterThanOrEqual(5 * FRAME_MS);
    expect(report!.delayMs).toBeLessThanOrEqual(6 * FRAME_MS);
    const room = events.find((e) => e.type === 'voice.room');
    expect(room).toMatchObject({ heard: true, match: report!.match, noiseDbfs: report!.noiseDbfs });
  });

  it('a microphone that fails is an error event, and no report: the voice starts without one', async () => {
    const { bus, events } = collect();
    const broken: AudioInput = {
      name: 'broken microphone',
      async *frames() {
        throw new AppError('AUDIO_DEVICE_FAILED', 'the microphone went away');
      },
      close: async () => undefined,
    };
    expect(await calibrated(broken, output([]), bus)).toBeUndefined();
    expect(events).toEqual([expect.objectContaining({ type: 'error', code: 'VOICE_ROOM_UNMEASURED', recoverable: true, message: expect.stringContaining('the microphone went away') })]);
  });
});

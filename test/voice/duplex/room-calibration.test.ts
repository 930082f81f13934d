import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { calibrateRoom } from '../../../src/voice/duplex/index.js';
import { FRAME_SAMPLES, type AudioFrame, type AudioInput, type AudioOutput } from '../../../src/voice/types.js';

/** A speaker whose drain takes as long as the fake microphone needs to deliver a second of audio (a frame a millisecond). */
const output = (played: Int16Array[]): AudioOutput => ({
  name: 'test speaker',
  write: async (samples) => void played.push(samples.slice()),
  drain: () => new Promise((resolve) => setTimeout(resolve, 150)),
  clear: () => undefined,
  close: async () => undefined,
});

/** A microphone that hears exactly what was played, `delayFrames` frames late, over silence. */
function loopbackInput(played: Int16Array[], delayFrames: number): AudioInput {
  return {
    name: 'test microphone',
    async *frames({ signal } = {}) {
      let index = 0;
      const heard: number[] = [];
      let playedAtFrame: number | undefined;
      for (let n = 0; !signal?.aborted && n < 1000; n++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        for (const chunk of played.splice(0)) heard.push(...chunk);
        if (heard.length > 0) playedAtFrame ??= index;
        const samples = new Int16Array(FRAME_SAMPLES);
        const start = playedAtFrame === undefined ? -1 : (index - playedAtFrame - delayFrames) * FRAME_SAMPLES;
        if (start >= 0) for (let i = 0; i < FRAME_SAMPLES; i++) samples[i] = heard[start + i] ?? 0;
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

describe('calibrateRoom', () => {
  it('reports the chirp heard back, as an event and as its answer', async () => {
    const played: Int16Array[] = [];
    const { bus, events } = collect();
    const report = await calibrateRoom(loopbackInput(played, 5), output(played), bus);
    expect(report).toMatchObject({ heard: true, problems: [] });
    // Heard exactly as played: 0 dB.
    expect(Math.abs(report!.echoDb!)).toBeLessThan(1);
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
    expect(await calibrateRoom(broken, output([]), bus)).toBeUndefined();
    expect(events).toEqual([expect.objectContaining({ type: 'error', code: 'VOICE_ROOM_UNMEASURED', recoverable: true, message: expect.stringContaining('the microphone went away') })]);
  });
});

/**
 * PortAudio for real, through a private PulseAudio null sink: what the
 * output plays into the sink comes back from its monitor to the input. Real
 * time, so kept to a couple of seconds of audio. Skipped, with the reason,
 * where PulseAudio, naudiodon, espeak-ng or sox is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError, messageOf } from '../../../src/errors/index.js';
import { PortAudioInput, PortAudioOutput, loadPortAudio } from '../../../src/voice/devices/index.js';
import { FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, type AudioFrame } from '../../../src/voice/types.js';
import { startPulse, type PulseServer } from '../../helpers/pulse.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { bestLag, firstAbove, joinFrames, lastAbove, speech, speechToolsMissing } from './signals.js';

async function whyNot(): Promise<string | undefined> {
  try {
    loadPortAudio();
  } catch (error) {
    return messageOf(error);
  }
  return speechToolsMissing();
}

const missing = await whyNot();
const pulse = missing === undefined ? await startPulse() : ({ ok: false, reason: missing } as const);
const skipReason = pulse.ok ? undefined : pulse.reason;
if (skipReason) console.warn(`PulseAudio device tests skipped: ${skipReason}`);

/** Captures from `input` in the background until stopped. */
function capture(input: PortAudioInput) {
  const frames: AudioFrame[] = [];
  const controller = new AbortController();
  const done = (async () => {
    for await (const frame of input.frames({ signal: controller.signal })) frames.push(frame);
  })();
  return {
    frames,
    started: () => waitFor(() => (frames.length >= 3 ? true : undefined), 'the first captured frames', 3000),
    /** Until a frame stamped at `atMs` or later (the capture clock: performance.now) has been captured. */
    capturedUntil: (atMs: number) => waitFor(() => ((frames.at(-1)?.atMs ?? -Infinity) >= atMs ? true : undefined), `the capture to reach ${atMs.toFixed(0)} ms`, 3000),
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

describe.skipIf(skipReason !== undefined)('PortAudio through a PulseAudio null sink', () => {
  let server: PulseServer;
  let restoreEnv: () => void;
  let dir: TempDir;

  beforeAll(async () => {
    if (!pulse.ok) return;
    server = pulse.server;
    restoreEnv = server.useIn(process.env);
    dir = await makeTempDir('da-loopback-');
  });

  afterAll(async () => {
    restoreEnv?.();
    await server?.stop();
    await dir?.remove();
  });

  it('chooses the pulse device by name and lists the devices when nothing matches', async () => {
    expect(PortAudioInput.open({ device: 'PULSE' }).device.name).toBe('pulse');
    const output = PortAudioOutput.open({ device: 'puls' });
    await output.close();
    expect(output.device.name).toBe('pulse');
    let error: unknown;
    try {
      PortAudioInput.open({ device: 'no such microphone' });
    } catch (caught) {
      error = caught;
    }
    expect(isAppError(error, 'AUDIO_DEVICE_NOT_FOUND')).toBe(true);
    expect(messageOf(error)).toContain('"pulse"');
  });

  it('captures the speech it plays: found by cross-correlation, in chunks of 20 ms at most, with rising timestamps', async () => {
    const spoken = await speech(dir.path, 'Testing the loop back.');
    const input = PortAudioInput.open({ device: 'pulse' });
    const output = PortAudioOutput.open({ device: 'pulse' });
    const recording = capture(input);
    try {
      await recording.started();
      const writtenAtMs = performance.now();
      await output.write(spoken);
      await output.drain();
      const drainedAtMs = performance.now();
      // What was played has reached the microphone: the capture runs 150 ms past the drain (the sink's latency is under it).
      await recording.capturedUntil(drainedAtMs + 150);
      await recording.stop();
      // Analysis blocks the event loop for a while: the devices must not starve meanwhile.
      await output.close();

      const { frames } = recording;
      const captured = joinFrames(frames);
      const { lag, score } = bestLag(captured, spoken);
      const frame = frames[Math.floor(lag / FRAME_SAMPLES)]!;
      const heardAtMs = frame.atMs + ((lag % FRAME_SAMPLES) * 1000) / SAMPLE_RATE;
      const endHeardAtMs = heardAtMs + (spoken.length * 1000) / SAMPLE_RATE;
      const stats = input.stats();
      console.log(
        `loopback: correlation ${score.toFixed(3)}; write() to capture ${(heardAtMs - writtenAtMs).toFixed(1)} ms; ` +
          `drain() resolved ${(drainedAtMs - endHeardAtMs).toFixed(1)} ms after the last sample was captured; ` +
          `capture chunks ${stats.minChunkMs.toFixed(1)}..${stats.maxChunkMs.toFixed(1)} ms at ${stats.sampleRate} Hz (${stats.chunks} chunks)`,
      );

      expect(score).toBeGreaterThan(0.95);
      expect(heardAtMs - writtenAtMs).toBeGreaterThan(0);
      expect(heardAtMs - writtenAtMs).toBeLessThan(250);
      expect(drainedAtMs).toBeGreaterThan(endHeardAtMs - 20);
      expect(stats.maxChunkMs).toBeLessThanOrEqual(FRAME_MS);
      expect(stats.droppedFrames).toBe(0);
      frames.forEach((f, i) => {
        expect(f.index).toBe(i);
        expect(f.samples.length).toBe(FRAME_SAMPLES);
      });
      for (let i = 1; i < frames.length; i++) expect(frames[i]!.atMs).toBeGreaterThan(frames[i - 1]!.atMs);
      // Stamped on the capture clock, not on arrival: 20 ms apart but for the clock's corrections.
      const spacing = (frames.at(-1)!.atMs - frames[0]!.atMs) / (frames.length - 1);
      expect(Math.abs(spacing - FRAME_MS)).toBeLessThan(1);
    } finally {
      await recording.stop();
      await output.close();
      await input.close();
    }
  });

  it('clear() silences playback within a few chunks and write() resolves at once', async () => {
    const tone = new Int16Array(SAMPLE_RATE).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE)));
    const input = PortAudioInput.open({ device: 'pulse' });
    const output = PortAudioOutput.open({ device: 'pulse' });
    const recording = capture(input);
    try {
      await recording.started();
      const writing = output.write(tone);
      // Cleared mid-tone: once the microphone has heard 100 ms of it.
      await waitFor(() => {
        const captured = joinFrames(recording.frames);
        const start = firstAbove(captured, 2000);
        return start >= 0 && lastAbove(captured, 2000) - start >= SAMPLE_RATE / 10 ? true : undefined;
      }, 'the tone at the microphone', 3000);
      const clearedAtMs = performance.now();
      output.clear();
      await writing;
      const writeSettledMs = performance.now() - clearedAtMs;
      await output.drain();
      await recording.capturedUntil(performance.now() + 150);
      await recording.stop();
      await output.close();

      const captured = joinFrames(recording.frames);
      const start = firstAbove(captured, 2000);
      const end = lastAbove(captured, 2000);
      const first = recording.frames[0]!.atMs;
      const toneMs = ((end - start) * 1000) / SAMPLE_RATE;
      const afterClearMs = first + (end * 1000) / SAMPLE_RATE - clearedAtMs;
      console.log(`clear: the tone played ${toneMs.toFixed(0)} ms of 1000; it was still captured ${afterClearMs.toFixed(1)} ms after clear(); write() settled ${writeSettledMs.toFixed(1)} ms after clear()`);

      expect(start).toBeGreaterThanOrEqual(0);
      expect(toneMs).toBeLessThan(600);
      expect(afterClearMs).toBeLessThan(150);
      expect(writeSettledMs).toBeLessThan(20);
    } finally {
      await recording.stop();
      await output.close();
      await input.close();
    }
  });

  it('refuses a second capture while one runs', async () => {
    const input = PortAudioInput.open({ device: 'pulse' });
    const recording = capture(input);
    try {
      await recording.started();
      const second = input.frames()[Symbol.asyncIterator]();
      await expect(second.next()).rejects.toMatchObject({ code: 'AUDIO_INPUT_BUSY' });
    } finally {
      await recording.stop();
      await input.close();
    }
  });
});

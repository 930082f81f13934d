import { Endpointer, SileroVad } from '../src/voice/vad/index.js';
import { FRAME_SAMPLES } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { librivoxClips } from '../test/support/speech-clips.js';
import { distribution, elapsedMs, now, round } from '../test/support/stats.js';

const ROUNDS = 5;

/**
 * Silero VAD v5 (onnxruntime-node, one thread) on the five LibriVox clips:
 * the model's time per 512-sample window (32 ms of audio), and the
 * endpointer's per 20 ms frame (buffering, the model when a window fills,
 * the speech detector), as the voice feeds it.
 */
export const vad: Benchmark = {
  name: 'vad',
  description: 'Silero VAD ms per 512-sample window and the endpointer ms per 20 ms frame, on real speech',
  run: runVad,
};

async function runVad(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const clips = await librivoxClips();
  const model = await SileroVad.load();
  try {
    const windows: number[] = [];
    const frames: number[] = [];
    let audioMs = 0;
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const clip of clips) {
        options.signal?.throwIfAborted();
        model.reset();
        for (let start = 0; start + model.frameSamples <= clip.samples.length; start += model.frameSamples) {
          const window = clip.samples.slice(start, start + model.frameSamples);
          const t = now();
          await model.probability(window);
          if (round_ > 0) windows.push(elapsedMs(t));
        }
        const endpointer = new Endpointer(model);
        for (let start = 0; start < clip.samples.length; start += FRAME_SAMPLES) {
          const t = now();
          await endpointer.push(clip.samples.slice(start, start + FRAME_SAMPLES));
          if (round_ > 0) frames.push(elapsedMs(t));
        }
        await endpointer.flush();
        if (round_ > 0) audioMs += (clip.samples.length / 16_000) * 1000;
      }
    }
    const total = frames.reduce((a, b) => a + b, 0);
    return {
      clips: clips.length,
      rounds_measured: ROUNDS - 1,
      windows: windows.length,
      ...distribution('silero_window', windows, true),
      ...distribution('endpointer_frame', frames, true),
      real_time_factor: round(total / audioMs, 4),
    };
  } finally {
    await model.close();
  }
}

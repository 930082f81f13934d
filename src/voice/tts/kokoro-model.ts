/**
 * The Kokoro network, loaded by kokoro-js (through transformers.js and
 * onnxruntime-node) from a local folder only. kokoro-js's own `generate`
 * takes a voice by name from its package; a blend is a style vector of our
 * own, so generation calls the model the way kokoro-js's
 * `generate_from_ids` does, with that vector.
 */
import { AppError, messageOf } from '../../errors/index.js';
import { TTS_MODEL_LOAD_FAILED } from './errors.js';
import type { KokoroFiles } from './kokoro-files.js';
import { importKokoroJs, importTransformers } from './kokoro-runtime.js';
import { STYLE_DIM } from './voice-blend.js';

/** What the engine needs from a Kokoro model; tests give a fake. */
export interface KokoroModel {
  /** Hz of what `generate` returns. */
  readonly sampleRate: number;
  /** Audio for `phonemes`; `styleFor(n)` gives the style vector for n phonemes. */
  generate(phonemes: string, styleFor: (phonemes: number) => Float32Array, speed: number): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/** Kokoro v1.0 speaks at 24 kHz. */
const KOKORO_RATE = 24_000;

/**
 * Loads the model in `files` (checked by checkKokoroFiles). Remote loading
 * is switched off first, process-wide: transformers.js would otherwise turn
 * a missing file into a download from the Hugging Face hub.
 */
export async function loadKokoroModel(files: KokoroFiles): Promise<KokoroModel> {
  try {
    const transformers = await importTransformers();
    transformers.env.allowRemoteModels = false;
    transformers.env.allowLocalModels = true;
    // Its file cache would copy the model under node_modules on first load.
    transformers.env.useFSCache = false;
    const { KokoroTTS } = await importKokoroJs();
    const tts = await KokoroTTS.from_pretrained(files.folder, { dtype: files.dtype, device: 'cpu' });
    const { Tensor } = transformers;
    return {
      sampleRate: KOKORO_RATE,
      async generate(phonemes, styleFor, speed) {
        const { input_ids: ids } = tts.tokenizer(phonemes, { truncation: true }) as { input_ids: InstanceType<typeof Tensor> };
        // The tokenizer adds a pad token at each end; the style row is chosen by the phonemes between.
        const style = styleFor(Math.max(0, (ids.dims.at(-1) ?? 2) - 2)).slice();
        const inputs = { input_ids: ids, style: new Tensor('float32', style, [1, STYLE_DIM]), speed: new Tensor('float32', Float32Array.of(speed), [1]) };
        const { waveform } = (await tts.model(inputs)) as { waveform: { data: Float32Array } };
        return waveform.data;
      },
      async dispose() {
        await tts.model.dispose();
      },
    };
  } catch (error) {
    throw new AppError(TTS_MODEL_LOAD_FAILED, `cannot load the Kokoro model in ${files.folder} (${files.onnx}): ${messageOf(error)}`, { cause: error });
  }
}

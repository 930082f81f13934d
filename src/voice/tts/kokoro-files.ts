/**
 * Where the Kokoro model is, checked before anything is loaded so a missing
 * file is an error naming it (and its config key), not a stack trace from
 * deep inside transformers.js. kokoro-js loads the layout of
 * onnx-community/Kokoro-82M-v1.0-ONNX: a folder with config.json,
 * tokenizer.json, tokenizer_config.json and onnx/model<suffix>.onnx, the
 * suffix naming the precision. (The predecessor's kokoro-onnx files,
 * kokoro-v1.0.onnx and voices-v1.0.bin, are another export: their graph
 * takes `tokens` where transformers.js passes `input_ids`.)
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { expandHome } from '../../config/index.js';
import { AppError } from '../../errors/index.js';
import { TTS_MODEL_MISSING } from './errors.js';

export type KokoroDtype = 'fp32' | 'fp16' | 'q8' | 'q4' | 'q4f16';

/** transformers.js's file suffix per precision, in the order a folder is searched. */
const MODEL_FILES: ReadonlyArray<[KokoroDtype, string]> = [
  ['fp32', 'model.onnx'],
  ['fp16', 'model_fp16.onnx'],
  ['q8', 'model_quantized.onnx'],
  ['q4', 'model_q4.onnx'],
  ['q4f16', 'model_q4f16.onnx'],
];
const FOLDER_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const LAYOUT = 'a kokoro-js model folder (as onnx-community/Kokoro-82M-v1.0-ONNX: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx) or one of the onnx/model*.onnx files in it';

export interface KokoroFiles {
  /** The model folder, an absolute path: transformers.js reads it as a local path, never as a hub id. */
  folder: string;
  dtype: KokoroDtype;
  onnx: string;
  /** The folder of `<name>.bin` voice files. */
  voices: string;
}

/** `model` and `voices` as in `[kokoro]`; throws TTS_MODEL_MISSING naming every path that is not there. */
export function checkKokoroFiles(model: string, voices: string): KokoroFiles {
  const modelPath = resolve(expandHome(model));
  const voicesPath = resolve(expandHome(voices));
  const missing: string[] = [];
  let folder: string;
  let choice: [KokoroDtype, string] | undefined;
  if (modelPath.endsWith('.onnx')) {
    folder = dirname(dirname(modelPath));
    choice = MODEL_FILES.find(([, file]) => file === basename(modelPath));
    if (!choice || basename(dirname(modelPath)) !== 'onnx') {
      throw new AppError(TTS_MODEL_MISSING, `[kokoro] model = ${modelPath} is not in the layout kokoro-js loads: it must be ${LAYOUT}`);
    }
    if (!existsSync(modelPath)) missing.push(modelPath);
  } else {
    folder = modelPath;
    choice = MODEL_FILES.find(([, file]) => existsSync(join(folder, 'onnx', file)));
    if (!choice) missing.push(join(folder, 'onnx', 'model.onnx'));
  }
  for (const file of FOLDER_FILES) if (!existsSync(join(folder, file))) missing.push(join(folder, file));
  if (missing.length > 0) {
    throw new AppError(TTS_MODEL_MISSING, `Kokoro model not found: missing ${missing.join(', ')}. [kokoro] model = ${modelPath} must be ${LAYOUT}`);
  }
  if (!isFolder(voicesPath)) {
    const what = existsSync(voicesPath) ? 'is a file, not a folder' : 'does not exist';
    throw new AppError(TTS_MODEL_MISSING, `Kokoro voices not found: [kokoro] voices = ${voicesPath} ${what}; it must be a folder of <name>.bin voice files (the model's voices/ folder, or kokoro-js's)`);
  }
  const [dtype, file] = choice!;
  return { folder, dtype, onnx: join(folder, 'onnx', file), voices: voicesPath };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

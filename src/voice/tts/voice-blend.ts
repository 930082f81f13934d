/**
 * Kokoro voices and their blends. A voice file (`<name>.bin`, as kokoro-js
 * ships them and as onnx-community/Kokoro-82M-v1.0-ONNX has them under
 * `voices/`) is raw little-endian float32: N rows of 256, where row n is the
 * style for an input of n phonemes. kokoro-js 1.2.1 reads it whole into a
 * Float32Array and takes `slice(256 * min(max(ids - 2, 0), 509), +256)`, ids
 * counting the two pad tokens: 510 rows. A blend is the weighted sum of the
 * named voices' files, row by row, the way the predecessor summed
 * `w * get_voice_style(name)`; weights are normalized here so a blend of
 * {a: 0.8, b: 0.4} is as loud as a single voice.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../errors/index.js';
import { TTS_BAD_OPTIONS, TTS_MODEL_MISSING, TTS_VOICE_INVALID, TTS_VOICE_UNKNOWN } from './errors.js';

/** Floats per style vector (Kokoro v1.0). */
export const STYLE_DIM = 256;
const FLOAT_BYTES = 4;

/** The voice names in `dir`: its `<name>.bin` files, sorted. */
export async function listVoices(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    throw new AppError(TTS_MODEL_MISSING, `Kokoro voices folder not found or unreadable: ${dir}`, { cause: error });
  }
  return entries.filter((f) => f.endsWith('.bin')).map((f) => f.slice(0, -4)).sort();
}

/** One voice's style vectors, rows of STYLE_DIM. */
export async function readVoice(dir: string, name: string): Promise<Float32Array> {
  const path = join(dir, `${name}.bin`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new AppError(TTS_MODEL_MISSING, `Kokoro voice file not found or unreadable: ${path}`, { cause: error });
  }
  const rowBytes = STYLE_DIM * FLOAT_BYTES;
  if (bytes.length === 0 || bytes.length % rowBytes !== 0) {
    throw new AppError(TTS_VOICE_INVALID, `${path}: ${bytes.length} bytes is not a whole number of ${STYLE_DIM}-float style vectors`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out = new Float32Array(bytes.length / FLOAT_BYTES);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * FLOAT_BYTES, true);
  return out;
}

/** Checks a blend's names and weights against the voices there are; returns the normalized weights. */
export function validateBlend(blend: Readonly<Record<string, number>>, available: readonly string[]): Map<string, number> {
  const names = Object.keys(blend);
  if (names.length === 0) throw new AppError(TTS_BAD_OPTIONS, 'a voice blend names no voice');
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length > 0) {
    throw new AppError(
      TTS_VOICE_UNKNOWN,
      `unknown Kokoro voice${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')} in a blend; available: ${available.join(', ') || '(none)'}`,
    );
  }
  let total = 0;
  for (const name of names) {
    const weight = blend[name]!;
    if (!Number.isFinite(weight) || weight < 0) throw new AppError(TTS_BAD_OPTIONS, `the weight of voice ${name} in a blend must be a number >= 0, not ${weight}`);
    total += weight;
  }
  if (total <= 0) throw new AppError(TTS_BAD_OPTIONS, `the weights of a voice blend (${names.join(', ')}) add up to 0`);
  return new Map(names.map((n) => [n, blend[n]! / total]));
}

/** Pure: the weighted sum of `styles` (all the same length) by `blend`, weights normalized. */
export function blendStyles(styles: ReadonlyMap<string, Float32Array>, blend: Readonly<Record<string, number>>): Float32Array {
  const weights = validateBlend(blend, [...styles.keys()].sort());
  const parts = [...weights].map(([name, weight]) => ({ name, weight, style: styles.get(name)! }));
  const length = parts[0]!.style.length;
  const odd = parts.find((p) => p.style.length !== length);
  if (odd) throw new AppError(TTS_VOICE_INVALID, `voices ${parts[0]!.name} and ${odd.name} have different sizes (${length} and ${odd.style.length} floats)`);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    // Summed in float64, rounded once.
    let sum = 0;
    for (const p of parts) sum += p.weight * p.style[i]!;
    out[i] = sum;
  }
  return out;
}

/** Reads the voices a blend names from `dir` and blends them; unknown names fail before any file is read. */
export async function loadVoiceBlend(dir: string, blend: Readonly<Record<string, number>>): Promise<Float32Array> {
  validateBlend(blend, await listVoices(dir));
  const styles = new Map<string, Float32Array>();
  for (const name of Object.keys(blend)) styles.set(name, await readVoice(dir, name));
  return blendStyles(styles, blend);
}

/** The style row for an input of `phonemes` phonemes (pad tokens not counted), clamped to the rows there are. */
export function styleForLength(style: Float32Array, phonemes: number): Float32Array {
  const rows = style.length / STYLE_DIM;
  const row = Math.min(Math.max(Math.floor(phonemes), 0), rows - 1);
  return style.subarray(row * STYLE_DIM, (row + 1) * STYLE_DIM);
}

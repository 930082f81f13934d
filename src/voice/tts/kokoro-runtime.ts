/**
 * kokoro-js and transformers.js, imported so that they share the process's
 * onnxruntime-node. transformers.js 3.8 pins onnxruntime-node 1.21, which
 * npm installs inside it; the project's own (the Silero VAD's) is 1.30. Each
 * binding needs a libonnxruntime.so.1, and the dynamic linker hands the
 * second one the library already loaded, without its symbol versions: the
 * process dies (ERR_DLOPEN_FAILED, uncaught; no import rejects), whichever of
 * the VAD and Kokoro loads first. So transformers.js's imports of
 * onnxruntime-node and onnxruntime-common resolve to the project's copies
 * (same API; the stand-in model tests run Kokoro on them, next to the VAD in
 * the voice-turn test). With one copy installed (an npm override) the hook
 * changes nothing.
 */
import { register } from 'node:module';

type Transformers = typeof import('@huggingface/transformers');
type KokoroJs = typeof import('kokoro-js');

const RUNTIME_PACKAGES = ['onnxruntime-node', 'onnxruntime-common'];

/** Runs in Node's loader thread: a data: URL, so that it needs no file next to the compiled one. */
const RESOLVE_HOOK = `
const packages = ${JSON.stringify(RUNTIME_PACKAGES)};
const from = ${JSON.stringify(import.meta.url)};
export async function resolve(specifier, context, next) {
  if (packages.includes(specifier) && context.parentURL && context.parentURL.includes('/node_modules/@huggingface/transformers/')) {
    return next(specifier, { ...context, parentURL: from });
  }
  return next(specifier, context);
}
`;

let hooked = false;

function shareOnnxRuntime(): void {
  if (hooked) return;
  hooked = true;
  register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`);
}

/** transformers.js, on the project's onnxruntime-node. */
export async function importTransformers(): Promise<Transformers> {
  shareOnnxRuntime();
  return import('@huggingface/transformers');
}

/** kokoro-js (which imports transformers.js), on the project's onnxruntime-node. */
export async function importKokoroJs(): Promise<KokoroJs> {
  shareOnnxRuntime();
  return import('kokoro-js');
}

/**
 * Kokoro reads phonemes, not text. The predecessor's engine (kokoro-onnx)
 * made them with espeak-ng through Python's phonemizer, in the language of
 * `[voice.<lang>] lang`, keeping punctuation (it shapes the prosody), then
 * adjusted a few symbols to Kokoro's vocabulary. kokoro-js does the same
 * with espeak-ng compiled to wasm, but only for English and without
 * exporting it, so this runs Debian's espeak-ng (`-q --ipa`) per stretch of
 * text between punctuation, which also keeps espeak-ng's clause splitting
 * from losing the marks.
 */
import { AppError } from '../../errors/index.js';
import { TTS_ENGINE_FAILED, TTS_TIMEOUT, TTS_VOICE_UNKNOWN, ttsCancelled } from './errors.js';
import { lastLine, startEspeak, type SpawnFn } from './espeak-process.js';

/** kokoro-js's punctuation set: kept as they are, between phonemized stretches. */
const PUNCTUATION = ';:,.!?¡¿—…"«»“”(){}[]';
const PUNCTUATION_RUN = new RegExp(`(?:\\s*[${PUNCTUATION.replace(/[\]\\[^-]/g, '\\$&')}]+\\s*)+`, 'g');
/** espeak-ng marks a switch to another language's rules with "(en)" ... "(it)". */
const LANGUAGE_FLAG = /\([a-z]{2,3}(?:-[a-z0-9]+)*\)/gi;

/** A stretch of text phonemizes in about 10 ms; this only catches a stuck process. */
const PHONEMIZE_TIMEOUT_MS = 10_000;

export interface PhonemizeOptions {
  program?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  spawn?: SpawnFn;
}

/** IPA for Kokoro, from `text` in espeak-ng language `language` ("it", "en-us"). */
export async function phonemize(text: string, language: string, options: PhonemizeOptions = {}): Promise<string> {
  const pieces: Array<Promise<string>> = [];
  let last = 0;
  for (const match of text.matchAll(PUNCTUATION_RUN)) {
    if (match.index > last) pieces.push(ipa(text.slice(last, match.index), language, options));
    pieces.push(Promise.resolve(match[0]));
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push(ipa(text.slice(last), language, options));
  return toKokoroPhonemes((await Promise.all(pieces)).join(''), language);
}

/** kokoro-onnx's adjustments of espeak-ng's IPA to the symbols Kokoro was trained on. */
export function toKokoroPhonemes(ipa: string, language: string): string {
  let out = ipa
    .replace(/kəkˈoːɹoʊ/g, 'kˈoʊkəɹoʊ')
    .replace(/kəkˈɔːɹəʊ/g, 'kˈəʊkəɹəʊ')
    .replace(/ʲ/g, 'j')
    .replace(/r/g, 'ɹ')
    .replace(/x/g, 'k')
    .replace(/ɬ/g, 'l')
    .replace(/(?<=[a-zɹː])(?=hˈʌndɹɪd)/g, ' ')
    .replace(/ z(?=[;:,.!?¡¿—…"«»“” ]|$)/g, 'z');
  if (language === 'en-us') out = out.replace(/(?<=nˈaɪn)ti(?!ː)/g, 'di');
  return out.trim();
}

async function ipa(text: string, language: string, options: PhonemizeOptions): Promise<string> {
  if (text.trim() === '') return text;
  const { signal } = options;
  if (signal?.aborted) throw ttsCancelled('phonemization', signal.reason);
  const program = options.program ?? 'espeak-ng';
  const run = startEspeak(program, ['-q', '--ipa', '-v', language], text, options.spawn);
  const onAbort = (): void => run.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timeoutMs = options.timeoutMs ?? PHONEMIZE_TIMEOUT_MS;
  const timer = setTimeout(() => {
    timedOut = true;
    run.stop();
  }, timeoutMs);
  let stdout = '';
  run.child.stdout.setEncoding('utf8');
  run.child.stdout.on('data', (piece: string) => {
    stdout += piece;
  });
  try {
    const end = await run.ended;
    if (signal?.aborted) throw ttsCancelled('phonemization', signal.reason);
    if (timedOut) throw new AppError(TTS_TIMEOUT, `espeak-ng did not phonemize in ${timeoutMs} ms`, { retryable: true });
    if (end.error) throw new AppError(TTS_ENGINE_FAILED, `cannot run ${program} to phonemize: ${end.error.message}`, { cause: end.error });
    if (end.code !== 0) {
      const line = lastLine(run.stderrTail());
      if (/voice does not exist/i.test(line)) throw new AppError(TTS_VOICE_UNKNOWN, `espeak-ng cannot phonemize language ${JSON.stringify(language)}: it has no such voice`);
      throw new AppError(TTS_ENGINE_FAILED, `${program} failed to phonemize (status ${end.code ?? end.signal})${line ? `: ${line}` : ''}`);
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    run.stop();
  }
  // One line per clause; a stretch without punctuation is one clause, but a long one may be split.
  const lines = stdout.split('\n').map((line) => line.replace(LANGUAGE_FLAG, '').trim());
  return lines.filter((line) => line !== '').join(' ');
}

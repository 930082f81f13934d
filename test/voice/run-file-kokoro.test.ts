/**
 * A voice turn spoken by Kokoro: `run --input --output` (as in
 * run-file.test.ts) with `[tts] engine = "kokoro"` and `[kokoro] model` the
 * stand-in folder (scripts/make-kokoro-standin.py), whose tones tell, in the
 * reply WAV, which phonemes were spoken in which language's voice.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readWav } from '../../src/voice/audio/index.js';
import { loadVoiceBlend, phonemize, styleForLength } from '../../src/voice/tts/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { expectedTones, KOKORO_JS_VOICES, makeKokoroStandin, samplesPerToken, standinVocab, tokenIds, tonesHeard } from '../helpers/kokoro-standin.js';
import { CLI } from '../helpers/paths.js';
import type { CliRun } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
const VOICES = {
  en: { lang: 'en-us', blend: { af_heart: 1 } },
  it: { lang: 'it', blend: { if_sara: 0.8, af_bella: 0.2 } },
};
const RATE = 16_000;

let models: TempDir;
let model: string;
beforeAll(async () => {
  models = await makeTempDir('da-kokoro-standin-');
  model = await makeKokoroStandin(join(models.path, 'Kokoro-82M-v1.0-ONNX'));
}, 60_000);
afterAll(() => models.remove());

let home: TempDir;
let llm: ScriptedLlmServer;
beforeEach(async () => {
  home = await makeTempDir('da-run-file-kokoro-');
  llm = await startScriptedLlmServer({ split: { seed: 5, maxBytes: 9 } });
  const voices = Object.entries(VOICES)
    .map(([key, v]) => `[voice.${key}]\nlang = "${v.lang}"\nblend = { ${Object.entries(v.blend).map(([name, w]) => `${name} = ${w.toFixed(1)}`).join(', ')} }\n`)
    .join('');
  await home.write('config/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}[tts]\nengine = "kokoro"\n[kokoro]\nmodel = "${model}"\nvoices = "${KOKORO_JS_VOICES}"\n${voices}`);
});
afterEach(async () => {
  await llm.close();
  await home.remove();
});

function runFile(output: string): Promise<CliRun> {
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'run', '--config-dir', join(home.path, 'config'), '--input', CLIP, '--output', output], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('run --input --output with [tts] engine = "kokoro"', () => {
  it('speaks the reply through Kokoro into the WAV: each sentence in its language, as the stand-in makes it', async () => {
    const sentences = [
      { text: 'It is sunny in Rome today.', language: 'en' as const },
      { text: 'A Roma oggi il sole splende e fa caldo.', language: 'it' as const },
    ];
    llm.enqueue({ text: sentences.map((s) => s.text).join(' ') });
    const output = join(home.path, 'reply.wav');
    const run = await runFile(output);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${sentences.map((s) => s.text).join(' ')}\n`);
    const states = [...run.stderr.matchAll(/^\[state\] (\w+)$/gm)].map((m) => m[1]);
    expect(states).toEqual(['listening', 'thinking', 'speaking', 'idle']);

    const wav = await readWav(output);
    expect(wav.sampleRate).toBe(RATE);
    expect(wav.channels).toBe(1);
    // The reply is the two sentences' audio one after the other, nothing else.
    const vocab = await standinVocab(model);
    const per = samplesPerToken(RATE);
    let at = 0;
    for (const { text, language } of sentences) {
      const { lang, blend } = VOICES[language];
      const ids = tokenIds(await phonemize(text, lang), vocab);
      const style = styleForLength(await loadVoiceBlend(KOKORO_JS_VOICES, blend), ids.length - 2);
      const part = wav.samples.subarray(at, at + ids.length * per);
      expect({ language, tones: tonesHeard(part, ids, style, per, RATE) }).toEqual({ language, tones: expectedTones(ids) });
      at += ids.length * per;
    }
    expect(wav.samples.length).toBe(at);
    // Speech length: 75 ms a phoneme, a few seconds for two sentences.
    expect(wav.samples.length / RATE).toBeGreaterThan(4);
  }, 60_000);
});

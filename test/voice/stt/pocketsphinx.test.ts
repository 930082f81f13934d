import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../../src/voice/audio/index.js';
import { PocketsphinxStt, STT_BAD_OPTIONS, STT_CANCELLED, STT_ENGINE_FAILED, STT_MODEL_MISSING, STT_TIMEOUT } from '../../../src/voice/stt/index.js';
import { wordErrorRate } from '../../support/wer.js';
import { SAMPLE_RATE, type Transcript } from '../../../src/voice/types.js';
import { collect, failure } from '../../helpers/outcomes.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const LIBRIVOX = join(DATA, 'librivox');
const available = existsSync('/usr/bin/pocketsphinx_continuous') && existsSync(join(LIBRIVOX, 'transcription'));

async function samplesOf(path: string): Promise<Int16Array> {
  const wav = await readWav(path);
  expect([wav.sampleRate, wav.channels]).toEqual([SAMPLE_RATE, 1]);
  return wav.samples;
}

/** Live (not zombie) processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}

/** `<s> words </s> (id)` lines. */
function transcriptions(): Array<{ id: string; text: string }> {
  return readFileSync(join(LIBRIVOX, 'transcription'), 'utf8')
    .split('\n')
    .map((line) => /^(.*)\((\S+)\)\s*$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ id: match[2]!, text: match[1]!.replace(/<\/?s>/g, '').trim() }));
}

describe.skipIf(!available)('PocketsphinxStt on real speech', () => {
  const measured: Array<{ id: string; wer: number; seconds: number; rtf: number; confidence: number | undefined }> = [];

  afterAll(() => {
    if (measured.length === 0) return;
    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    const rows = measured.map((m) => `  ${m.id}: WER ${(m.wer * 100).toFixed(1)}%, ${m.seconds.toFixed(2)} s audio, RTF ${m.rtf.toFixed(2)}, confidence ${m.confidence?.toFixed(2)}`);
    const average = `  average: WER ${(mean(measured.map((m) => m.wer)) * 100).toFixed(1)}%, RTF ${mean(measured.map((m) => m.rtf)).toFixed(2)}`;
    console.log(`pocketsphinx on librivox:\n${rows.join('\n')}\n${average}`);
  });

  it.each(transcriptions())('recognizes $id with a word error rate under 60%', { timeout: 60_000 }, async ({ id, text }) => {
    const audio = await samplesOf(join(LIBRIVOX, `${id}.wav`));
    const started = performance.now();
    const results = await collect(new PocketsphinxStt().transcribe(audio));
    const elapsed = (performance.now() - started) / 1000;
    expect(results).toHaveLength(1);
    const [final] = results;
    expect(final).toMatchObject({ final: true, language: 'en' });
    expect(final!.confidence).toBeGreaterThan(0);
    expect(final!.confidence).toBeLessThanOrEqual(1);
    const wer = wordErrorRate(text, final!.text);
    const seconds = audio.length / SAMPLE_RATE;
    measured.push({ id, wer, seconds, rtf: elapsed / seconds, confidence: final!.confidence });
    expect(wer).toBeLessThan(0.6);
  });

  describe('with a JSGF grammar', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'stt-jsgf-'));
      writeFileSync(join(dir, 'commands.gram'), '#JSGF V1.0;\ngrammar commands;\npublic <command> = (turn on | turn off) the (light | radio | heater);\n');
      for (const [name, sentence] of [['light', 'turn on the light'], ['radio', 'turn off the radio']]) {
        execFileSync('espeak-ng', ['-w', join(dir, `${name}-22k.wav`), sentence!]);
        execFileSync('sox', [join(dir, `${name}-22k.wav`), '-r', '16000', '-c', '1', '-b', '16', join(dir, `${name}.wav`)]);
      }
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('recognizes synthesized commands exactly', { timeout: 30_000 }, async () => {
      const stt = new PocketsphinxStt({ jsgf: join(dir, 'commands.gram') });
      const light = await collect(stt.transcribe(await samplesOf(join(dir, 'light.wav'))));
      expect(light).toEqual([{ text: 'turn on the light', final: true, language: 'en', confidence: expect.any(Number) }]);
      expect(light[0]!.confidence).toBeGreaterThan(0.9);
      const radio = await collect(stt.transcribe(await samplesOf(join(dir, 'radio.wav'))));
      expect(radio[0]?.text).toBe('turn off the radio');
    });
  });

  describe('stopping', () => {
    let long: Int16Array;
    beforeAll(async () => {
      // About 50 s of speech: several seconds of decoding, time enough to stop it midway.
      const clips = await Promise.all(transcriptions().map(({ id }) => samplesOf(join(LIBRIVOX, `${id}.wav`))));
      const once = clips.flatMap((clip) => Array.from(clip));
      long = Int16Array.from([...once, ...once]);
    });

    it('kills the recognizer on abort and removes its temporary file', { timeout: 30_000 }, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'stt-abort-'));
      try {
        const controller = new AbortController();
        const pending = failure(collect(new PocketsphinxStt({ tmpDir: dir }).transcribe(long, { signal: controller.signal })));
        await expect.poll(() => processesWith(dir).length, { timeout: 10_000 }).toBe(1);
        controller.abort();
        expect((await pending).code).toBe(STT_CANCELLED);
        await expect.poll(() => processesWith(dir), { timeout: 2000 }).toEqual([]);
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('gives up after its timeout', { timeout: 30_000 }, async () => {
      const error = await failure(collect(new PocketsphinxStt({ timeoutMs: 300 }).transcribe(long)));
      expect(error).toEqual({ code: STT_TIMEOUT, message: 'pocketsphinx_continuous did not finish within 300 ms' });
    });
  });

  it("reports pocketsphinx's own error when it fails", { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stt-badmodel-'));
    try {
      const error = await failure(collect(new PocketsphinxStt({ hmm: dir }).transcribe(new Int16Array(1600))));
      expect(error.code).toBe(STT_ENGINE_FAILED);
      expect(error.message).toContain(`pocketsphinx_continuous failed (exit 1): ERROR: "acmod.c", line 78: Folder '${dir}' does not contain acoustic model definition 'mdef'`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('PocketsphinxStt without pocketsphinx', () => {
  it('runs the program with the model, -time yes, the decoder flags and the utterance as a WAV', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stt-argv-'));
    try {
      // Stands in for pocketsphinx_continuous: prints its arguments as the hypothesis, then checks the WAV header.
      const program = join(dir, 'echo-args');
      writeFileSync(program, '#!/bin/sh\necho "$@"\nfor last; do :; done\nhead -c 4 "$last" | grep -q RIFF\n', { mode: 0o755 });
      const stt = new PocketsphinxStt({ binary: program, hmm: dir, dict: dir, jsgf: program, decoder: { lw: '5', fwdflat: 'yes' } });
      const [result] = await collect(stt.transcribe(new Int16Array(160)));
      expect(result?.text).toMatch(new RegExp(`^-time yes -hmm ${dir} -dict ${dir} -jsgf ${program} -fwdflat yes -lw 5 -infile /\\S+/utterance\\.wav$`));
      expect(() => new PocketsphinxStt({ decoder: { lm: '/other.lm' } })).toThrow(expect.objectContaining({ code: STT_BAD_OPTIONS }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a missing model path when built', () => {
    expect(() => new PocketsphinxStt({ hmm: '/nonexistent/en-us' })).toThrow(
      expect.objectContaining({ code: STT_MODEL_MISSING, message: 'pocketsphinx acoustic model folder (-hmm) not found: /nonexistent/en-us' }),
    );
    expect(() => new PocketsphinxStt({ hmm: tmpdir(), dict: tmpdir(), jsgf: '/nonexistent/commands.gram' })).toThrow(
      expect.objectContaining({ code: STT_MODEL_MISSING, message: 'pocketsphinx JSGF grammar (-jsgf) not found: /nonexistent/commands.gram' }),
    );
  });

  it('says when the program cannot run, and answers empty audio without running it', async () => {
    const stt = new PocketsphinxStt({ binary: '/nonexistent/pocketsphinx_continuous', hmm: tmpdir(), dict: tmpdir(), lm: tmpdir() });
    expect(await collect(stt.transcribe(new Int16Array(0)))).toEqual([{ text: '', final: true, language: 'en' }]);
    expect(await failure(collect(stt.transcribe(new Int16Array(1600))))).toEqual({
      code: STT_ENGINE_FAILED,
      message: 'cannot run /nonexistent/pocketsphinx_continuous: No such file or directory',
    });
  });
});

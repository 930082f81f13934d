import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWav } from '../../src/voice/audio/index.js';
import { wordErrorRate } from '../support/wer.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { CLI } from '../helpers/paths.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const CLIP = join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0870.wav');
const CLIP_WORDS = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them';

let home: TempDir;
let llm: ScriptedLlmServer;
let env: Record<string, string>;

beforeEach(async () => {
  home = await makeTempDir('da-run-file-');
  llm = await startScriptedLlmServer({ split: { seed: 11, maxBytes: 13 } });
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
  await home.write('config/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}`);
  await home.write('config/tools/now.toml', 'description = "The current date and time"\ncommand = ["echo", "Monday 30 November 2026, 15:30"]\nannounce.en = ["Let me look at the clock."]\n');
});
afterEach(async () => {
  await llm.close();
  await home.remove();
});

function runFile(input: string, output: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'run', '--config-dir', join(home.path, 'config'), '--input', input, '--output', output], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('run --input --output: a voice turn from a WAV of real speech', () => {
  it('hears the recording (pocketsphinx), runs the tool the scripted LLM asks for, speaks the reply (espeak-ng) into a WAV, and audits the call', async () => {
    llm.enqueue({ toolCalls: [{ name: 'now', arguments: '{}' }] }, (request) => ({
      text: `It is ${String(request.messages.find((m) => m.role === 'tool')?.content).split(',')[0]}. Have a nice day!`,
    }));
    const output = join(home.path, 'reply.wav');
    const run = await runFile(CLIP, output);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('It is Monday 30 November 2026. Have a nice day!\n');

    // The recognizer's words reached the LLM as the user's message.
    const heard = String(llm.requests[0]?.messages.at(-1)?.content);
    expect(wordErrorRate(CLIP_WORDS, heard)).toBeLessThan(0.6);

    // The states, in order, from the terminal reporter.
    const states = [...run.stderr.matchAll(/^\[state\] (\w+)$/gm)].map((m) => m[1]);
    const firsts = states.filter((s, i) => states.indexOf(s) === i);
    expect(firsts).toEqual(['listening', 'thinking', 'tool_running', 'speaking', 'idle']);
    expect(states.at(-1)).toBe('idle');

    // The reply WAV: 16 kHz mono speech, announcement and reply, a few seconds long.
    expect(existsSync(output)).toBe(true);
    const wav = await readWav(output);
    expect(wav.sampleRate).toBe(16_000);
    expect(wav.channels).toBe(1);
    expect(wav.samples.length / 16_000).toBeGreaterThan(2);
    expect(Math.max(...wav.samples.subarray(0, 16_000 * 2).map(Math.abs))).toBeGreaterThan(1000);

    const audit = await runCli(['audit', '--json', '--config-dir', join(home.path, 'config')], env);
    expect(JSON.parse(audit.stdout.trim().split('\n')[0] ?? '{}')).toMatchObject({ tool: 'now', entry: 'voice', status: 'ok', decision: 'allow' });
  });

  it('goes thinking -> speaking -> idle: idle only after the reply has played, however fast the reply was written', async () => {
    // The whole reply arrives before the speech synthesizer has made its first audio.
    llm.enqueue({ text: 'Sure. It is sunny.' });
    const run = await runFile(CLIP, join(home.path, 'reply.wav'));
    expect(run.code, run.stderr).toBe(0);
    const states = [...run.stderr.matchAll(/^\[state\] (\w+)$/gm)].map((m) => m[1]);
    expect(states).toEqual(['listening', 'thinking', 'speaking', 'idle']);
  });

  it('a spoken question (espeak-ng), heard through a JSGF grammar, is answered with the tool', async () => {
    // Free-speech pocketsphinx mishears espeak-ng's voice; fixed commands are what a grammar is for.
    const grammar = await home.write('config/commands.jsgf', '#JSGF V1.0;\ngrammar commands;\npublic <command> = what time is it | what is the weather in rome | turn on the light;\n');
    await home.write('config/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n`);
    const raw = join(home.path, 'question-22k.wav');
    const question = join(home.path, 'question.wav');
    await new Promise((resolve, reject) => execFile('espeak-ng', ['-w', raw, 'what time is it'], (e) => (e ? reject(e) : resolve(undefined))));
    // A pause after the question, as a speaker leaves one, so the VAD ends the utterance before the file does.
    await new Promise((resolve, reject) => execFile('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', question, 'pad', '0.5', '1'], (e) => (e ? reject(e) : resolve(undefined))));
    llm.enqueue(
      (request) => (String(request.messages.at(-1)?.content).includes('time') ? { toolCalls: [{ name: 'now', arguments: '{}' }] } : { text: 'I did not hear a question about the time.' }),
      { text: 'It is half past three.' },
    );
    const run = await runFile(question, join(home.path, 'reply.wav'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/\[heard\] what time is it/);
    expect(run.stdout).toBe('It is half past three.\n');
    expect(run.stderr).toMatch(/\[tool\] now: ok/);
  });

  it('answers nothing and says so when the file holds no speech, without asking the LLM', async () => {
    const silence = join(home.path, 'silence.wav');
    await new Promise((resolve, reject) => execFile('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silence, 'trim', '0', '2'], (e) => (e ? reject(e) : resolve(undefined))));
    const run = await runFile(silence, join(home.path, 'out.wav'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('0 utterances heard, 0 answered');
    expect(llm.requests).toHaveLength(0);
  });

  it('names a file that is not a WAV', async () => {
    const bogus = await home.write('bogus.wav', 'not audio at all');
    const run = await runFile(bogus, join(home.path, 'out.wav'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bogus\.wav/);
  });
});

/**
 * What a newcomer sees on the terminal: `doctor` and `run` on this machine
 * (no sound card: PortAudio's probe makes ALSA and JACK print dozens of
 * lines unless native/audio-quiet catches them), and `run` on PulseAudio
 * devices (naudiodon prints every stream's options unless C stdio's stdout
 * is pointed away). The voice starts by default when it can, and the
 * daemon says why when it cannot.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/paths.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { startPulseForTests } from '../helpers/pulse.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

/** The libraries' own prints, as they looked before they were caught. */
const LIBRARY_NOISE = [/^ALSA lib /m, /jack server is not running/, /Cannot connect to server/, /JackShmReadWritePtr/, /device name is/, /^PortAudio V19/m, /^(Input|Output) (Device|Channel|Sample|Frames)/m];

function noiseIn(text: string): string[] {
  return LIBRARY_NOISE.filter((pattern) => pattern.test(text)).map(String);
}

let home: TempDir;
let env: Record<string, string>;
beforeEach(async () => {
  home = await makeTempDir('da-quiet-');
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  await home.write('config/config.toml', ONLY_TOOL_FILES);
});
afterEach(() => home.remove());

interface RunningDaemon {
  url: string;
  token: string;
  output: () => { stdout: string; stderr: string };
  stop(): Promise<number | null>;
}

async function startRun(extraEnv: Record<string, string> = {}): Promise<RunningDaemon> {
  const child = spawn(process.execPath, [CLI, 'run', '--port', '0', '--config-dir', join(home.path, 'config')], { env: { ...process.env, ...env, ...extraEnv } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await waitFor(() => /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined), 'the daemon to start', 30_000);
  if (url === 'exited') throw new Error(`run exited ${child.exitCode}: ${stderr}`);
  await waitFor(() => (/^voice: /m.test(stdout) ? true : undefined), 'the voice line', 5000);
  const token = (await runCli(['token'], { ...env, ...extraEnv })).stdout.trim();
  return {
    url,
    token,
    output: () => ({ stdout, stderr }),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('a quiet terminal on a machine without a sound card', () => {
  it('doctor: the report, and no line from ALSA or JACK', async () => {
    const run = await runCli(['doctor', '--no-sound', '--config-dir', join(home.path, 'config')], env);
    expect(run.stdout).toContain('audio devices');
    expect(noiseIn(run.stdout)).toEqual([]);
    expect(noiseIn(run.stderr)).toEqual([]);
    // What the libraries said that matters is one structured line, if anything.
    for (const line of run.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  }, 60_000);

  it('run: the daemon starts for text with one line saying which device is missing; /state and the page have the reason', async () => {
    const daemon = await startRun();
    try {
      const { stdout } = daemon.output();
      const voiceLine = /^voice: (.*)$/m.exec(stdout)?.[1] ?? '';
      // A machine with sound devices after all: the voice is on, and the rest is for machines without.
      if (voiceLine.startsWith('on')) return expect(voiceLine).toMatch(/^on \(/);
      expect(voiceLine).toMatch(/^off: no (microphone|speaker) found/);
      expect(voiceLine).toContain('[audio] input / output');
      expect(voiceLine).toContain('desktop-assistant doctor');
      const state = await (await fetch(`${daemon.url}/state`, { headers: { authorization: `Bearer ${daemon.token}` } })).json();
      expect(state.voice).toMatchObject({ enabled: false, listening: false });
      expect(state.voice.off).toMatch(/^no (microphone|speaker) found/);
      const listen = await fetch(`${daemon.url}/listen/start`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}` } });
      expect(listen.status).toBe(409);
      expect((await listen.json()).error.message).toContain('no microphone found');
      // Text still works: the tools are there.
      const tools = await (await fetch(`${daemon.url}/tools`, { headers: { authorization: `Bearer ${daemon.token}` } })).json();
      expect(Array.isArray(tools.tools)).toBe(true);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
    const { stdout, stderr } = daemon.output();
    expect(noiseIn(stdout)).toEqual([]);
    expect(noiseIn(stderr)).toEqual([]);
  }, 60_000);

  it('[voice] enabled = true keeps the refusal: no voice, no daemon', async () => {
    await home.write('config/config.toml', `${ONLY_TOOL_FILES}[voice]\nenabled = true\n`);
    const run = await runCli(['run', '--port', '0', '--config-dir', join(home.path, 'config')], env);
    if (run.code === 0) return expect(run.stdout).toContain('voice: on'); // sound devices here: the voice started
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the voice cannot start: no');
    expect(run.stderr).toContain('--no-voice');
    expect(noiseIn(run.stderr)).toEqual([]);
  }, 60_000);
});

const { pulse, skipReason } = await startPulseForTests('quiet terminal on PulseAudio');

describe.skipIf(skipReason !== undefined)('a quiet terminal with sound devices (a private PulseAudio)', () => {
  it('run: the voice is on by default, and opening and closing its streams prints nothing of naudiodon’s', async () => {
    if (!pulse.ok) throw new Error(pulse.reason);
    const daemon = await startRun(pulse.server.env);
    try {
      expect(daemon.output().stdout).toMatch(/^voice: on \(turn_based\)$/m);
      const state = await (await fetch(`${daemon.url}/state`, { headers: { authorization: `Bearer ${daemon.token}` } })).json();
      expect(state.voice).toEqual({ enabled: true, listening: false });
      const started = await fetch(`${daemon.url}/listen/start`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}` } });
      expect(await started.json()).toEqual({ listening: true });
      const stopped = await fetch(`${daemon.url}/listen/stop`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}` } });
      expect(await stopped.json()).toEqual({ stopped: true, listening: false });
    } finally {
      expect(await daemon.stop()).toBe(0);
      await pulse.server.stop();
    }
    const { stdout, stderr } = daemon.output();
    expect(noiseIn(stdout)).toEqual([]);
    expect(noiseIn(stderr)).toEqual([]);
  }, 60_000);
});

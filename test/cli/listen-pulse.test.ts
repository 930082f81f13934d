/**
 * `desktop-assistant listen` against a real daemon (`run` as a child
 * process): no daemon, a daemon without the voice, a token that is missing
 * or wrong, and, on a private PulseAudio null sink, start, stop and toggle
 * flipping what GET /state says. The PulseAudio part is skipped, with the
 * reason, where PulseAudio or naudiodon cannot run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { freePort, startDaemonProcess } from '../helpers/daemon-process.js';
import { startPulseForTests } from '../helpers/pulse.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

const { pulse, skipReason } = await startPulseForTests('listen on PulseAudio test');
afterAll(async () => {
  if (pulse.ok) await pulse.server.stop();
});

interface RunningDaemon {
  url: string;
  state(): Promise<{ state: string; voice: { enabled: boolean; listening: boolean } }>;
  stop(): Promise<void>;
}

/** `desktop-assistant run ...` in its own process group (pocketsphinx and the tools server go with it). */
async function startRun(args: string[], env: Record<string, string>, tokenFile: string): Promise<RunningDaemon> {
  const daemon = await startDaemonProcess({ args, env: { ...process.env, ...env }, tokenFile });
  const state = async () => (await (await fetch(`${daemon.url}/state`, { headers: { authorization: `Bearer ${daemon.token}` } })).json()) as Awaited<ReturnType<RunningDaemon['state']>>;
  return { url: daemon.url, state, stop: () => daemon.stop() };
}

describe('desktop-assistant listen, without the voice', () => {
  let home: TempDir;
  let env: Record<string, string>;
  let port: number;
  let configDir: string;
  let daemon: RunningDaemon | undefined;

  beforeEach(async () => {
    home = await makeTempDir('da-listen-');
    port = await freePort();
    configDir = join(home.path, 'config');
    env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run'), DESKTOP_ASSISTANT_CONFIG_DIR: '' };
    await home.write('config/config.toml', `${ONLY_TOOL_FILES}[http]\nport = ${port}\n`);
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await home.remove();
  });

  it('with no daemon, says none answers at the configured port and how to start one (exit 1)', async () => {
    for (const action of ['start', 'stop', 'toggle']) {
      const result = await runCli(['listen', action, '--config-dir', configDir], env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`no daemon answers at http://127.0.0.1:${port}: start it with \`desktop-assistant run\``);
      expect(result.stdout).toBe('');
    }
  });

  it('refuses an unknown action or two actions as usage errors (exit 2)', async () => {
    const unknown = await runCli(['listen', 'pause', '--config-dir', configDir], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('the action is start, stop or toggle, not pause');
    expect((await runCli(['listen', 'start', 'stop', '--config-dir', configDir], env)).code).toBe(2);
    expect((await runCli(['listen', '--port', 'eighty', '--config-dir', configDir], env)).stderr).toContain('--port must be a port number');
  });

  it('against `run --no-voice`: start and toggle say the voice is off and how to turn it on (VOICE_DISABLED, exit 1)', async () => {
    daemon = await startRun(['--no-voice', '--config-dir', configDir], env, join(home.path, 'run', 'desktop-assistant', 'api-token'));
    expect(daemon.url).toBe(`http://127.0.0.1:${port}`);
    for (const action of ['start', 'toggle', 'stop']) {
      const result = await runCli(['listen', action, '--config-dir', configDir], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the daemon at http://127.0.0.1:${port} runs without the voice (VOICE_DISABLED): the voice is not running`);
      expect(result.stderr).toContain('to talk to it: restart the daemon without --no-voice and with the voice enabled in config.toml');
    }
    // --port reaches it from a config folder that names another port.
    const elsewhere = await runCli(['listen', 'start', '--config-dir', join(home.path, 'no-such-config'), '--port', String(port)], env);
    expect(elsewhere.stderr).toContain('(VOICE_DISABLED)');
  });

  it('against a daemon whose token it cannot find, or whose token is another, names the token file (exit 1)', async () => {
    daemon = await startRun(['--no-voice', '--config-dir', configDir], env, join(home.path, 'run', 'desktop-assistant', 'api-token'));
    const otherRuntime = join(home.path, 'other-run');
    const missing = await runCli(['listen', 'start', '--config-dir', configDir], { ...env, XDG_RUNTIME_DIR: otherRuntime });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`a daemon answers at http://127.0.0.1:${port} but there is no token at ${join(otherRuntime, 'desktop-assistant', 'api-token')}`);

    mkdirSync(join(otherRuntime, 'desktop-assistant'), { recursive: true, mode: 0o700 });
    writeFileSync(join(otherRuntime, 'desktop-assistant', 'api-token'), `${'x'.repeat(43)}\n`, { mode: 0o600 });
    const wrong = await runCli(['listen', 'start', '--config-dir', configDir], { ...env, XDG_RUNTIME_DIR: otherRuntime });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the daemon at http://127.0.0.1:${port} refused the token in ${join(otherRuntime, 'desktop-assistant', 'api-token')} (401)`);
  });
});

describe.skipIf(skipReason !== undefined)('desktop-assistant listen, on a daemon with the voice on a PulseAudio null sink', () => {
  let home: TempDir | undefined;
  let daemon: RunningDaemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await home?.remove();
  });

  it('start, stop and toggle flip GET /state voice.listening; a second start is VOICE_BUSY; stop when idle is "not listening"', async () => {
    if (!pulse.ok) throw new Error('unreachable');
    home = await makeTempDir('da-listen-voice-');
    const port = await freePort();
    const configDir = join(home.path, 'config');
    // A grammar: the recognizer starts in a moment instead of loading the full language model.
    const grammar = await home.write('config/commands.jsgf', '#JSGF V1.0;\ngrammar commands;\npublic <command> = what time is it;\n');
    await home.write('config/config.toml', `${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n[http]\nport = ${port}\n`);
    // The sink stays silent: a recording goes on until it is stopped.
    const env = { ...pulse.server.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), DESKTOP_ASSISTANT_CONFIG_DIR: '' };
    daemon = await startRun(['--config-dir', configDir], env, join(pulse.server.env.XDG_RUNTIME_DIR!, 'desktop-assistant', 'api-token'));
    const listen = (action: string) => runCli(['listen', action, '--config-dir', configDir], env);
    const listening = async () => (await daemon!.state()).voice.listening;

    expect(await daemon.state()).toMatchObject({ voice: { enabled: true, listening: false } });
    expect(await listen('start')).toMatchObject({ code: 0, stdout: 'listening\n' });
    expect(await listening()).toBe(true);
    const busy = await listen('start');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('the voice is busy (VOICE_BUSY)');
    expect(await listen('stop')).toMatchObject({ code: 0, stdout: 'stopped\n' });
    expect(await listening()).toBe(false);
    // The recording that stop ended is still being finished (no speech: dropped); then the voice is free again.
    await waitFor(async () => ((await daemon!.state()).state === 'idle' ? true : undefined), 'the voice to be idle', 10_000);
    expect(await listen('stop')).toMatchObject({ code: 0, stdout: 'not listening\n' });

    expect(await listen('toggle')).toMatchObject({ code: 0, stdout: 'listening\n' });
    expect(await listening()).toBe(true);
    expect(await listen('toggle')).toMatchObject({ code: 0, stdout: 'stopped\n' });
    expect(await listening()).toBe(false);
  }, 60_000);
});

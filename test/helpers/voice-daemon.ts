/**
 * `desktop-assistant run`, turn-based, on a restartable private PulseAudio
 * (test/support/restartable-pulse.ts), with a scripted LLM: the daemon the
 * sound-server and device-removal tests drive through its HTTP API.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, expect } from 'vitest';
import { messageOf } from '../../src/errors/index.js';
import { loadPortAudio } from '../../src/voice/devices/index.js';
import { startScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { startRestartablePulse, type RestartablePulse } from '../support/restartable-pulse.js';
import { ONLY_TOOL_FILES } from './config-snippets.js';
import { freePort, startDaemonProcess } from './daemon-process.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

const run = promisify(execFile);

export interface VoiceState {
  state: string;
  voice: { enabled: boolean; listening: boolean; missing?: { device: string; message: string; sinceMs: number }[] };
}


export interface VoiceDaemon {
  url: string;
  pid: number;
  state(): Promise<VoiceState>;
  listenStart(): Promise<{ status: number; body: { listening?: boolean; error?: { code: string; message: string } } }>;
  listenStop(): Promise<void>;
  /** What the terminal reporter printed so far. */
  stderr(): string;
  alive(): void;
  stop(): Promise<void>;
}

/** `desktop-assistant run`, turn-based, on the restartable server, with a scripted LLM; in its own process group. */
export async function startVoiceDaemon(server: RestartablePulse, home: TempDir, llmUrl: string): Promise<VoiceDaemon> {
  const port = await freePort();
  const configDir = join(home.path, 'config');
  const grammar = await home.write('config/commands.jsgf', '#JSGF V1.0;\ngrammar commands;\npublic <command> = turn on the light | what time is it;\n');
  await home.write('config/config.toml', `llm = "${llmUrl}"\n${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n[http]\nport = ${port}\n[voice]\nenabled = true\n`);
  const env = { ...process.env, ...server.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), DESKTOP_ASSISTANT_CONFIG_DIR: '' };
  const daemon = await startDaemonProcess({ args: ['--config-dir', configDir], env, tokenFile: join(server.env.XDG_RUNTIME_DIR!, 'desktop-assistant', 'api-token') });
  const { url } = daemon;
  const headers = { authorization: `Bearer ${daemon.token}` };
  return {
    url,
    pid: daemon.pid,
    state: async () => (await (await fetch(`${url}/state`, { headers })).json()) as VoiceState,
    listenStart: async () => {
      const response = await fetch(`${url}/listen/start`, { method: 'POST', headers });
      return { status: response.status, body: (await response.json()) as { listening?: boolean; error?: { code: string; message: string } } };
    },
    listenStop: async () => {
      await fetch(`${url}/listen/stop`, { method: 'POST', headers });
    },
    stderr: () => daemon.stderr(),
    alive: () => expect(daemon.exitCode(), `the daemon exited: ${daemon.stderr().slice(-2000)}`).toBeNull(),
    stop: () => daemon.stop(),
  };
}

export async function spokenQuestion(home: TempDir, text: string): Promise<string> {
  const raw = join(home.path, 'q22.wav');
  const wav = join(home.path, 'question.wav');
  await run('espeak-ng', ['-w', raw, text]);
  await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav, 'pad', '0.3', '1.2']);
  return wav;
}

/** Eight sentences: a reply long enough to be cut off while it plays. */
export const LONG_REPLY = Array.from({ length: 8 }, (_, i) => `This is sentence number ${i + 1} of a long answer about the light.`).join(' ');

/**
 * For a test file of daemons on a restartable PulseAudio: starts it once (stopped after the
 * file), or gives the reason it cannot run here (no naudiodon, no PulseAudio), which the
 * file's suite skips with.
 */
export async function restartablePulseForTests(what: string): Promise<{ pulse: RestartablePulse | undefined; skipReason: string | undefined }> {
  try {
    loadPortAudio();
    const pulse = await startRestartablePulse();
    afterAll(() => pulse.stop());
    return { pulse, skipReason: undefined };
  } catch (error) {
    console.warn(`${what} on PulseAudio skipped: ${messageOf(error)}`);
    return { pulse: undefined, skipReason: messageOf(error) };
  }
}

/** One test's home folder, scripted LLM and daemon, made by `start` and removed after each test. */
export function voiceDaemonPerTest(server: () => RestartablePulse): { start(prefix: string): Promise<{ home: TempDir; llm: Awaited<ReturnType<typeof startScriptedLlmServer>>; daemon: VoiceDaemon; spoken: string }> } {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
  return {
    async start(prefix) {
      const home = await makeTempDir(prefix);
      const llm = await startScriptedLlmServer();
      let daemon: VoiceDaemon | undefined;
      cleanup = async () => {
        await daemon?.stop();
        await llm.close();
        await home.remove();
      };
      const spoken = await spokenQuestion(home, 'turn on the light');
      daemon = await startVoiceDaemon(server(), home, llm.url);
      return { home, llm, daemon, spoken };
    },
  };
}

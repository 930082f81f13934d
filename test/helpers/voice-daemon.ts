/**
 * `desktop-assistant run`, turn-based, on a restartable private PulseAudio
 * (test/support/restartable-pulse.ts), with a scripted LLM: the daemon the
 * sound-server and device-removal tests drive through its HTTP API.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { RestartablePulse } from '../support/restartable-pulse.js';
import { ONLY_TOOL_FILES } from './config-snippets.js';
import { CLI } from './paths.js';
import type { TempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface VoiceState {
  state: string;
  voice: { enabled: boolean; listening: boolean; missing?: { device: string; message: string; sinceMs: number }[] };
}

/** The daemon's direct children (pocketsphinx runs in-process; the tools server is one). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent pid is the 2nd field after the parenthesised command name.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
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
  const child = spawn(process.execPath, [CLI, 'run', '--config-dir', configDir], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    }
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  try {
    const url = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}): ${stderr.slice(-2000)}`);
        return /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)?.[1];
      },
      'the daemon to start',
      30_000,
    );
    const token = readFileSync(join(server.env.XDG_RUNTIME_DIR!, 'desktop-assistant', 'api-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}` };
    return {
      url,
      pid: child.pid!,
      state: async () => (await (await fetch(`${url}/state`, { headers })).json()) as VoiceState,
      listenStart: async () => {
        const response = await fetch(`${url}/listen/start`, { method: 'POST', headers });
        return { status: response.status, body: (await response.json()) as { listening?: boolean; error?: { code: string; message: string } } };
      },
      listenStop: async () => {
        await fetch(`${url}/listen/stop`, { method: 'POST', headers });
      },
      stderr: () => stderr,
      alive: () => expect(child.exitCode, `the daemon exited: ${stderr.slice(-2000)}`).toBeNull(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function spokenQuestion(home: TempDir, text: string): Promise<string> {
  const raw = join(home.path, 'q22.wav');
  const wav = join(home.path, 'question.wav');
  await run('espeak-ng', ['-w', raw, text]);
  await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav, 'pad', '0.3', '1.2']);
  return wav;
}

/**
 * The real daemon as a child process, for benchmarks that measure it from
 * outside: `node dist/src/host/cli/main.js run --config-dir DIR` with an
 * allow-listed environment, its URL and token read from what it prints, its
 * events followed over `GET /events`, and requests sent with its token.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AssistantEvent } from '../../src/events/index.js';

const runFile = promisify(execFile);

/** The compiled CLI, beside this file's own compiled copy (dist/bench/lib/ -> dist/src/host/cli/). */
export const CLI = fileURLToPath(new URL('../../src/host/cli/main.js', import.meta.url));

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const RUNNING = /is running at (http:\/\/\S+?)\/? \(the token is in (.+?);/;

/** An event as the daemon streamed it, with when this process received it (Date.now(), the daemon's event clock too). */
export type ReceivedEvent = AssistantEvent & { seq: number; receivedAtMs: number };

export interface DaemonProcess {
  readonly url: string;
  readonly events: readonly ReceivedEvent[];
  /** The last `state.changed` state; 'idle' before any. */
  readonly state: string;
  /** How it exited, once it has (a crash in the middle of a run). */
  readonly exited: string | undefined;
  /** Output underflows its speaker had so far (its `audio_output_underflow` log lines, read every 5 s and at the end). */
  readonly underflows: number;
  post(path: string): Promise<{ status: number; body: unknown }>;
  /** SIGTERM (the daemon closes its voice, hub and API), then SIGKILL to its process group. */
  stop(): Promise<void>;
}

export type DaemonStart = { ok: true; daemon: DaemonProcess } | { ok: false; reason: string };

/** `config check`: undefined when the folder is valid, else its last error line (an unknown `[stt] engine`, say). */
export async function configProblem(configDir: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    await runFile(process.execPath, [CLI, 'config', 'check', '--config-dir', configDir], { env, timeout: 30_000 });
    return undefined;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !/^\d+ errors? in /.test(l));
    return `config check failed: ${lines.slice(-2).join(' | ') || String(error)}`;
  }
}

/** Children not stopped yet, killed by group if this process exits without its cleanup running. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/** Starts `run --config-dir DIR`; never throws: a daemon that exits or stays silent is a reason. */
export async function startDaemonProcess(configDir: string, env: NodeJS.ProcessEnv): Promise<DaemonStart> {
  // Its own process group: pocketsphinx and the MCP servers it spawns go with it.
  const child = spawn(process.execPath, [CLI, 'run', '--config-dir', configDir], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let underflows = 0;
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    for (const match of text.matchAll(/"event":"audio_output_underflow","total":(\d+)/g)) underflows = Math.max(underflows, Number(match[1]));
    stderr = (stderr + text).slice(-4000);
  });
  const started = await new Promise<{ url: string; tokenFile: string } | string>((resolve) => {
    const timer = setTimeout(() => resolve(`the daemon did not say it was running within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = RUNNING.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, tokenFile: match[2]! });
      }
    });
    child.once('error', (error) => resolve(`the daemon cannot be started: ${error.message}`));
    child.once('exit', (code, signal) => resolve(`the daemon exited (${signal ?? code}) while starting`));
  });
  child.stdout?.resume();
  if (typeof started === 'string') {
    await stopChildGroup(child);
    return { ok: false, reason: `${started}: ${lastLines(stderr)}` };
  }
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exit ${signal ?? code}`));
  const token = (await readFile(started.tokenFile, 'utf8')).trim();
  const follower = new AbortController();
  const events: ReceivedEvent[] = [];
  let state = 'idle';
  const following = follow(`${started.url}/events`, token, follower.signal, (event) => {
    events.push(event);
    if (event.type === 'state.changed') state = event.state;
  });
  const daemon: DaemonProcess = {
    url: started.url,
    events,
    get state() {
      return state;
    },
    get exited() {
      return exited;
    },
    get underflows() {
      return underflows;
    },
    async post(path) {
      const response = await fetch(`${started.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      // A body that is not JSON is no body: the status is what callers check.
      return { status: response.status, body: await response.json().catch(() => undefined) };
    },
    async stop() {
      follower.abort();
      await following;
      await stopChildGroup(child);
    },
  };
  // The replayed events arrive first; the stream being open is what matters.
  await Promise.race([following, new Promise((resolve) => setTimeout(resolve, 300))]);
  return { ok: true, daemon };
}

/** Follows an SSE stream until `signal` aborts or the daemon closes it. */
async function follow(url: string, token: string, signal: AbortSignal, onEvent: (event: ReceivedEvent) => void): Promise<void> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
    if (!response.body) return;
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body) {
      pending += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data) onEvent({ ...(JSON.parse(data) as AssistantEvent & { seq: number }), receivedAtMs: Date.now() });
      }
    }
  } catch (error) {
    if (!signal.aborted) process.stderr.write(`  events from ${url} ended: ${String(error)}\n`);
  }
}

async function stopChildGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const exited = await Promise.race([gone.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS).unref())]);
    if (!exited) process.stderr.write(`  the daemon (pid ${child.pid}) did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM: killed\n`);
  }
  // Whatever it left running (a decoder, an MCP server) goes with the group.
  killGroup(child, 'SIGKILL');
  live.delete(child);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function lastLines(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines.slice(-3).join(' | ') || '(no output)';
}

/** The environment a daemon gets: an allow-list (no OWNER_* or API keys of the caller leak in), plus `extra`. */
export function daemonEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: process.env.LANG ?? 'C.UTF-8', ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}) };
  return { ...base, ...extra };
}

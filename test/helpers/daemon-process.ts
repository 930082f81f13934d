/**
 * `desktop-assistant run ...` as a child process in its own group (its MCP
 * servers and decoder go with it), started from the compiled CLI: resolves
 * once it says where it runs, with its API token from the file it wrote.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { CLI } from './paths.js';
import { waitFor } from './wait-for.js';

export interface DaemonProcess {
  url: string;
  pid: number;
  token: string;
  /** What it printed on stdout / stderr so far (stderr: the terminal reporter's lines). */
  stdout(): string;
  stderr(): string;
  exitCode(): number | null;
  /** SIGTERM, up to 5 s to exit, then SIGKILL to its whole group. */
  stop(): Promise<void>;
}

export interface DaemonProcessOptions {
  /** After `run`. */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where the daemon writes its token: `<XDG_RUNTIME_DIR>/desktop-assistant/api-token`. */
  tokenFile: string;
}

export async function startDaemonProcess(options: DaemonProcessOptions): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [CLI, 'run', ...options.args], { env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
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
    const token = readFileSync(options.tokenFile, 'utf8').trim();
    return { url, pid: child.pid!, token, stdout: () => stdout, stderr: () => stderr, exitCode: () => child.exitCode, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A loopback port nobody listens on now: bound, read and released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A private, headless PulseAudio for one test file or benchmark: a null sink whose
 * monitor source captures, bit for bit, what is played into it (a real-time
 * loopback: playback into the microphone). PortAudio sees it as the ALSA
 * `pulse` device once PULSE_SERVER points at it (`useIn(process.env)`).
 *
 * startPulse never throws: when PulseAudio is missing or does not come up it
 * says why, so the tests can skip with that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const run = promisify(execFile);

export const SINK = 'da_test_sink';
export const MONITOR = `${SINK}.monitor`;

export interface PulseServer {
  /** PULSE_SERVER, and a private HOME and XDG_RUNTIME_DIR (libpulse writes a cookie under HOME): for children and for this process. */
  env: Record<string, string>;
  pactl(...args: string[]): Promise<string>;
  /** Sets the variables in `target` (process.env for in-process PortAudio); returns the undo. */
  useIn(target: NodeJS.ProcessEnv): () => void;
  stop(): Promise<void>;
}

export type PulseStart = { ok: true; server: PulseServer } | { ok: false; reason: string };

export interface PulseOptions {
  /** The sink's rate. Default 48000 (what desktops run), so a 16 kHz voice crosses two conversions. */
  rate?: number;
  startTimeoutMs?: number;
}

interface TempDir {
  path: string;
  remove(): Promise<void>;
}

export async function startPulse(options: PulseOptions = {}): Promise<PulseStart> {
  const path = await mkdtemp(join(tmpdir(), 'da-pulse-'));
  const dir: TempDir = { path, remove: () => rm(path, { recursive: true, force: true }) };
  const env = { HOME: dir.path, XDG_RUNTIME_DIR: dir.path, PULSE_SERVER: `unix:${join(dir.path, 'native')}` };
  const childEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
  const script = join(dir.path, 'test.pa');
  await writeFile(
    script,
    [
      `load-module module-native-protocol-unix auth-anonymous=1 socket=${join(dir.path, 'native')}`,
      `load-module module-null-sink sink_name=${SINK} rate=${options.rate ?? 48000} channels=1`,
      `set-default-sink ${SINK}`,
      `set-default-source ${MONITOR}`,
      '',
    ].join('\n'),
  );
  // exit-idle-time: a server orphaned by a crashed test run exits once its keeper (below) dies with it.
  const daemon = spawn('pulseaudio', ['-n', '-F', script, '--daemonize=no', '--exit-idle-time=5', '--use-pid-file=no', '--log-target=stderr'], {
    env: childEnv,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  daemon.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<string>((resolve) => {
    daemon.on('error', (error) => resolve(`pulseaudio cannot be started: ${error.message}`));
    daemon.on('exit', (code, signal) => resolve(`pulseaudio exited (${signal ?? code}) while starting: ${lastLines(stderr)}`));
  });
  const pactl = async (...args: string[]): Promise<string> => (await run('pactl', args, { env: childEnv, timeout: 5000 })).stdout;

  const ready = await Promise.race([waitForServer(pactl, options.startTimeoutMs ?? 5000), exited]);
  if (ready !== true) {
    await stopChild(daemon);
    await dir.remove();
    return { ok: false, reason: ready === false ? `pulseaudio did not answer within the time limit: ${lastLines(stderr)}` : ready };
  }
  // module-null-sink sleeps 2 s between renders while no stream asks for less, and it
  // only re-reads a stream's latency after that sleep: a new capture would get its first
  // audio up to 2 s late. A recorder that asks for 10 ms keeps the sink's clock fine;
  // its first bytes say the slow sleep is over.
  const keeper = spawn('pacat', ['--record', `--device=${MONITOR}`, '--latency-msec=10', '--raw'], { env: childEnv, stdio: ['pipe', 'pipe', 'ignore'] });
  const flowing = await new Promise<string | true>((resolve) => {
    keeper.on('error', (error) => resolve(`pacat cannot be started: ${error.message}`));
    keeper.on('exit', (code) => resolve(`pacat exited (${code}) before recording`));
    keeper.stdout?.once('data', () => resolve(true));
    setTimeout(() => resolve('pacat recorded nothing from the null sink within 4 s'), 4000).unref();
  });
  keeper.stdout?.resume();
  if (flowing !== true) {
    await stopChild(keeper);
    await stopChild(daemon);
    await removeQuietly(dir);
    return { ok: false, reason: flowing };
  }

  const server: PulseServer = {
    env,
    pactl,
    useIn(target) {
      const saved = Object.fromEntries(Object.keys(env).map((key) => [key, target[key]]));
      Object.assign(target, env);
      return () => {
        for (const [key, value] of Object.entries(saved)) {
          if (value === undefined) delete target[key];
          else target[key] = value;
        }
      };
    },
    async stop() {
      await stopChild(keeper);
      await stopChild(daemon);
      await removeQuietly(dir);
    },
  };
  return { ok: true, server };
}

async function waitForServer(pactl: (...args: string[]) => Promise<string>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await pactl('list', 'short', 'sinks')).includes(SINK)) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Closes stdin, then SIGTERM, then SIGKILL: the house order for stopping a child. */
export async function stopChild(child: ChildProcess, graceMs = 1000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (ms: number) => Promise.race([gone.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
  child.stdin?.end();
  if (await waitFor(100)) return;
  child.kill('SIGTERM');
  if (await waitFor(graceMs)) return;
  child.kill('SIGKILL');
  await gone;
}

async function removeQuietly(dir: TempDir): Promise<void> {
  try {
    await dir.remove();
  } catch {
    // A socket PulseAudio is still closing; the OS cleans temp.
  }
}

function lastLines(text: string): string {
  const lines = text.trim().split('\n').filter((line) => !line.includes('not intended to be run as root'));
  return lines.slice(-3).join(' | ') || '(no output)';
}

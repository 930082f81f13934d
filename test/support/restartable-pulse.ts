/**
 * A private PulseAudio that a test can kill (SIGKILL, as a crash or a
 * desktop's restart on a headset plug does) and start again on the same
 * socket, with the same null sink and monitor as pulse-server.ts. Whoever
 * uses the server (a daemon through PortAudio) is not told: it must notice.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MONITOR, SINK, stopChild } from './pulse-server.js';

const run = promisify(execFile);

export interface RestartablePulse {
  env: Record<string, string>;
  /** The server's process, while it runs. */
  readonly pid: number | undefined;
  /** SIGKILL: the server vanishes with its clients' connections. */
  kill(): Promise<void>;
  /**
   * Starts it again on the same socket; resolves when it serves audio (a
   * 10 ms recorder on the monitor got its first bytes), with when the
   * process was started (Date.now()).
   */
  start(): Promise<{ spawnedAtMs: number }>;
  /** Unloads the null sink (and with it its monitor, the microphone): the server stays, its devices go, as on an unplug. */
  removeDevices(): Promise<void>;
  /** Loads the null sink again, as the defaults; resolves when it renders (as `start`), with when it was loaded. */
  addDevices(): Promise<{ addedAtMs: number }>;
  stop(): Promise<void>;
}

export async function startRestartablePulse(): Promise<RestartablePulse> {
  const dir = await mkdtemp(join(tmpdir(), 'da-pulse-restart-'));
  const socket = join(dir, 'native');
  const env = { HOME: dir, XDG_RUNTIME_DIR: dir, PULSE_SERVER: `unix:${socket}` };
  const childEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
  const script = join(dir, 'test.pa');
  await writeFile(
    script,
    [
      `load-module module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
      `load-module module-null-sink sink_name=${SINK} rate=48000 channels=1`,
      `set-default-sink ${SINK}`,
      `set-default-source ${MONITOR}`,
      '',
    ].join('\n'),
  );
  let daemon: ChildProcess | undefined;
  let keeper: ChildProcess | undefined;
  let stderr = '';

  const pactl = (args: string[]) => run('pactl', args, { env: childEnv, timeout: 2000 });

  // As in pulse-server.ts: a 10 ms recorder keeps the null sink from sleeping 2 s between
  // renders, and its first bytes say the sink renders (the server serves audio).
  const keepRendering = async (): Promise<void> => {
    const recorder = spawn('pacat', ['--record', `--device=${MONITOR}`, '--latency-msec=10', '--raw'], { env: childEnv, stdio: ['pipe', 'pipe', 'ignore'] });
    keeper = recorder;
    const flowing = await new Promise<boolean>((resolve) => {
      recorder.stdout?.once('data', () => resolve(true));
      recorder.once('exit', () => resolve(false));
      setTimeout(() => resolve(false), 5000).unref();
    });
    recorder.stdout?.resume();
    if (!flowing) throw new Error('pacat recorded nothing from the null sink within 5 s');
  };

  const start = async (): Promise<{ spawnedAtMs: number }> => {
    const spawnedAtMs = Date.now();
    // exit-idle-time: a server orphaned by a crashed test exits once nobody uses it.
    daemon = spawn('pulseaudio', ['-n', '-F', script, '--daemonize=no', '--exit-idle-time=5', '--use-pid-file=no', '--log-target=stderr'], {
      env: childEnv,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    daemon.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        if ((await run('pactl', ['list', 'short', 'sinks'], { env: childEnv, timeout: 2000 })).stdout.includes(SINK)) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`pulseaudio did not come up: ${stderr.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await keepRendering();
    return { spawnedAtMs };
  };

  await start();
  return {
    env,
    get pid() {
      return daemon?.exitCode === null && daemon.signalCode === null ? daemon.pid : undefined;
    },
    async kill() {
      const server = daemon;
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => server.once('exit', () => resolve()));
      server.kill('SIGKILL');
      await gone;
      // The keeper loses its server too and exits; make sure.
      if (keeper) await stopChild(keeper);
    },
    start,
    async removeDevices() {
      const modules = (await pactl(['list', 'short', 'modules'])).stdout.split('\n');
      const sink = modules.find((line) => line.includes('module-null-sink') && line.includes(`sink_name=${SINK}`));
      if (!sink) throw new Error(`no null sink ${SINK} to remove`);
      await pactl(['unload-module', sink.split('\t')[0]!]);
      if (keeper) await stopChild(keeper);
    },
    async addDevices() {
      const addedAtMs = Date.now();
      await pactl(['load-module', 'module-null-sink', `sink_name=${SINK}`, 'rate=48000', 'channels=1']);
      await pactl(['set-default-sink', SINK]);
      await pactl(['set-default-source', MONITOR]);
      await keepRendering();
      return { addedAtMs };
    },
    async stop() {
      if (keeper) await stopChild(keeper);
      if (daemon) await stopChild(daemon);
      // Clean-up: a temporary folder left behind changes no result.
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

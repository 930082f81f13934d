import { messageOf } from '../errors/index.js';
import { readExitRecord, writeExitRecord, type ExitInfo } from './record.js';
import { processRuns } from '../process/index.js';

/**
 * Test only: DESKTOP_ASSISTANT_TEST_CRASH_MS=N makes the daemon throw an
 * uncaught error N ms after it started, so a test (or a user trying the
 * service unit's Restart=) can watch it die, be recorded and be restarted.
 * Never set it otherwise.
 */
export const TEST_CRASH_ENV = 'DESKTOP_ASSISTANT_TEST_CRASH_MS';

/** Signals that would end the daemon without its stop: recorded, then the default (death by that signal) goes on. */
const FATAL_SIGNALS: readonly NodeJS.Signals[] = ['SIGHUP'];

export interface ExitWatch {
  /** How the run before this one ended, when one was recorded. */
  previous?: ExitInfo;
  /** Records how this run ended and stops watching: a clean stop (the daemon's close) or a failed start. */
  ended(reason: string, clean: boolean): void;
}

export interface ExitWatchOptions {
  env?: NodeJS.ProcessEnv;
  clock?: () => number;
  /** Whether the process of an earlier run still runs; default: signal 0. */
  isRunning?: (pid: number) => boolean;
}

/**
 * Keeps the data folder's record of the daemon's last exit: on start it
 * reads how the previous run ended (a run whose record never got its end
 * was killed by something no process can catch: SIGKILL, the OOM killer, a
 * power loss) and marks this one as running; it then records this run's end
 * however it comes: an uncaught error or unhandled rejection (watched with
 * 'uncaughtExceptionMonitor', which leaves Node's own handling as it is), a
 * fatal signal it can catch, process.exit with a code, or a clean stop.
 */
export function watchExits(dataDir: string, options: ExitWatchOptions = {}): ExitWatch {
  const clock = options.clock ?? Date.now;
  const running = options.isRunning ?? processRuns;
  const startedAtMs = clock();
  const old = readExitRecord(dataDir);
  let previous: ExitInfo | undefined;
  if (old?.exit) previous = old.exit;
  else if (old && old.pid !== process.pid && !running(old.pid)) {
    previous = { reason: `it ended without a record (started ${new Date(old.startedAtMs).toISOString()}): killed by SIGKILL or the OOM killer, or the machine stopped`, clean: false };
  } else previous = old?.previous;
  const base = { pid: process.pid, startedAtMs, ...(previous ? { previous } : {}) };
  writeExitRecord(dataDir, base);

  let done = false;
  let dying: string | undefined;
  const record = (reason: string, clean: boolean): void => {
    writeExitRecord(dataDir, { ...base, exit: { atMs: clock(), reason, clean } });
  };
  const onUncaught = (error: unknown, origin: string): void => {
    dying = `${origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught error'}: ${messageOf(error)}`;
    record(dying, false);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    record(`killed by ${signal}`, false);
    stopWatching();
    process.kill(process.pid, signal);
  };
  const onExit = (code: number): void => {
    if (done) return;
    if (dying !== undefined) record(`${dying} (exit code ${code})`, false);
    else record(code === 0 ? 'exited with code 0' : `exited with code ${code}`, code === 0);
  };
  const crashMs = Number(options.env?.[TEST_CRASH_ENV] ?? '');
  const crash =
    crashMs > 0
      ? setTimeout(() => {
          throw new Error(`crash injected by ${TEST_CRASH_ENV} (test only)`);
        }, crashMs)
      : undefined;
  const stopWatching = (): void => {
    done = true;
    clearTimeout(crash);
    process.off('uncaughtExceptionMonitor', onUncaught);
    process.off('exit', onExit);
    for (const signal of FATAL_SIGNALS) process.off(signal, onSignal);
  };
  process.on('uncaughtExceptionMonitor', onUncaught);
  process.on('exit', onExit);
  for (const signal of FATAL_SIGNALS) process.on(signal, onSignal);

  return {
    ...(previous ? { previous } : {}),
    ended(reason, clean) {
      if (done) return;
      stopWatching();
      record(reason, clean);
    },
  };
}

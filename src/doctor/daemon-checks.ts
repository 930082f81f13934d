import { processRuns, runCommand } from '../process/index.js';
import { readExitRecord, type ExitInfo } from '../exit-record/index.js';
import { UNIT_NAME } from '../host/cli/systemd-unit.js';
import { failed, passed, skipped, type CheckResult } from './check.js';

const SYSTEMCTL_TIMEOUT_MS = 3000;
const SHOWN = ['LoadState', 'ActiveState', 'SubState', 'Result', 'NRestarts'];

/** "last exit: <when>, <reason>", from the record the daemon keeps in the data folder. */
export function describeExit(exit: ExitInfo): string {
  return `last exit: ${exit.atMs === undefined ? 'at an unknown time' : new Date(exit.atMs).toISOString()}, ${exit.reason}`;
}

/**
 * How the daemon last ended, and whether it runs now: from the exit record
 * (see src/exit-record). A daemon that is down after a crash is a problem;
 * a crash it was restarted from is shown, not failed.
 */
export function lastExitCheck({ dataDir }: { dataDir: string }, isRunning: (pid: number) => boolean = processRuns): CheckResult {
  const name = 'daemon';
  const record = readExitRecord(dataDir);
  if (!record) return skipped(name, `no run recorded in ${dataDir} yet (\`desktop-assistant run\` records each one)`);
  if (!record.exit && isRunning(record.pid)) {
    const since = `running since ${new Date(record.startedAtMs).toISOString()} (pid ${record.pid})`;
    return passed(name, record.previous ? `${since}; ${describeExit(record.previous)}` : `${since}; no earlier exit recorded`);
  }
  const exit = record.exit ?? { reason: `it ended without a record (started ${new Date(record.startedAtMs).toISOString()}): killed by SIGKILL or the OOM killer, or the machine stopped`, clean: false };
  if (exit.clean) return passed(name, `not running; ${describeExit(exit)}`);
  return failed(
    name,
    `not running; ${describeExit(exit)}`,
    'start it again (`systemctl --user start desktop-assistant.service`, or `desktop-assistant run`); `journalctl --user -u desktop-assistant -n 50` shows what it wrote before it ended',
  );
}

/** The user service as systemd sees it (`systemctl --user show`, read-only): its state, restarts and last result. */
export async function serviceCheck({ env }: { env: NodeJS.ProcessEnv }): Promise<CheckResult> {
  const name = 'user service';
  const shown = await systemctlShow(env);
  if ('unavailable' in shown) return skipped(name, `systemctl --user is not available here (${shown.unavailable}): no restart count or result to show`);
  const p = shown.properties;
  if (p.LoadState === 'not-found') return skipped(name, `${UNIT_NAME} is not installed (\`desktop-assistant service install\` installs it)`);
  const detail = `${UNIT_NAME} ${p.ActiveState ?? '?'} (${p.SubState ?? '?'}), NRestarts=${p.NRestarts ?? '?'}, Result=${p.Result ?? '?'}`;
  if (p.ActiveState !== 'failed') return passed(name, detail);
  const limit = p.Result === 'start-limit-hit' ? 'it failed too often in a row and systemd stopped restarting it; ' : '';
  return failed(name, detail, `${limit}\`journalctl --user -u desktop-assistant -n 50\` says why; then \`systemctl --user reset-failed ${UNIT_NAME} && systemctl --user start ${UNIT_NAME}\``);
}

type Shown = { properties: Record<string, string> } | { unavailable: string };

async function systemctlShow(env: NodeJS.ProcessEnv): Promise<Shown> {
  // No shell: a fixed argv; `show` only reads.
  const outcome = await runCommand(['systemctl', '--user', 'show', UNIT_NAME, `--property=${SHOWN.join(',')}`], { env, timeoutMs: SYSTEMCTL_TIMEOUT_MS });
  if (outcome.kind === 'spawn-error') return { unavailable: outcome.errno === 'ENOENT' ? 'systemctl is not installed' : outcome.reason };
  if (outcome.kind !== 'exited') return { unavailable: `systemctl did not answer within ${SYSTEMCTL_TIMEOUT_MS} ms` };
  if (outcome.exitCode !== 0) return { unavailable: outcome.stderrTail.trim().split('\n')[0] || `systemctl exited with ${outcome.exitCode ?? outcome.signal}` };
  return { properties: parseShow(outcome.stdout) };
}

/** `systemctl show` output: one Key=Value a line. */
export function parseShow(text: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) properties[line.slice(0, at)] = line.slice(at + 1);
  }
  return properties;
}

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readExitRecord, TEST_CRASH_ENV } from '../../src/exit-record/index.js';
import { refusedUrl } from '../helpers/http-stub.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { CLI } from '../helpers/paths.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The compiled daemon (`desktop-assistant run`) made to end in each way it
 * can, and what `doctor` says after: the exit record in the data folder.
 */

let home: TempDir;
let env: Record<string, string>;

beforeEach(async () => {
  home = await makeTempDir('da-last-exit-');
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  await home.write('config/config.toml', `llm = "${await refusedUrl()}/v1"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}`);
});
afterEach(() => home.remove());

interface Running {
  pid: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startDaemon(extraEnv: Record<string, string> = {}, waitUntilRunning = true): Promise<Running> {
  const child = spawn(process.execPath, [CLI, 'run', '--no-voice', '--port', '0', '--config-dir', join(home.path, 'config')], {
    env: { ...process.env, ...env, ...extraEnv },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  if (waitUntilRunning) await waitFor(() => (stdout.includes('is running at') ? true : undefined), 'the daemon to start', 15_000);
  return { pid: child.pid!, stderr: () => stderr, exited };
}

async function doctorSays(): Promise<{ daemon: { ok: boolean; detail: string; fix?: string; skipped?: boolean }; service: { ok: boolean; detail: string; skipped?: boolean }; text: string }> {
  const args = ['doctor', '--no-sound', '--config-dir', join(home.path, 'config')];
  const [json, text] = await Promise.all([runCli([...args, '--json'], env), runCli(args, env)]);
  const results = JSON.parse(json.stdout) as { name: string; ok: boolean; detail: string }[];
  return { daemon: results.find((r) => r.name === 'daemon')!, service: results.find((r) => r.name === 'user service')!, text: text.stdout };
}

/** Processes whose command line names this test's config folder: the daemon and the MCP servers it started. */
function ourProcesses(): number[] {
  const configDir = join(home.path, 'config');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(configDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const nothingLeft = () => waitFor(() => (ourProcesses().length === 0 ? true : undefined), 'the servers of a dead daemon to end');

const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

describe('the exit record and doctor', () => {
  it('records an uncaught error, notes the restart, then a clean stop', async () => {
    expect((await doctorSays()).daemon).toMatchObject({ ok: true, skipped: true, detail: expect.stringMatching(/^no run recorded in .* yet/) });

    const crashing = await startDaemon({ [TEST_CRASH_ENV]: '200' }, false);
    expect(await crashing.exited).toEqual({ code: 1, signal: null });
    expect(crashing.stderr()).toContain(`crash injected by ${TEST_CRASH_ENV} (test only)`);
    await nothingLeft();
    const afterCrash = await doctorSays();
    expect(afterCrash.daemon.ok).toBe(false);
    expect(afterCrash.daemon.detail).toMatch(new RegExp(`^not running; last exit: ${ISO}, uncaught error: crash injected by ${TEST_CRASH_ENV} \\(test only\\) \\(exit code 1\\)$`));
    expect(afterCrash.text).toMatch(/FAIL {2}daemon +not running; last exit: .*\n {6}fix: start it again/);

    // Started again (as systemd's Restart=on-failure would): it says so, and doctor shows the crash it came back from.
    const again = await startDaemon();
    expect(again.stderr()).toMatch(/"event":"daemon.restarted".*"lastExit":"uncaught error: crash injected/);
    const running = await doctorSays();
    expect(running.daemon).toMatchObject({ ok: true });
    expect(running.daemon.detail).toMatch(new RegExp(`^running since ${ISO} \\(pid ${again.pid}\\); last exit: ${ISO}, uncaught error: crash injected`));

    process.kill(again.pid, 'SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
    const stopped = await doctorSays();
    expect(stopped.daemon).toMatchObject({ ok: true });
    expect(stopped.daemon.detail).toMatch(new RegExp(`^not running; last exit: ${ISO}, stopped by SIGTERM$`));
    expect(stopped.text).toMatch(/ok {4}daemon +not running; last exit: .*, stopped by SIGTERM\n/);
  });

  it('records a fatal signal it can catch, and knows a SIGKILL by the record it never finished', async () => {
    const hungUp = await startDaemon();
    process.kill(hungUp.pid, 'SIGHUP');
    // Recorded, then the signal's own default: systemd sees a death by signal, a failure it restarts.
    expect(await hungUp.exited).toEqual({ code: null, signal: 'SIGHUP' });
    await nothingLeft();
    expect((await doctorSays()).daemon).toMatchObject({ ok: false, detail: expect.stringMatching(new RegExp(`^not running; last exit: ${ISO}, killed by SIGHUP$`)) });

    const killed = await startDaemon();
    process.kill(killed.pid, 'SIGKILL');
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Its tools server reads the end of its stdin as the end.
    await nothingLeft();
    expect((await doctorSays()).daemon).toMatchObject({
      ok: false,
      detail: expect.stringMatching(new RegExp(`^not running; last exit: at an unknown time, it ended without a record \\(started ${ISO}\\): killed by SIGKILL or the OOM killer`)),
    });

    // The next run starts from that: its start notes the unrecorded end.
    const next = await startDaemon();
    expect(next.stderr()).toMatch(/"event":"daemon.restarted","lastExitAt":"unknown","lastExit":"it ended without a record/);
    process.kill(next.pid, 'SIGINT');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect((await doctorSays()).daemon.detail).toMatch(/, stopped by SIGINT$/);
  });

  it('records a start that fails', async () => {
    await home.write('config/config.toml', 'no_such_key = 1\n');
    const failing = await startDaemon({}, false);
    expect((await failing.exited).code).toBe(1);
    // doctor cannot load that config either: the record is read as it would.
    expect(readExitRecord(env.DESKTOP_ASSISTANT_DATA_DIR!)?.exit).toMatchObject({ clean: false, reason: expect.stringMatching(/^could not start: .*no_such_key/) });
  });

  it('shows the user service from systemctl --user show, or says it cannot', async () => {
    const { service } = await doctorSays();
    // Read-only either way; on a machine without a user manager (a container, CI) it says so.
    if (service.skipped) expect(service.detail).toMatch(/^systemctl --user is not available here \(.+\)|^desktop-assistant\.service is not installed/);
    else expect(service.detail).toMatch(/^desktop-assistant\.service \w+ \(.*\), NRestarts=\d+, Result=[\w-]+$/);
  });
});

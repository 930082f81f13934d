import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastExitCheck, parseShow } from '../../src/doctor/daemon-checks.js';
import { readExitRecord, writeExitRecord, type ExitRecord } from '../../src/exit-record/index.js';
import { unitText } from '../../src/host/cli/systemd-unit.js';
import { DIST } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('da-exit-record-');
});
afterEach(() => dir.remove());

const AT = Date.UTC(2025, 0, 2, 3, 4, 5);

describe('the exit record file', () => {
  it('is written whole, with no temporary file left, and read back', () => {
    const record: ExitRecord = { pid: 42, startedAtMs: AT, exit: { atMs: AT + 1000, reason: 'stopped by SIGTERM', clean: true } };
    expect(writeExitRecord(dir.path, record)).toBeUndefined();
    expect(readdirSync(dir.path)).toEqual(['last-exit.json']);
    expect(readExitRecord(dir.path)).toEqual(record);
  });

  it('answers why it could not write instead of throwing (a dying daemon must not die of its record)', async () => {
    const notAFolder = await dir.write('file', 'x');
    expect(writeExitRecord(notAFolder, { pid: 1, startedAtMs: AT })).toMatch(/EEXIST|ENOTDIR/);
  });

  it('reads a missing, damaged or foreign file as no record', async () => {
    expect(readExitRecord(dir.path)).toBeUndefined();
    await dir.write('last-exit.json', '{"pid": 1, "startedAt');
    expect(readExitRecord(dir.path)).toBeUndefined();
    await dir.write('last-exit.json', '{"pid": "1"}');
    expect(readExitRecord(dir.path)).toBeUndefined();
  });
});

describe('watching a process', () => {
  it('records an unhandled rejection as it dies, leaving Node to end it as usual', async () => {
    const watch = join(DIST, 'src/exit-record/index.js');
    const script = `import { watchExits } from ${JSON.stringify(watch)};\nwatchExits(${JSON.stringify(dir.path)});\nPromise.reject(new Error('nobody caught me'));\n`;
    const code = await new Promise<number | null>((resolve) => execFile(process.execPath, ['--input-type=module', '-e', script], (error) => resolve(error ? (error.code as number) : 0)));
    expect(code).toBe(1);
    expect(readExitRecord(dir.path)?.exit).toMatchObject({ clean: false, reason: 'unhandled promise rejection: nobody caught me (exit code 1)' });
  });
});

describe("doctor's daemon line", () => {
  const check = (record: ExitRecord, running: boolean) => {
    writeExitRecord(dir.path, record);
    return lastExitCheck({ dataDir: dir.path }, () => running);
  };

  it('fails a daemon that is down after a crash, and only shows one it was restarted from', () => {
    const crash = { atMs: AT, reason: 'uncaught error: boom (exit code 1)', clean: false };
    expect(check({ pid: 7, startedAtMs: AT - 5000, exit: crash }, false)).toMatchObject({ ok: false, detail: 'not running; last exit: 2025-01-02T03:04:05.000Z, uncaught error: boom (exit code 1)' });
    expect(check({ pid: 8, startedAtMs: AT + 5000, previous: crash }, true)).toEqual({
      name: 'daemon',
      ok: true,
      detail: 'running since 2025-01-02T03:04:10.000Z (pid 8); last exit: 2025-01-02T03:04:05.000Z, uncaught error: boom (exit code 1)',
    });
  });

  it('reads a run that never recorded its end, and is not running, as killed', () => {
    expect(check({ pid: 9, startedAtMs: AT }, false)).toMatchObject({ ok: false, detail: expect.stringMatching(/^not running; last exit: at an unknown time, it ended without a record \(started 2025-01-02T03:04:05.000Z\)/) });
  });
});

describe('the service', () => {
  it('reads systemctl show output', () => {
    expect(parseShow('LoadState=loaded\nActiveState=active\nResult=success\nNRestarts=2\nExecStart={ path=/x ; argv[]=a=b }\n')).toMatchObject({ LoadState: 'loaded', NRestarts: '2', ExecStart: '{ path=/x ; argv[]=a=b }' });
  });

  it('restarts a daemon that dies, within a limit', () => {
    const text = unitText({ node: '/usr/bin/node', cli: '/opt/da/main.js', environmentFile: '/home/u/.config/desktop-assistant/env', path: '/usr/bin' });
    expect(text).toMatch(/^Restart=on-failure$/m);
    expect(text).toMatch(/^RestartSec=\d+$/m);
    // Three failed starts in a minute and systemd stops trying (Result=start-limit-hit, which doctor shows).
    expect(text).toMatch(/^\[Unit\][^[]*^StartLimitIntervalSec=60$[^[]*^StartLimitBurst=3$/m);
  });
});

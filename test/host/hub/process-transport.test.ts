import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { isAppError } from '../../../src/errors/index.js';
import { DEFAULT_STOP_TIMINGS, ProcessTransport } from '../../../src/host/hub/process-transport.js';
import { PROCESS_SPAWN_FAILED, allowListedEnv } from '../../../src/process/index.js';

function transport(command: string, args: string[] = [], cwd?: string): ProcessTransport {
  return new ProcessTransport({ command, args, env: allowListedEnv(), ...(cwd === undefined ? {} : { cwd }), stop: DEFAULT_STOP_TIMINGS });
}

async function startFailure(t: ProcessTransport): Promise<unknown> {
  return t.start().then(
    () => new Error('started'),
    (error: unknown) => error,
  );
}

describe('ProcessTransport start failures', () => {
  it('are AppErrors PROCESS_SPAWN_FAILED that say why, with the errno on the cause', async () => {
    const missing = await startFailure(transport('/nonexistent/server'));
    expect(isAppError(missing, PROCESS_SPAWN_FAILED)).toBe(true);
    expect((missing as Error).message).toBe('command not found: /nonexistent/server');
    expect(((missing as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');

    const badCwd = await startFailure(transport(process.execPath, [], '/nonexistent/folder'));
    expect(isAppError(badCwd, PROCESS_SPAWN_FAILED)).toBe(true);
    expect((badCwd as Error).message).toBe('working folder not found: /nonexistent/folder');

    const dir = await makeTempDir('da-transport-');
    try {
      const script = await dir.write('server.sh', '#!/bin/sh\n', 0o644);
      const notExecutable = await startFailure(transport(script));
      expect((notExecutable as Error).message).toBe(`command not executable: ${script}`);
    } finally {
      await dir.remove();
    }
  });

  it('include what spawn refuses at once (an argument over the kernel limit)', async () => {
    const tooLong = await startFailure(transport(process.execPath, ['x'.repeat(1_000_000)]));
    expect(isAppError(tooLong, PROCESS_SPAWN_FAILED)).toBe(true);
    expect((tooLong as Error).message).toBe(`cannot start ${process.execPath}: Argument list too long`);
  });
});

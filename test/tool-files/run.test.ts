import { readFile, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OUTPUT_CHARS, parseToolFile, runToolFile, type ToolDefinition } from '../../src/tool-files/index.js';
import { isRunning } from '../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let dir: TempDir;

beforeAll(async () => {
  dir = await makeTempDir();
  await dir.write('echo.sh', '#!/bin/sh\nprintf "%s|" "$@"\n', 0o755);
  await dir.write('env.sh', '#!/bin/sh\nprintf "%s" "$TOOL_GREETING"\n', 0o755);
  await dir.write('not-executable.sh', '#!/bin/sh\necho hi\n', 0o644);
  // The grandchild writes its pid first, so the test can look for it after the timeout.
  await dir.write('spawns-sleep.sh', `#!/bin/sh\nsleep 30 &\necho $! > "${dir.path}/grandchild.pid"\nwait\n`, 0o755);
});
afterAll(() => dir.remove());

function tool(text: string): ToolDefinition {
  const result = parseToolFile(`description = "t"\n${text}`, `${dir.path}/t.toml`, dir.path);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.tool;
}

const echo = () => tool('command = ["echo.sh", "{a}", "x{b}y"]\n[params.a]\n[params.b]\ntype = "integer"');

describe('running a tool file', () => {
  it('keeps an injection-shaped value as one argument', async () => {
    expect(await runToolFile(echo(), { a: 'x; rm -rf ~', b: 2 })).toEqual({ text: 'x; rm -rf ~|x2y|', isError: false });
  });

  it('turns missing and null parameters into empty strings', async () => {
    expect((await runToolFile(echo(), {})).text).toBe('|xy|');
    expect((await runToolFile(echo(), { a: null })).text).toBe('|xy|');
    expect((await runToolFile(echo(), undefined)).text).toBe('|xy|');
  });

  it('refuses arguments that are not a JSON object', async () => {
    for (const bad of [[1], 'x', 3, true]) {
      expect(await runToolFile(echo(), bad)).toEqual({ text: 'error: arguments must be a JSON object', isError: true });
    }
  });

  it('looks command[0] up in the tool folder first, then PATH', async () => {
    expect((await runToolFile(tool('command = ["echo.sh", "a"]'), {})).text).toBe('a|');
    expect((await runToolFile(tool('command = ["printf", "%s-%s", "a", "b"]'), {})).text).toBe('a-b');
  });

  it('passes the extra environment', async () => {
    const result = await runToolFile(tool('command = ["env.sh"]'), {}, { env: { TOOL_GREETING: 'ciao' } });
    expect(result.text).toBe('ciao');
  });

  it('answers a non-zero exit with the last stderr line', async () => {
    const result = await runToolFile(tool(`command = ["sh", "-c", "echo first >&2; echo oops >&2; exit 3"]`), {});
    expect(result).toEqual({ text: 'error: oops', isError: true });
  });

  it('answers a silent non-zero exit with its status', async () => {
    expect((await runToolFile(tool('command = ["sh", "-c", "exit 3"]'), {})).text).toBe('error: exit status 3');
  });

  it('answers a command that cannot start', async () => {
    expect((await runToolFile(tool('command = ["no-such-binary-here"]'), {})).text).toBe(
      'error: cannot run no-such-binary-here: No such file or directory',
    );
    expect((await runToolFile(tool('command = ["not-executable.sh"]'), {})).text).toBe(
      `error: cannot run ${dir.path}/not-executable.sh: Permission denied`,
    );
  });

  it('answers an argument the system refuses (too long, a NUL byte) as a tool result, not a crash', async () => {
    expect(await runToolFile(echo(), { a: 'x'.repeat(1_000_000), b: 1 })).toEqual({ text: `error: cannot run ${dir.path}/echo.sh: Argument list too long`, isError: true });
    expect(await runToolFile(echo(), { a: 'nul\u0000here', b: 1 })).toEqual({
      text: `error: cannot run ${dir.path}/echo.sh: an argument or environment value holds a NUL byte`,
      isError: true,
    });
  });

  it('strips stdout and cuts it to the limit with a visible mark', async () => {
    const result = await runToolFile(tool(`command = ["sh", "-c", "echo; head -c 5000 /dev/zero | tr '\\\\0' a; echo"]`), {});
    expect(result.isError).toBe(false);
    expect(result.text.startsWith('a'.repeat(MAX_OUTPUT_CHARS))).toBe(true);
    expect(result.text.slice(MAX_OUTPUT_CHARS)).toBe('\n[output truncated: 3000 characters cut]');
  });

  it('times out and kills the whole process group, grandchildren included', async () => {
    const started = Date.now();
    const result = await runToolFile(tool('command = ["spawns-sleep.sh"]\ntimeout = 0.3'), {});
    expect(result).toEqual({ text: 'error: timed out', isError: true });
    expect(Date.now() - started).toBeLessThan(2300);
    const grandchild = Number(await readFile(`${dir.path}/grandchild.pid`, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    await waitFor(() => (isRunning(grandchild) ? undefined : true), `pid ${grandchild} to end`, 2000);
  });

  it('stops the command when the call is cancelled', async () => {
    await rm(`${dir.path}/grandchild.pid`, { force: true });
    const controller = new AbortController();
    const running = runToolFile(tool('command = ["spawns-sleep.sh"]'), {}, { signal: controller.signal });
    // Cancelled once the command runs, not before it starts.
    const sleeper = await waitFor(
      () => readFile(`${dir.path}/grandchild.pid`, 'utf8').then((text) => (text.endsWith('\n') ? Number(text) : undefined), () => undefined),
      'the command to start',
    );
    controller.abort();
    expect(await running).toEqual({ text: 'error: cancelled', isError: true });
    await waitFor(() => (isRunning(sleeper) ? undefined : true), `pid ${sleeper} to end`, 2000);
  });
});

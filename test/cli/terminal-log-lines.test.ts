/**
 * `desktop-assistant run` in a terminal, as a person starts it: the lines it
 * shows are for that person. The structured log's JSON lines (on this machine
 * without a sound card, `audio_libraries` from the PortAudio probe) stay off
 * the terminal unless asked for with --log-format json; on a pipe they are
 * written as before (test/cli/last-exit.test.ts reads them).
 *
 * The terminal is a real pseudo-terminal (Python's pty module): stderr and
 * stdout both go to it, and Ctrl-C is a byte written to it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { refusedUrl } from '../helpers/http-stub.js';
import { CLI } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

/** Runs argv on a new pseudo-terminal, copying what it shows to stdout and stdin to it; exits with its code. */
const IN_A_TERMINAL = 'import os, pty, sys\nsys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))';

let home: TempDir;
let env: Record<string, string>;
beforeEach(async () => {
  home = await makeTempDir('da-terminal-');
  env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  await home.write('config/config.toml', `llm = "${await refusedUrl()}/v1"\n${ONLY_TOOL_FILES}`);
});
afterEach(() => home.remove());

/** The terminal's lines from the start to Ctrl-C after the voice line (or to the end, if it ends first), and the exit code. */
async function runInTerminal(extraArgs: string[] = []): Promise<{ lines: string[]; code: number | null }> {
  const args = ['-c', IN_A_TERMINAL, process.execPath, CLI, 'run', '--port', '0', '--config-dir', join(home.path, 'config'), ...extraArgs];
  const child = spawn('python3', args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  let shown = '';
  child.stdout.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  // 'close': after the last of its output, which 'exit' may come before.
  const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    await waitFor(() => (/^voice: /m.test(shown) || child.exitCode !== null ? true : undefined), 'the voice line', 30_000);
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}; the terminal showed:\n${shown}`);
  }
  // Ctrl-C: the terminal sends SIGINT to the daemon, which stops.
  if (child.exitCode === null) child.stdin.write('\x03');
  const code = await ended;
  return { lines: shown.split(/\r?\n/).filter((line) => line.length > 0), code };
}

const looksLikeJson = (line: string) => line.trimStart().startsWith('{');

describe('run in a terminal shows lines for a person', () => {
  it('the first lines say where it runs, the LLM and the voice; no JSON line, here or later', async () => {
    const { lines, code } = await runInTerminal();
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^desktop-assistant is running at http:\/\/127\.0\.0\.1:\d+\//);
    expect(lines[1]).toMatch(/^LLM: /);
    expect(lines[2]).toMatch(/^voice: /);
    expect(lines.filter(looksLikeJson)).toEqual([]);
    expect(lines.at(-1)).toMatch(/stopping$/);
  }, 60_000);

  it('--log-format json brings the structured log back to the terminal', async () => {
    const { lines, code } = await runInTerminal(['--log-format', 'json']);
    expect(code).toBe(0);
    const voice = lines.find((line) => line.startsWith('voice: ')) ?? '';
    // A machine with a sound card says nothing about the sound libraries: the check is for machines without.
    if (!/^voice: off: no (microphone|speaker) found/.test(voice)) return;
    const logged = lines.filter(looksLikeJson).map((line) => JSON.parse(line) as { event: string });
    expect(logged.map((entry) => entry.event)).toContain('audio_libraries');
  }, 60_000);

  it('a --log-format or --log-level it does not know is a usage error naming the choices', async () => {
    const { lines, code } = await runInTerminal(['--log-level', 'loud']);
    expect(code).toBe(2);
    expect(lines[0]).toBe('desktop-assistant: --log-level must be one of debug, info, warn, error, not loud');
  }, 60_000);
});

import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectStdio, resultText, type StdioServerHandle } from '../../helpers/mcp-stdio.js';
import { DIST, REPO_ROOT } from '../../helpers/paths.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

export const INTERPRETER_SERVER = join(DIST, 'mcp-servers/open-interpreter/main.js');
export const STAND_IN = join(REPO_ROOT, 'test/fakes/interpreter-stand-in.mjs');
export const TOOL = 'openinterpreter.run';

export interface SectionOptions {
  command?: string;
  args?: string[];
  /** Default: the fixture's work/ folder. */
  cwd?: string;
  timeout?: number;
  maxOutputChars?: number;
  /** Lines of `[env]`. */
  env?: Record<string, string>;
}

/**
 * A config folder, a work/ folder tasks run in, and a bin/ folder that goes
 * first on the server's PATH with the stand-in in it as `interpreter`.
 */
export interface InterpreterFixture {
  root: TempDir;
  configDir: string;
  /** work/ after symlinks: what the stand-in reports as its cwd. */
  work: string;
  bin: string;
  /** Puts the stand-in on PATH as `interpreter` (the fixture does at start unless told not to). */
  install(): Promise<void>;
  writeConfig(section: SectionOptions): Promise<void>;
  /** Starts the compiled server over stdio with bin/ and node's folder as PATH. */
  connect(env?: Record<string, string>): Promise<StdioServerHandle>;
}

export async function makeInterpreterFixture(options: { installed?: boolean } = {}): Promise<InterpreterFixture> {
  if (!existsSync(INTERPRETER_SERVER)) throw new Error(`${INTERPRETER_SERVER} is missing: run \`npm run build\` first`);
  const root = await makeTempDir('da-oi-');
  const configDir = join(root.path, 'config');
  const bin = join(root.path, 'bin');
  await mkdir(configDir);
  await mkdir(bin);
  await mkdir(join(root.path, 'work'));
  const work = await realpath(join(root.path, 'work'));

  const fixture: InterpreterFixture = {
    root,
    configDir,
    work,
    bin,
    async install() {
      const target = join(bin, 'interpreter');
      await copyFile(STAND_IN, target);
      await chmod(target, 0o755);
    },
    async writeConfig(section) {
      const lines = ['[adapters.openinterpreter]', 'enabled = true'];
      if (section.command !== undefined) lines.push(`command = ${JSON.stringify(section.command)}`);
      if (section.args !== undefined) lines.push(`args = ${JSON.stringify(section.args)}`);
      lines.push(`cwd = ${JSON.stringify(section.cwd ?? work)}`);
      lines.push(`timeout = ${section.timeout ?? 20}`);
      if (section.maxOutputChars !== undefined) lines.push(`max_output_chars = ${section.maxOutputChars}`);
      if (section.env) {
        lines.push('[env]');
        for (const [key, value] of Object.entries(section.env)) lines.push(`${key} = ${JSON.stringify(value)}`);
      }
      await root.write('config/config.toml', `${lines.join('\n')}\n`);
    },
    connect(env = {}) {
      // The stand-in's `#!/usr/bin/env node` needs node on PATH; nothing else from the real PATH is there.
      return connectStdio(process.execPath, [INTERPRETER_SERVER, '--config-dir', configDir], {
        PATH: `${bin}:${dirname(process.execPath)}`,
        ...env,
      });
    },
  };
  if (options.installed !== false) await fixture.install();
  await fixture.writeConfig({});
  return fixture;
}

export interface CallAnswer {
  text: string;
  isError: boolean;
  meta: Record<string, unknown>;
  result: CallToolResult;
}

export async function callRun(server: StdioServerHandle, args: unknown, name = TOOL): Promise<CallAnswer> {
  const result = await server.client.request(
    { method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } },
    CallToolResultSchema,
  );
  return { text: resultText(result), isError: result.isError === true, meta: (result._meta ?? {}) as Record<string, unknown>, result };
}

/** The `{"error":{...}}` body of an error result. */
export function errorOf(answer: CallAnswer): { code: string; message: string; [key: string]: unknown } {
  if (!answer.isError) throw new Error(`expected an error result, got: ${answer.text}`);
  return (JSON.parse(answer.text) as { error: { code: string; message: string } }).error;
}

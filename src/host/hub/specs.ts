import { join } from 'node:path';
import { expandHome, type AdaptersConfig, type Config, type Duration, type McpServerConfig } from '../../config/index.js';
import { memoryEnabled } from '../../memory/index.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { ServerSpec } from './types.js';

/** The built-in tools server's name: `[mcp.tools]` cannot take it. */
export const TOOLS_SERVER_NAME = 'tools';

// The tools server's own per-tool timeouts (from each tool file) govern its
// calls; this is only the fallback for a tool that declares none.
const TOOLS_SERVER_CALL_TIMEOUT_MS = 60_000;

/** The compiled tools server: dist/mcp-servers/tools/main.js. */
export function toolsServerPath(): string {
  return builtinServerPath('tools');
}

/** The tools server over `configDir`/tools/*.toml: trusted and built in. */
export function builtinToolsServerSpec(configDir: string): ServerSpec {
  return {
    name: TOOLS_SERVER_NAME,
    command: process.execPath,
    args: [toolsServerPath(), '--config-dir', configDir],
    trusted: true,
    builtin: true,
    callTimeoutMs: TOOLS_SERVER_CALL_TIMEOUT_MS,
  };
}

/**
 * A compiled built-in server, dist/mcp-servers/<folder>/main.js: compiled
 * even under the test runner, which reads the sources (a server under tsx
 * takes twice as long to start).
 */
export function builtinServerPath(folder: string): string {
  return join(PACKAGE_ROOT, 'dist', 'mcp-servers', folder, 'main.js');
}

/**
 * The enabled adapters: shell-readonly, open-interpreter (off unless
 * `[adapters.openinterpreter] enabled` or OWNER_OPENINTERPRETER_ENABLED=1;
 * =0 turns it off whatever the config says), browser.
 */
export function builtinAdapterSpecs(adapters: AdaptersConfig, configDir: string, env: NodeJS.ProcessEnv): ServerSpec[] {
  const interpreterSwitch = env.OWNER_OPENINTERPRETER_ENABLED;
  const interpreterOn = interpreterSwitch === '1' || (interpreterSwitch !== '0' && adapters.openinterpreter.enabled);
  const wanted: [string, boolean, Duration][] = [
    ['shell-readonly', adapters.shell_readonly.enabled, adapters.shell_readonly.timeout],
    ['open-interpreter', interpreterOn, adapters.openinterpreter.timeout],
    ['browser', adapters.browser.enabled, adapters.browser.timeout],
  ];
  return wanted
    .filter(([, enabled]) => enabled)
    .map(([name, , timeout]) => ({
      name,
      command: process.execPath,
      args: [builtinServerPath(name), '--config-dir', configDir],
      trusted: true,
      builtin: true,
      // The server enforces its own limit; this one only catches a server that stops answering.
      callTimeoutMs: timeout.ms + 10_000,
    }));
}

/** The memory server's name: `[mcp.memory]` cannot take it. */
export const MEMORY_SERVER_NAME = 'memory';

/**
 * The memory server, unless memory is off (`[memory] enabled = false` or
 * OWNER_MEMORY_ENABLED=0): then nothing starts and no memory file is opened.
 */
export function builtinMemorySpecs(config: Config, configDir: string, env: NodeJS.ProcessEnv): ServerSpec[] {
  if (!memoryEnabled(config, env)) return [];
  return [
    {
      name: MEMORY_SERVER_NAME,
      command: process.execPath,
      args: [builtinServerPath(MEMORY_SERVER_NAME), '--config-dir', configDir],
      trusted: true,
      builtin: true,
      // An embeddings endpoint may take its whole timeout; the store's own work is milliseconds.
      callTimeoutMs: config.memory.embeddings.timeout.ms + 10_000,
    },
  ];
}

/** The enabled `[mcp.<name>]` servers, by name; `~/` in command and cwd means home. */
export function thirdPartyServerSpecs(mcp: Readonly<Record<string, McpServerConfig>>): ServerSpec[] {
  return Object.entries(mcp)
    .filter(([, server]) => server.enabled)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, server]) => ({
      name,
      command: expandHome(server.command),
      args: [...server.args],
      env: { ...server.env },
      ...(server.cwd === undefined ? {} : { cwd: expandHome(server.cwd) }),
      trusted: server.trusted,
      builtin: false,
      inheritEnv: 'allow-list' as const,
      callTimeoutMs: server.timeout.ms,
    }));
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CHROMIUM_PATH } from '../../helpers/browser.js';
import { connectStdio, resultText } from '../../helpers/mcp-stdio.js';
import { DIST } from '../../helpers/paths.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** The compiled browser server, as the hub runs it. */
export const BROWSER_SERVER = join(DIST, 'mcp-servers/browser/main.js');

export interface BrowserSection {
  chromium?: string;
  timeout?: number;
  max_navigations?: number;
  max_output_chars?: number;
}

export interface CallAnswer {
  text: string;
  isError: boolean;
  /** The error code of an error result (`{"error":{"code":...}}`), else undefined. */
  code: string | undefined;
  ms: number;
}

export interface BrowserServerHandle {
  client: Client;
  /** The server process. */
  pid: number;
  call(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<CallAnswer>;
  stderr(): string;
  /** Closes the client (stdin, then SIGTERM, then SIGKILL) and removes the config folder. */
  close(): Promise<void>;
}

/** A real MCP client talking to the compiled server over stdio, with `[adapters.browser]` from `section`. */
export async function startBrowserServer(
  section: BrowserSection = {},
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<BrowserServerHandle> {
  if (!existsSync(BROWSER_SERVER)) throw new Error(`${BROWSER_SERVER} is missing: run \`npm run build\` first`);
  const config = await makeTempDir('da-browser-config-');
  const lines = Object.entries({ chromium: CHROMIUM_PATH, ...section }).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  await config.write('config.toml', `[adapters.browser]\n${lines.join('\n')}\n`);

  const { client, pid, stderr } = await connectStdio(process.execPath, [BROWSER_SERVER, '--config-dir', config.path], options.env, options.cwd);

  return {
    client,
    pid,
    async call(name, args, callOptions = {}) {
      const started = performance.now();
      const result = await client.request(
        { method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } },
        CallToolResultSchema,
        { timeout: 60_000, ...(callOptions.signal ? { signal: callOptions.signal } : {}) },
      );
      const text = resultText(result);
      const isError = result.isError === true;
      return { text, isError, code: isError ? errorCode(text) : undefined, ms: performance.now() - started };
    },
    stderr,
    async close() {
      await client.close();
      await config.remove();
    },
  };
}

function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateDb, SqliteAuditLog } from '../../src/host/store/index.js';
import { resultText } from '../helpers/mcp-stdio.js';
import { CLI } from '../helpers/paths.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { isRunning } from '../helpers/process-state.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

let home: TempDir;
let client: Client | undefined;

beforeEach(async () => {
  home = await makeTempDir('da-facade-');
  await home.write('config/config.toml', ONLY_TOOL_FILES);
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "{text}"]\n[params.text]\n');
  await home.write('config/tools/note.toml', 'description = "Write a note"\ncommand = ["echo", "noted {text}"]\nrisk = "write"\n[params.text]\n');
  await home.write('config/tools/wipe.toml', 'description = "Wipe"\ncommand = ["echo", "wiped"]\nrisk = "high"\n');
  await home.write('config/tools/wait.sh', `#!/bin/sh\necho $$ > "${home.path}/wait.pid"\nexec sleep 30\n`, 0o755);
  await home.write('config/tools/wait.toml', 'description = "Wait"\ncommand = ["wait.sh"]\ntimeout = 60\n');
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await home.remove();
});

async function connect(elicitation: 'approve' | 'decline' | 'none'): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config-dir', `${home.path}/config`],
    env: { ...(process.env as Record<string, string>), DESKTOP_ASSISTANT_DATA_DIR: `${home.path}/data` },
    stderr: 'pipe',
  });
  const c = new Client({ name: 'editor', version: '1.0.0' }, { capabilities: elicitation === 'none' ? {} : { elicitation: {} } });
  if (elicitation !== 'none') {
    c.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { approve: elicitation === 'approve' } }));
  }
  await c.connect(transport);
  client = c;
  return c;
}

function auditRecords() {
  const state = openStateDb(`${home.path}/data`);
  try {
    return new SqliteAuditLog(state).recent(50);
  } finally {
    state.close();
  }
}

describe('desktop-assistant mcp', () => {
  it('offers the routed tools under their names, without denied ones, and audits calls as mcp', async () => {
    const c = await connect('none');
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'note', 'wait']);
    expect(resultText(await c.callTool({ name: 'echo', arguments: { text: 'hi there' } }))).toBe('hi there');
    const bad = await c.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'x', extra: 1 } } }, CallToolResultSchema);
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toContain('unknown field \\"extra\\"');
    expect(auditRecords().map((r) => [r.entry, r.tool, r.status])).toEqual([
      ['mcp', 'echo', 'invalid'],
      ['mcp', 'echo', 'ok'],
    ]);
  });

  it('asks for confirmation by elicitation when the client supports it', async () => {
    const c = await connect('approve');
    expect(resultText(await c.callTool({ name: 'note', arguments: { text: 'milk' } }))).toBe('noted milk');
    expect(auditRecords()[0]).toMatchObject({ tool: 'note', decision: 'confirm', decidedBy: 'user', status: 'ok' });
  });

  it('refuses when the user declines', async () => {
    const c = await connect('decline');
    const result = await c.callTool({ name: 'note', arguments: { text: 'milk' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('TOOL_DENIED_BY_USER');
  });

  it('refuses, saying why, when the client cannot be asked', async () => {
    const c = await connect('none');
    const result = await c.callTool({ name: 'note', arguments: { text: 'milk' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('does not support elicitation');
    expect(auditRecords()[0]).toMatchObject({ decidedBy: 'channel', status: 'refused' });
  });

  it('passes the client\'s cancellation on to the tool', async () => {
    const c = await connect('none');
    const controller = new AbortController();
    const pending = c.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
    const pid = await waitFor(() => readFile(`${home.path}/wait.pid`, 'utf8').then(Number, () => undefined), 'the tool to start', 10_000);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => (isRunning(pid) ? undefined : true), `pid ${pid} to end`, 5000);
  });
});

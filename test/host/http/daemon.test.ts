import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../src/host/daemon.js';
import { readToken } from '../../../src/host/http/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../fakes/scripted-llm-server.js';
import { resultText } from '../../helpers/mcp-stdio.js';
import { ONLY_TOOL_FILES } from '../../helpers/config-snippets.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

let home: TempDir;
let llm: ScriptedLlmServer;
let daemon: Daemon;
let token: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  home = await makeTempDir('da-daemon-');
  llm = await startScriptedLlmServer();
  await home.write('config/config.toml', `llm = "${llm.url}"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}`);
  await home.write('config/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "{text}"]\n[params.text]\n');
  await home.write('config/tools/note.toml', 'description = "Note"\ncommand = ["echo", "noted {text}"]\nrisk = "write"\n[params.text]\n');
  env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  daemon = await startDaemon({ configDir: join(home.path, 'config'), env, port: 0 });
  token = readToken(daemon.tokenFile)!;
});
afterAll(async () => {
  await daemon.close();
  await llm.close();
  await home.remove();
});

async function mcpClient(withElicitation: boolean, authorization = `Bearer ${token}`): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), { requestInit: { headers: { authorization } } });
  const client = new Client({ name: 'editor', version: '1' }, { capabilities: withElicitation ? { elicitation: {} } : {} });
  if (withElicitation) client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(transport);
  return client;
}

describe('desktop-assistant run --no-voice', () => {
  it('listens on loopback, keeps the token in a file only the user can read', async () => {
    expect(daemon.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(daemon.tokenFile).toBe(join(home.path, 'run', 'desktop-assistant', 'api-token'));
    const { statSync } = await import('node:fs');
    expect(statSync(daemon.tokenFile).mode & 0o777).toBe(0o600);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const health = await fetch(`${daemon.url}/health`);
    expect(await health.json()).toMatchObject({ ok: true });
    expect((await fetch(`${daemon.url}/state`)).status).toBe(401);
    const state = await fetch(`${daemon.url}/state`, { headers: { authorization: `Bearer ${token}` } });
    expect(await state.json()).toMatchObject({ state: 'idle', voice: { enabled: false } });
  });

  it('[voice] enabled = true: a voice that cannot start stops the daemon, naming the way out', async () => {
    await home.write('config2/config.toml', `llm = "${llm.url}"\n[voice]\nenabled = true\n${ONLY_TOOL_FILES}`);
    await expect(startDaemon({ configDir: join(home.path, 'config2'), env, port: 0 })).rejects.toMatchObject({ code: 'VOICE_UNAVAILABLE', message: expect.stringContaining('--no-voice') });
  });

  it('[voice] enabled = "auto" (the default): a voice that cannot start leaves the daemon running, and says why', async () => {
    await home.write('config3/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}`);
    const failing = async (): Promise<never> => {
      throw new Error('no microphone found: PortAudio lists no audio input device');
    };
    const other = await startDaemon({ configDir: join(home.path, 'config3'), env, port: 0, startVoice: failing });
    try {
      expect(other.deps.voiceOff).toMatch(/^no microphone found: .*\[audio\] input \/ output/);
      const state = await (await fetch(`${other.url}/state`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(state).toMatchObject({ mode: 'text', voice: { enabled: false, listening: false, off: other.deps.voiceOff } });
      const listen = await fetch(`${other.url}/listen/start`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(listen.status).toBe(409);
      expect((await listen.json()).error).toMatchObject({ code: 'VOICE_DISABLED', message: expect.stringContaining('no microphone found') });
    } finally {
      await other.close();
    }
  });

  it('offers the routed tools over MCP Streamable HTTP behind the token', async () => {
    const client = await mcpClient(false);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'note']);
    expect(resultText(await client.callTool({ name: 'echo', arguments: { text: 'over http' } }))).toBe('over http');
    const refused = await client.callTool({ name: 'note', arguments: { text: 'x' } });
    expect(resultText(refused)).toContain('does not support elicitation');
    await client.close();
    await expect(mcpClient(false, 'Bearer wrong')).rejects.toThrow();
  });

  it('asks for confirmation by elicitation over HTTP too', async () => {
    const client = await mcpClient(true);
    expect(resultText(await client.callTool({ name: 'note', arguments: { text: 'milk' } }))).toBe('noted milk');
    await client.close();
    const audit = await (await fetch(`${daemon.url}/audit?limit=3`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(audit.records[0]).toMatchObject({ tool: 'note', entry: 'mcp', decidedBy: 'user', status: 'ok' });
  });
});

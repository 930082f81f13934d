import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createShellReadonlyServer, type ShellReadonlySettings } from '../../../mcp-servers/shell-readonly/server.js';
import { resultText } from '../../helpers/mcp-stdio.js';

export interface CallOutcome {
  text: string;
  isError: boolean;
  /** The error code of an error result, parsed from its JSON text. */
  code?: string;
}

export interface InProcessServer {
  client: Client;
  call(args: unknown): Promise<CallOutcome>;
  /** The server's structured log lines. */
  logLines: string[];
  close(): Promise<void>;
}

/** The real server and a real client over an in-memory pair. */
export async function startInProcess(settings: ShellReadonlySettings): Promise<InProcessServer> {
  const logLines: string[] = [];
  const server = await createShellReadonlyServer(settings, { write: (line: string) => logLines.push(line) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'shell-readonly-tests', version: '0.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    logLines,
    call: async (args) => outcomeOf(await client.request({ method: 'tools/call', params: { name: 'shell.readonly', arguments: args as Record<string, unknown> } }, CallToolResultSchema)),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export function outcomeOf(result: unknown): CallOutcome {
  const text = resultText(result);
  const isError = (result as { isError?: boolean }).isError === true;
  if (!isError) return { text, isError };
  const parsed = JSON.parse(text) as { error?: { code?: string } };
  return { text, isError, ...(parsed.error?.code ? { code: parsed.error.code } : {}) };
}

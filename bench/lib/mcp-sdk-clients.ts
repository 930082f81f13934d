/**
 * The client and server pairs bench/mcp-sdk.ts times: the SDK's v1 client
 * against a v1 server, and the v2 client against a v2 server in each way it
 * can open a connection (2025-11-25 `initialize`, 2026-07-28 `server/discover`
 * pinned, and 'auto', which probes first), plus the v2 client's 'auto'
 * against a v1-only server: the fallback the hub pays for an old server.
 */
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { AppError } from '../../src/errors/index.js';

export type PairName = 'v1' | 'v2_legacy' | 'v2_modern' | 'v2_auto' | 'v2_auto_to_v1';

export interface ConnectedPair {
  /** One `tools/call` of `date`; throws on an error result or empty text (a fast failure must not be timed). */
  callDate(): Promise<void>;
  /** The same for `fixed_date`, which answers without running anything. */
  callFixed(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  /** The revision the connection must end on; a pair that negotiates another is a failed run, not a figure. */
  expected: string;
  connect(): Promise<ConnectedPair>;
}

const REQUEST_TIMEOUT_MS = 10_000;
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const SERVER_V1 = fileURLToPath(new URL('./mcp-sdk-date-server-v1.js', import.meta.url));
const SERVER_V2 = fileURLToPath(new URL('./mcp-sdk-date-server-v2.js', import.meta.url));
const CLIENT_INFO = { name: 'bench-mcp-sdk', version: '1.0.0' };

/** Both SDKs' transports get the same environment: v1's allow-list, as the hub's servers do. */
function serverParams(file: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [file], env: getDefaultEnvironment() };
}

export const PAIRS: Record<PairName, Pair> = {
  v1: { expected: LEGACY, connect: () => connectV1() },
  v2_legacy: { expected: LEGACY, connect: () => connectV2(SERVER_V2, LEGACY, {}) },
  v2_modern: { expected: MODERN, connect: () => connectV2(SERVER_V2, MODERN, { versionNegotiation: { mode: { pin: MODERN } } }) },
  v2_auto: { expected: MODERN, connect: () => connectV2(SERVER_V2, MODERN, { versionNegotiation: { mode: 'auto' } }) },
  v2_auto_to_v1: { expected: LEGACY, connect: () => connectV2(SERVER_V1, LEGACY, { versionNegotiation: { mode: 'auto' } }) },
};

async function connectV1(): Promise<ConnectedPair> {
  const client = new ClientV1(CLIENT_INFO);
  await client.connect(new StdioV1(serverParams(SERVER_V1)), { timeout: REQUEST_TIMEOUT_MS });
  return {
    callDate: async () => checkDate(await client.callTool({ name: 'date', arguments: {} }, undefined, { timeout: REQUEST_TIMEOUT_MS })),
    callFixed: async () => checkDate(await client.callTool({ name: 'fixed_date', arguments: {} }, undefined, { timeout: REQUEST_TIMEOUT_MS })),
    close: () => client.close(),
  };
}

type ClientV2Options = ConstructorParameters<typeof ClientV2>[1];

async function connectV2(server: string, expected: string, options: ClientV2Options): Promise<ConnectedPair> {
  const client = new ClientV2(CLIENT_INFO, options);
  await client.connect(new StdioV2(serverParams(server)), { timeout: REQUEST_TIMEOUT_MS });
  const version = client.getNegotiatedProtocolVersion();
  if (version !== expected) {
    await client.close();
    throw new AppError('BENCH_SERVER_FAILED', `the v2 client negotiated ${version ?? 'nothing'} with ${server}, not ${expected}`);
  }
  return {
    callDate: async () => checkDate(await client.callTool({ name: 'date', arguments: {} }, { timeout: REQUEST_TIMEOUT_MS })),
    callFixed: async () => checkDate(await client.callTool({ name: 'fixed_date', arguments: {} }, { timeout: REQUEST_TIMEOUT_MS })),
    close: () => client.close(),
  };
}

function checkDate(result: unknown): void {
  const { isError, content } = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  const text = content?.[0]?.type === 'text' ? content[0].text : undefined;
  if (isError || !text) throw new AppError('BENCH_TOOL_FAILED', 'the date tool returned an error or no text', { cause: content });
}

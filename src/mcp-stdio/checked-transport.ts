/**
 * MCP over stdin/stdout, one JSON-RPC message per line, that answers what
 * the SDK's stdio transport drops. The SDK reports a line that is not a
 * valid JSON-RPC message only to `onerror`, so a request with an id but bad
 * params (`"params": "not an object"`) was never answered, and a line over
 * its 10 MiB buffer closed the connection with nothing said. Here every
 * such request gets a JSON-RPC error with its id (-32602 with a method,
 * -32600 without; -32700 for a line that is not JSON, with id null, as the
 * specification says), a line over the limit is skipped and answered with
 * id null, and what cannot be answered (a bad notification) is logged.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { logEvent, type LogSink } from '../log/index.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

export interface CheckedStdioOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  log?: LogSink;
  maxLineBytes?: number;
}

export class CheckedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly log: LogSink;
  private readonly maxLineBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line over the limit: its bytes are dropped up to its newline. */
  private skipping = false;
  private closed = false;

  constructor(options: CheckedStdioOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.log = options.log ?? process.stderr;
    // The SDK's own limit for one message (10 MiB), kept.
    this.maxLineBytes = options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.onclose?.();
  }

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a)) {
      const end = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = Buffer.concat([...this.pending, end]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.maxLineBytes) this.tooLong(line.length);
      else this.handleLine(line.toString('utf8').replace(/\r$/, ''));
    }
    if (this.skipping || data.length === 0) return;
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes > this.maxLineBytes) {
      const bytes = this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.tooLong(bytes);
    }
  };

  private tooLong(bytes: number): void {
    const message = `a message line over ${this.maxLineBytes} bytes (at least ${bytes}): skipped`;
    logEvent('error', 'mcp_message_too_long', { bytes, limit: this.maxLineBytes }, this.log);
    // send() never rejects (it waits for drain at most); the line is logged above.
    void this.send({ jsonrpc: '2.0', id: null as unknown as string, error: { code: INVALID_REQUEST, message } });
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      logEvent('error', 'mcp_message_invalid', { reason: 'not JSON', error: (error as Error).message }, this.log);
      // send() never rejects (it waits for drain at most); the line is logged above.
      void this.send({ jsonrpc: '2.0', id: null as unknown as string, error: { code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}` } });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    const reason = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
    const request = typeof value === 'object' && value !== null ? (value as { id?: unknown; method?: unknown }) : {};
    const id = request.id;
    logEvent('error', 'mcp_message_invalid', { reason, ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}) }, this.log);
    if (typeof id !== 'string' && typeof id !== 'number') return; // a notification or a response: nothing to answer
    const withMethod = typeof request.method === 'string';
    const code = withMethod ? INVALID_PARAMS : INVALID_REQUEST;
    // send() never rejects (it waits for drain at most); the request is logged above.
    void this.send({ jsonrpc: '2.0', id, error: { code, message: `${withMethod ? 'Invalid params' : 'Invalid request'}: ${reason}` } });
  }
}

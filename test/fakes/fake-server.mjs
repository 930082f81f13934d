#!/usr/bin/env node
// A scripted stdio MCP server for the hub's tests. Behaviour by environment:
//   FAKE_PID_FILE             append this process's pid, one per start
//   FAKE_FAIL_START_FLAG      exit 1 at start while this file exists
//   FAKE_CRASH_AFTER=N        exit 1 on the call after the first N (without answering it)
//   FAKE_STDERR_LINES=N       write N numbered lines to stderr at start
//   FAKE_CANCEL_LOG           append "cancelled ID REASON" when a call is cancelled,
//                             "late ID" when a late answer is sent anyway
//   FAKE_PAGE_SIZE=N          tools/list answers N tools a page, with cursors
//   FAKE_TOOLS=a.b,c          extra tools that answer their own name
//   FAKE_GRANDCHILD_PID_FILE  start `sleep 300` in our process group, write its pid
//   FAKE_IGNORE_STDIN_CLOSE=1 keep running after stdin closes
//   FAKE_IGNORE_SIGTERM=1     ignore SIGTERM (only SIGKILL stops it)
//   FAKE_DESCRIPTION_SUFFIX   appended to the description of the FAKE_TOOLS tools (a changed definition)
//   FAKE_BAD_OUTPUT_SCHEMA=1  add a tool `odd` whose outputSchema is not valid JSON Schema
//   FAKE_CALL_LOG             append "call ID NAME" when a call arrives (before it is answered)
// Tools: echo {text}, crash, slow {ms, late}, add-tool {name}, stderr {text}, pid.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const env = process.env;
const log = (line) => process.stderr.write(`fake[${process.pid}]: ${line}\n`);
const note = (line) => env.FAKE_CANCEL_LOG && appendFileSync(env.FAKE_CANCEL_LOG, `${line}\n`);

if (env.FAKE_PID_FILE) appendFileSync(env.FAKE_PID_FILE, `${process.pid}\n`);
if (env.FAKE_FAIL_START_FLAG && existsSync(env.FAKE_FAIL_START_FLAG)) {
  log('refusing to start: flag file present');
  process.exit(1);
}
for (let i = 1; i <= Number(env.FAKE_STDERR_LINES ?? 0); i += 1) log(`stderr line ${i}`);
if (env.FAKE_IGNORE_SIGTERM === '1') process.on('SIGTERM', () => log('ignoring SIGTERM'));
if (env.FAKE_GRANDCHILD_PID_FILE) {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  child.unref();
  appendFileSync(env.FAKE_GRANDCHILD_PID_FILE, `${child.pid}\n`);
}

const object = (properties = {}) => ({ type: 'object', properties });
const tools = [
  { name: 'echo', description: 'Echoes text', inputSchema: object({ text: { type: 'string' } }) },
  { name: 'crash', description: 'Exits with status 1', inputSchema: object() },
  { name: 'slow', description: 'Answers after ms', inputSchema: object({ ms: { type: 'number' }, late: { type: 'boolean' } }) },
  { name: 'add-tool', description: 'Adds a tool and sends list_changed', inputSchema: object({ name: { type: 'string' } }) },
  { name: 'stderr', description: 'Writes text to stderr', inputSchema: object({ text: { type: 'string' } }) },
  { name: 'pid', description: 'Answers the process id', inputSchema: object() },
  ...(env.FAKE_TOOLS ? env.FAKE_TOOLS.split(',') : []).map((name) => ({ name, description: `Extra ${name}${env.FAKE_DESCRIPTION_SUFFIX ?? ''}`, inputSchema: object() })),
];
if (env.FAKE_BAD_OUTPUT_SCHEMA === '1') {
  tools.push({ name: 'odd', description: 'Bad output schema', inputSchema: object(), outputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } });
}

const server = new Server({ name: 'fake', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
const text = (value) => ({ content: [{ type: 'text', text: String(value) }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const size = Number(env.FAKE_PAGE_SIZE ?? tools.length);
  const start = Number(request.params?.cursor ?? 0);
  const next = start + size;
  return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
});

let calls = 0;
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  calls += 1;
  if (env.FAKE_CALL_LOG) appendFileSync(env.FAKE_CALL_LOG, `call ${extra.requestId} ${request.params.name}\n`);
  if (env.FAKE_CRASH_AFTER && calls > Number(env.FAKE_CRASH_AFTER)) {
    log(`crashing on call ${calls}`);
    process.exit(1);
  }
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      return text(`echo: ${args.text ?? ''}`);
    case 'crash':
      log('crash tool called, exiting');
      process.exit(1);
    case 'slow': {
      extra.signal.addEventListener('abort', () => {
        log(`cancelled ${extra.requestId}`);
        note(`cancelled ${extra.requestId} ${extra.signal.reason}`);
      });
      await sleep(Number(args.ms ?? 1000));
      if (extra.signal.aborted && args.late === true) {
        // The SDK drops an answer to a cancelled request: a misbehaving server sends it anyway.
        process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: extra.requestId, result: text('late answer') })}\n`);
        note(`late ${extra.requestId}`);
      }
      return text(`slow done after ${args.ms}`);
    }
    case 'add-tool':
      tools.push({ name: String(args.name), description: 'Added later', inputSchema: object() });
      await server.sendToolListChanged();
      return text(`added ${args.name}`);
    case 'stderr':
      process.stderr.write(`${args.text}\n`);
      return text('written');
    case 'pid':
      return text(process.pid);
    default:
      if (tools.some((t) => t.name === request.params.name)) return text(request.params.name);
      return { ...text(`no tool ${request.params.name}`), isError: true };
  }
});

await server.connect(new StdioServerTransport());
if (env.FAKE_IGNORE_STDIN_CLOSE === '1') setInterval(() => undefined, 1 << 30);
else process.stdin.on('end', () => process.exit(0));

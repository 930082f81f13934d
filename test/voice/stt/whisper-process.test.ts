import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  STT_CANCELLED,
  STT_MODEL_MISSING,
  STT_PORT_BUSY,
  STT_SERVER_START_FAILED,
  WhisperServerStt,
  startWhisperServer,
  type WhisperProcess,
} from '../../../src/voice/stt/index.js';
import { failure } from '../../helpers/outcomes.js';
import { isRunning } from '../../helpers/process-state.js';

/**
 * Acts as whisper-server on the --port it is given: /health (503 while
 * "loading" for --load-ms), /inference with a fixed reply. Flags of its own
 * script the rest: --record FILE (its argv and pids), --child (starts a
 * `sleep` in its group), --exit-early, --never-listen, --ignore-term.
 */
const FAKE_SERVER = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
const args = process.argv.slice(2);
const value = (flag) => args[args.indexOf(flag) + 1];
const record = { argv: args, pid: process.pid };
if (args.includes('--child')) record.child = spawn('sleep', ['300'], { stdio: 'ignore' }).pid;
if (args.includes('--record')) writeFileSync(value('--record'), JSON.stringify(record));
if (args.includes('--ignore-term')) process.on('SIGTERM', () => {});
if (args.includes('--exit-early')) {
  process.stderr.write('whisper_init_from_file_with_params_no_state: loading model\\nerror: failed to initialize whisper context\\n');
  process.exit(3);
}
if (args.includes('--never-listen')) setInterval(() => {}, 1000);
else {
  const loadedAt = Date.now() + Number(args.includes('--load-ms') ? value('--load-ms') : 0);
  createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/health') {
      if (Date.now() < loadedAt) res.writeHead(503).end('{"status":"loading model"}');
      else res.end('{"status":"ok"}');
    } else if (req.method === 'POST' && req.url === '/inference') {
      req.resume().on('end', () => res.end('{"text":" hello from the fake","language":"english"}'));
    } else res.writeHead(404).end();
  }).listen(Number(value('--port')), value('--host'));
}
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let dir: string;
let binary: string;
let model: string;
let recordFile: string;
let started: WhisperProcess | undefined;

const recorded = (): { argv: string[]; pid: number; child?: number } => JSON.parse(readFileSync(recordFile, 'utf8'));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stt-whisper-process-'));
  binary = join(dir, 'whisper-server');
  writeFileSync(binary, `#!${process.execPath}\n${FAKE_SERVER}`, { mode: 0o755 });
  model = join(dir, 'ggml-tiny.bin');
  writeFileSync(model, 'not really a model');
  recordFile = join(dir, 'record.json');
});

afterEach(async () => {
  await started?.close();
  started = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('startWhisperServer', () => {
  it('refuses a missing model, naming the path and the config key, before spawning anything', async () => {
    const missing = join(dir, 'ggml-large-v3-turbo-q5_0.bin');
    const error = await failure(startWhisperServer({ binary, model: missing, port: await freePort(), configKey: 'whisper.model', extraArgs: ['--record', recordFile] }));
    expect(error).toEqual({ code: STT_MODEL_MISSING, message: `whisper model file not found: ${missing} (config key whisper.model)` });
    mkdirSync(join(dir, 'models'));
    expect(await failure(startWhisperServer({ binary, model: join(dir, 'models'), port: await freePort() }))).toMatchObject({ code: STT_MODEL_MISSING });
    expect(existsSync(recordFile)).toBe(false);
  });

  it("starts it as the predecessor did, waits out the model load, serves, and stops its whole group", { timeout: 20_000 }, async () => {
    const port = await freePort();
    const begun = performance.now();
    started = await startWhisperServer({ binary, model, port, device: 1, extraArgs: ['--record', recordFile, '--child', '--load-ms', '400'] });
    // /health said 503 "loading model" for 400 ms after the fake started.
    expect(performance.now() - begun).toBeGreaterThanOrEqual(400);
    expect(started.url).toBe(`http://127.0.0.1:${port}`);
    const { argv, pid, child } = recorded();
    expect(argv).toEqual(['-m', model, '-dev', '1', '--host', '127.0.0.1', '--port', String(port), '--record', recordFile, '--child', '--load-ms', '400']);
    expect(started.pid).toBe(pid);
    expect((await fetch(`${started.url}/health`)).status).toBe(200);

    const stt = new WhisperServerStt({ url: started.url });
    for await (const result of stt.transcribe(new Int16Array(1600))) expect(result).toEqual({ text: 'hello from the fake', final: true, language: 'en' });

    expect([isRunning(pid), isRunning(child!)]).toEqual([true, true]);
    await started.close();
    await started.close();
    await expect.poll(() => [isRunning(pid), isRunning(child!)]).toEqual([false, false]);
  });

  it('says why when the server exits before answering', { timeout: 20_000 }, async () => {
    const error = await failure(startWhisperServer({ binary, model, port: await freePort(), extraArgs: ['--exit-early'] }));
    expect(error.code).toBe(STT_SERVER_START_FAILED);
    expect(error.message).toMatch(/ exited \(exit 3\) before answering at http:\/\/127\.0\.0\.1:\d+: error: failed to initialize whisper context$/);
  });

  it('gives up on a server that never answers, and kills it', { timeout: 20_000 }, async () => {
    const port = await freePort();
    const error = await failure(startWhisperServer({ binary, model, port, startTimeoutMs: 500, extraArgs: ['--record', recordFile, '--never-listen'] }));
    expect(error).toEqual({ code: STT_SERVER_START_FAILED, message: `${binary} did not answer at http://127.0.0.1:${port} within 500 ms` });
    await expect.poll(() => isRunning(recorded().pid)).toBe(false);
  });

  it('kills a server that ignores SIGTERM once the grace time is over', { timeout: 20_000 }, async () => {
    started = await startWhisperServer({ binary, model, port: await freePort(), stopGraceMs: 300, extraArgs: ['--record', recordFile, '--ignore-term'] });
    const begun = performance.now();
    await started.close();
    expect(isRunning(recorded().pid)).toBe(false);
    expect(performance.now() - begun).toBeGreaterThanOrEqual(250);
  });

  it('cancels a start on abort, and kills what it started', { timeout: 20_000 }, async () => {
    const controller = new AbortController();
    const pending = failure(startWhisperServer({ binary, model, port: await freePort(), extraArgs: ['--record', recordFile, '--never-listen'] }, { signal: controller.signal }));
    await expect.poll(() => existsSync(recordFile)).toBe(true);
    controller.abort();
    expect((await pending).code).toBe(STT_CANCELLED);
    await expect.poll(() => isRunning(recorded().pid)).toBe(false);
  });

  it('refuses a port something already answers on, and a program that does not exist', async () => {
    const other: Server = createServer((_, res) => res.end('{}'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as AddressInfo;
      const busy = await failure(startWhisperServer({ binary, model, port, extraArgs: ['--record', recordFile] }));
      expect(busy.code).toBe(STT_PORT_BUSY);
      expect(busy.message).toContain(`http://127.0.0.1:${port}`);
      expect(existsSync(recordFile)).toBe(false);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    expect(await failure(startWhisperServer({ binary: join(dir, 'no-such-server'), model, port: await freePort() }))).toEqual({
      code: STT_SERVER_START_FAILED,
      message: `cannot run ${join(dir, 'no-such-server')}: No such file or directory`,
    });
  });
});

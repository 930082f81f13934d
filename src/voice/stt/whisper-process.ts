import { stat } from 'node:fs/promises';
import { AppError } from '../../errors/index.js';
import { allowListedEnv, delay, describeErrno, killGroupAtExit, spawnInGroup, stopGroup } from '../../process/index.js';
import { STT_BAD_OPTIONS, STT_MODEL_MISSING, STT_PORT_BUSY, STT_SERVER_START_FAILED, lastErrorLine, sttCancelled } from './errors.js';

export interface WhisperProcessOptions {
  /** Program name (looked up in PATH) or path; `whisper-server` by default. */
  binary?: string;
  /** The ggml model file (`-m`). */
  model: string;
  port: number;
  /** GPU device index (`-dev`), the predecessor's `[whisper] device`; not passed when absent. */
  device?: number;
  /** More flags, appended as given (`-t 8`, `-ng`, `-l auto`). */
  extraArgs?: string[];
  /** Until the model is loaded and the server answers; 120000 by default. */
  startTimeoutMs?: number;
  /** After SIGTERM to its group, before SIGKILL (and after SIGKILL, before giving up); 3000 by default. */
  stopGraceMs?: number;
  /** The config key the model path came from, named in the missing-model error. */
  configKey?: string;
  /** The server's environment; the process module's allow-list of ours by default. */
  env?: NodeJS.ProcessEnv;
}

export interface WhisperProcess {
  /** `http://127.0.0.1:PORT`: the URL for WhisperServerStt. */
  readonly url: string;
  readonly pid: number;
  /** Stops the server and whatever it started (SIGTERM to its process group, then SIGKILL); idempotent. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
// A large-v3 model from a cold disk onto a GPU takes tens of seconds.
const DEFAULT_START_TIMEOUT_MS = 120_000;
const DEFAULT_STOP_GRACE_MS = 3000;
const POLL_MS = 100;
const STDERR_TAIL = 4096;

/**
 * Starts whisper.cpp's whisper-server as the predecessor did
 * (`whisper-server -m MODEL [-dev N] --host 127.0.0.1 --port PORT`) and
 * resolves once it answers. A missing model fails here, naming the path,
 * before anything is spawned: whisper-server's own error for it is a line
 * in a long log. The server leads a process group of its own, so stopping
 * it also stops anything it started (ffmpeg, with `--convert`).
 */
export async function startWhisperServer(options: WhisperProcessOptions, run: { signal?: AbortSignal } = {}): Promise<WhisperProcess> {
  const { port, model } = options;
  const { signal } = run;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AppError(STT_BAD_OPTIONS, `the whisper-server port must be 1..65535, not ${port}`);
  const where = options.configKey === undefined ? '' : ` (config key ${options.configKey})`;
  const found = await stat(model).catch(() => undefined);
  if (found === undefined) throw new AppError(STT_MODEL_MISSING, `whisper model file not found: ${model}${where}`);
  if (!found.isFile()) throw new AppError(STT_MODEL_MISSING, `whisper model is not a file: ${model}${where}`);
  const url = `http://${HOST}:${port}`;
  if ((await probe(url)) !== undefined) {
    throw new AppError(STT_PORT_BUSY, `something already answers at ${url}: give that URL as the whisper-server to use, or choose another port`);
  }
  if (signal?.aborted) throw sttCancelled('starting whisper-server', signal.reason);

  const binary = options.binary ?? 'whisper-server';
  const args = ['-m', model, ...(options.device === undefined ? [] : ['-dev', String(options.device)]), '--host', HOST, '--port', String(port), ...(options.extraArgs ?? [])];
  const child = spawnInGroup(binary, args, { env: options.env ?? allowListedEnv(process.env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL);
  });
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signalName) => {
      exit = signalName === null ? `exit ${code}` : `signal ${signalName}`;
      resolve();
    });
  });
  const spawned = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawned !== undefined || child.pid === undefined) {
    throw new AppError(STT_SERVER_START_FAILED, `cannot run ${binary}: ${describeErrno(spawned?.code, spawned?.message ?? 'not started')}`);
  }
  const pid = child.pid;
  // A daemon that dies without close() must not leave the model loaded on the GPU.
  const forgetExitHook = killGroupAtExit(pid);
  const graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      forgetExitHook();
      // stdin is not open: SIGTERM at once; also after a clean exit, for what the server started.
      await stopGroup(child, { stdinGraceMs: 0, termGraceMs: graceMs, killGraceMs: graceMs });
    })();
    return closing;
  };

  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const deadline = Date.now() + startTimeoutMs;
  try {
    for (;;) {
      if (exit !== undefined) {
        throw new AppError(STT_SERVER_START_FAILED, `${binary} exited (${exit}) before answering at ${url}: ${lastErrorLine(stderr) || 'no error output'}`);
      }
      if (signal?.aborted) throw sttCancelled('starting whisper-server', signal.reason);
      const status = await probe(url);
      // 503 is "loading model"; builds without /health answer 404, and they only listen once loaded.
      if (status !== undefined && status !== 503) return { url, pid, close };
      if (Date.now() >= deadline) throw new AppError(STT_SERVER_START_FAILED, `${binary} did not answer at ${url} within ${startTimeoutMs} ms`, { retryable: true });
      await Promise.race([exited, delay(POLL_MS)]);
    }
  } catch (error) {
    await close();
    throw error;
  }
}

/** The HTTP status of GET /health, or undefined when nothing answers. */
async function probe(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

import { configDir, loadConfig } from '../../config/index.js';
import { AppError, isErrorCode, messageOf } from '../../errors/index.js';
import { readToken, tokenPath } from '../http/index.js';

/** A daemon on loopback answers in milliseconds; one that takes this long is stuck. */
const REQUEST_TIMEOUT_MS = 5000;

export interface DaemonClientOptions {
  /** `--config-dir`: where `[http]` host and port come from, as for `run`. */
  configDir?: string;
  /** `--port`: overrides `[http] port`, for a daemon started with `run --port N`. */
  port?: number;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The running daemon's HTTP API, as the CLI talks to it: errors are AppErrors that name the fix. */
export interface DaemonClient {
  readonly url: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string): Promise<T>;
}

/** The daemon's address from the config's `[http]` section and its token from the token file (read at the first request). */
export async function daemonClient(options: DaemonClientOptions): Promise<DaemonClient> {
  const config = await loadConfig(configDir(options.configDir, options.env));
  const { host } = config.http;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${options.port ?? config.http.port}`;
  const tokenFile = tokenPath(options.env);
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;

  const send = async (method: 'GET' | 'POST', path: string, token?: string): Promise<Response> => {
    try {
      return await fetch(`${url}${path}`, {
        method,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unreachable(error, url, timeoutMs);
    }
  };

  let token: string | undefined;
  const request = async <T>(method: 'GET' | 'POST', path: string): Promise<T> => {
    token ??= readToken(tokenFile);
    if (!token) {
      // Which fix to name: a daemon that is not there, or one whose token is elsewhere.
      await send('GET', '/health');
      throw new AppError(
        'DAEMON_NO_TOKEN',
        `a daemon answers at ${url} but there is no token at ${tokenFile}: run this with the same XDG_RUNTIME_DIR (or DESKTOP_ASSISTANT_DATA_DIR) as \`desktop-assistant run\``,
      );
    }
    return answerOf<T>(await send(method, path, token), url, tokenFile);
  };

  return { url, get: (path) => request('GET', path), post: (path) => request('POST', path) };
}

async function answerOf<T>(response: Response, url: string, tokenFile: string): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('DAEMON_BAD_ANSWER', `the server at ${url} is not a desktop-assistant daemon (it answered ${response.status} with no JSON): check [http] port in config.toml`);
  }
  if (response.ok) return body as T;
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  const code = isErrorCode(error?.code) ? error.code : 'DAEMON_HTTP_ERROR';
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`;
  if (code === 'UNAUTHORIZED') {
    throw new AppError(
      'UNAUTHORIZED',
      `the daemon at ${url} refused the token in ${tokenFile} (401): it runs with another token file; use the same XDG_RUNTIME_DIR (or DESKTOP_ASSISTANT_DATA_DIR) as \`desktop-assistant run\`, or restart the daemon`,
    );
  }
  // The daemon's own words stay apart from ours, for a caller that says them its way.
  throw new AppError(code, `the daemon at ${url} answered ${response.status} ${code}: ${message}`, { details: { status: response.status, message } });
}

function unreachable(error: unknown, url: string, timeoutMs: number): AppError {
  if ((error as { name?: string }).name === 'TimeoutError') {
    return new AppError('DAEMON_TIMEOUT', `the daemon at ${url} did not answer within ${timeoutMs / 1000} s: is it stuck? \`journalctl --user -u desktop-assistant\` or its terminal may say why`, {
      cause: error,
      retryable: true,
    });
  }
  const code = errnoOf(error);
  if (code === 'ECONNREFUSED') {
    return new AppError('DAEMON_NOT_RUNNING', `no daemon answers at ${url}: start it with \`desktop-assistant run\``, { cause: error, retryable: true });
  }
  const reason = code ?? messageOf((error as { cause?: unknown }).cause ?? error);
  return new AppError('DAEMON_UNREACHABLE', `cannot reach the daemon at ${url}: ${reason}`, { cause: error, retryable: true });
}

/** fetch fails with "fetch failed"; the socket's errno is on its cause, or on each attempt of a dual-stack connect. */
function errnoOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  const first = cause?.errors?.find((e) => typeof e.code === 'string');
  return typeof first?.code === 'string' ? first.code : undefined;
}

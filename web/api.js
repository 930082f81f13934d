// The HTTP API as the page uses it: the token from local storage in an
// Authorization header (never in a URL), JSON in and out, errors as ApiError.

const TOKEN_KEY = 'desktop-assistant.token';

export class ApiError extends Error {
  /** @param {number} status 0 when the server could not be reached */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function loadToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    // Storage can be off (private modes, policies): the page then asks each time.
    return memoryToken;
  }
}

let memoryToken = null;

export function saveToken(token) {
  memoryToken = token;
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Kept in memory only.
  }
}

export function forgetToken() {
  memoryToken = null;
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing stored.
  }
}

let unauthorized = () => undefined;

/** Called whenever the server answers 401: the page forgets the token and asks again. */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

export function notifyUnauthorized() {
  unauthorized();
}

/**
 * One API call. Resolves to the parsed JSON body (or null when empty).
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {unknown} [body]
 */
export async function request(method, path, body) {
  const token = loadToken();
  if (!token) {
    unauthorized();
    throw new ApiError(401, 'UNAUTHORIZED', 'No token yet.');
  }
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The assistant could not be reached.');
  }
  const text = await response.text().catch(() => '');
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.status === 401) {
    unauthorized();
    throw new ApiError(401, data?.error?.code ?? 'UNAUTHORIZED', data?.error?.message ?? 'The token was refused.');
  }
  if (!response.ok) {
    const error = data?.error;
    throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? (response.statusText || 'Request failed.'));
  }
  return data;
}

export const api = {
  state: () => request('GET', '/state'),
  confirmations: () => request('GET', '/confirmations'),
  sendTurn: (text) => request('POST', '/turns', { text }),
  interrupt: () => request('POST', '/interrupt'),
  startListening: () => request('POST', '/listen/start'),
  stopListening: () => request('POST', '/listen/stop'),
  answer: (id, approve) => request('POST', `/confirmations/${encodeURIComponent(id)}`, { approve }),
  approveTool: (name) => request('POST', `/tools/${encodeURIComponent(name)}/approve`),
};

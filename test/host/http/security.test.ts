import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiFixture, BASE, TOKEN, type ApiFixture } from './api-fixture.js';

let f: ApiFixture;
beforeEach(async () => {
  f = await apiFixture({ maxBodyBytes: 1024 });
});
afterEach(() => f.close());

const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

describe('security', () => {
  it('answers /health without a token, and nothing else', async () => {
    const health = await f.call('/health', { token: null });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, version: '9.9.9' });
    for (const path of ['/state', '/tools', '/events', '/audit', '/metrics', '/confirmations']) {
      const response = await f.call(path, { token: null });
      expect(response.status).toBe(401);
      expect(await codeOf(response)).toBe('UNAUTHORIZED');
    }
  });

  it('answers an unexpected failure with 500 and an id, its message and stack only in the log', async () => {
    vi.spyOn(f.deps.router, 'catalog').mockImplementation(() => {
      throw new Error('cannot open /home/someone/.local/share/desktop-assistant/state.db');
    });
    const logged: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((line) => (logged.push(String(line)), true));
    try {
      const response = await f.call('/tools');
      expect(response.status).toBe(500);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('INTERNAL');
      expect(error.message).not.toContain('/home/someone');
      const id = /^internal error \(logged as ([0-9a-f]{8})\)$/.exec(error.message)?.[1];
      expect(id, error.message).toBeDefined();
      const entry = logged
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((e) => e.event === 'http_internal_error');
      expect(entry).toMatchObject({ id, path: '/tools', message: expect.stringContaining('/home/someone') });
    } finally {
      write.mockRestore();
    }
  });

  it('refuses a wrong token, a token of the right length, and other schemes', async () => {
    expect((await f.call('/state', { token: 'nope' })).status).toBe(401);
    expect((await f.call('/state', { token: 'x'.repeat(TOKEN.length) })).status).toBe(401);
    const basic = await f.api.app.request(`${BASE}/state`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) with 403, even with the token', async () => {
    for (const host of ['evil.example.org', 'evil.example.org:8765', '127.0.0.1:9999', '192.168.1.2:8765']) {
      const response = await f.api.app.request(`${BASE}/state`, { headers: { host, authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('FORBIDDEN_HOST');
    }
    const local = await f.api.app.request(`${BASE}/state`, { headers: { host: 'localhost:8765', authorization: `Bearer ${TOKEN}` } });
    expect(local.status).toBe(200);
  });

  it('refuses a foreign Origin with 403 and sends no CORS headers', async () => {
    const foreign = await f.call('/state', { headers: { origin: 'https://evil.example.org' } });
    expect(foreign.status).toBe(403);
    expect(await codeOf(foreign)).toBe('FORBIDDEN_ORIGIN');
    expect((await f.call('/state', { headers: { origin: 'null' } })).status).toBe(403);
    const own = await f.call('/state', { headers: { origin: BASE } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await f.call('/turns', { method: 'OPTIONS', headers: { origin: 'https://evil.example.org' } });
    expect(preflight.status).toBe(403);
  });

  it('refuses a body over the limit with 413', async () => {
    const response = await f.call('/turns', { method: 'POST', body: JSON.stringify({ text: 'x'.repeat(2000) }), headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(413);
    expect(await codeOf(response)).toBe('BODY_TOO_LARGE');
  });

  it('answers an unknown route with 404 in the error format', async () => {
    const response = await f.call('/nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route GET /nope' } });
  });

  it('serves the page and its files without the token', async () => {
    const page = await f.call('/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect((await f.call('/assets/app.js', { token: null })).headers.get('content-type')).toContain('javascript');
    expect((await f.call('/assets/..%2Fpackage.json', { token: null })).status).toBe(404);
    expect((await f.call('/assets/secret.txt', { token: null })).status).toBe(404);
  });
});

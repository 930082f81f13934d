import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { apiFixture, readSse, type ApiFixture } from './api-fixture.js';

let f: ApiFixture;
beforeEach(async () => {
  f = await apiFixture();
});
afterEach(() => f.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  f.call(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe('GET /state and /tools', () => {
  it('reports state, mode, providers, servers and tools', async () => {
    const body = await (await f.call('/state')).json();
    expect(body).toMatchObject({ state: 'idle', mode: 'text', voice: { enabled: false }, turn: null, routerEnabled: true });
    expect(body.providers[0]).toMatchObject({ health: 'unknown' });
    expect(body.servers.map((s: { name: string }) => s.name)).toEqual(['tools']);
    expect(body.tools.map((t: { name: string; risk: string; status: string }) => [t.name, t.risk, t.status])).toEqual([
      ['note', 'write', 'ready'],
      ['weather', 'read', 'ready'],
    ]);
    const tools = await (await f.call('/tools')).json();
    expect(tools.tools[1]).toMatchObject({ name: 'weather', server: 'tools', decision: 'allow', quarantined: false });
  });
});

describe('POST /turns', () => {
  it('runs a text turn that needs a tool and answers JSON', async () => {
    f.llm.enqueue({ toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] }, { text: 'It is sunny in Rome.' });
    const response = await post('/turns', { text: 'Weather in Rome?' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ reply: 'It is sunny in Rome.', status: 'ok', toolCalls: [{ status: 'ok' }] });
    const audit = await (await f.call('/audit?limit=5')).json();
    expect(audit.records[0]).toMatchObject({ tool: 'weather', entry: 'http', status: 'ok' });
  });

  it('streams the turn as Server-Sent Events when asked', async () => {
    f.llm.enqueue({ text: 'One. Two.' });
    const response = await post('/turns', { text: 'Count' }, { accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const turnId = response.headers.get('x-turn-id');
    const events = await readSse(response, (e) => e.some((x) => x.event === 'turn.ended'));
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['turn.started', 'llm.sentence', 'turn.ended']));
    expect(events.every((e) => e.data.turnId === turnId)).toBe(true);
    expect(events.filter((e) => e.event === 'llm.sentence').map((e) => e.data.text)).toEqual(['One.', 'Two.']);
  });

  it.each([
    ['{"text": ', 400, 'BAD_JSON'],
    ['[1]', 400, 'BAD_REQUEST'],
    ['{}', 400, 'BAD_REQUEST'],
    ['{"text": "   "}', 400, 'BAD_REQUEST'],
    ['{"text": "hi", "stream": "yes"}', 400, 'BAD_REQUEST'],
  ])('refuses %s with %i %s', async (body, status, code) => {
    const response = await post('/turns', body);
    expect(response.status).toBe(status);
    expect((await errorOf(response)).code).toBe(code);
  });

  it('says which field is wrong and why', async () => {
    expect((await errorOf(await post('/turns', '{}'))).message).toBe('the request body is not what POST /turns takes: "text": a non-empty string is needed');
    expect((await errorOf(await post('/turns', '[1]'))).message).toBe('the request body is not what POST /turns takes: a JSON object is needed');
    expect((await errorOf(await post('/turns', '{"text": "hi", "stream": "yes"}'))).message).toMatch(/^the request body is not what POST \/turns takes: "stream": /);
  });

  it('refuses a second turn while one runs (409), and POST /interrupt stops the first', async () => {
    f.llm.enqueue({ fail: 'hang' });
    const first = post('/turns', { text: 'Wait' });
    await waitFor(() => (f.deps.turns.activeTurnId ? true : undefined), 'the turn to start');
    const second = await post('/turns', { text: 'Again' });
    expect(second.status).toBe(409);
    expect((await errorOf(second)).code).toBe('TURN_IN_PROGRESS');
    expect(await (await post('/interrupt', {})).json()).toEqual({ interrupted: true });
    expect(await (await first).json()).toMatchObject({ status: 'cancelled' });
    expect(await (await post('/interrupt', {})).json()).toEqual({ interrupted: false });
  });
});

describe('confirmations', () => {
  it('holds a write tool until POST /confirmations/:id approves it', async () => {
    f.llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{"text":"milk"}' }] }, (r) => ({ text: String(r.messages.at(-1)?.content) }));
    const turn = post('/turns', { text: 'Note milk' });
    const pending = await waitFor(async () => {
      const list = (await (await f.call('/confirmations')).json()).confirmations;
      return list.length > 0 ? list : undefined;
    }, 'a pending confirmation');
    expect(pending[0]).toMatchObject({ tool: 'note', risk: 'write', argsSummary: '{"text":"milk"}', entry: 'http' });
    expect((await post(`/confirmations/${pending[0].id}`, { approve: 'yes' })).status).toBe(400);
    expect(await (await post(`/confirmations/${pending[0].id}`, { approve: true })).json()).toEqual({ id: pending[0].id, approved: true });
    expect(await (await turn).json()).toMatchObject({ reply: 'noted milk', status: 'ok' });
    expect((await (await f.call('/confirmations')).json()).confirmations).toEqual([]);
  });

  it('denies on approve: false, and 404 for an unknown id', async () => {
    f.llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{"text":"milk"}' }] }, (r) => ({ text: JSON.parse(String(r.messages.at(-1)?.content)).error.code }));
    const turn = post('/turns', { text: 'Note milk' });
    const id = await waitFor(async () => (await (await f.call('/confirmations')).json()).confirmations[0]?.id, 'a pending confirmation');
    await post(`/confirmations/${id}`, { approve: false });
    expect(await (await turn).json()).toMatchObject({ reply: 'TOOL_DENIED_BY_USER' });
    const unknown = await post('/confirmations/nope', { approve: true });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('CONFIRMATION_UNKNOWN');
    const unclear = await post('/confirmations/nope', { approve: 'yes' });
    expect(unclear.status).toBe(400);
    expect((await errorOf(unclear)).message).toBe('the request body is not what POST /confirmations/nope takes: "approve": true or false is needed');
  });
});

describe('tools, audit, metrics', () => {
  it('approves a tool (404 for an unknown one)', async () => {
    const approved = await post('/tools/weather/approve', {});
    expect(approved.status).toBe(200);
    expect((await approved.json()).tool).toMatchObject({ name: 'weather', quarantined: false });
    const unknown = await post('/tools/nope/approve', {});
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('TOOL_UNKNOWN');
  });

  it('checks the audit limit', async () => {
    expect((await f.call('/audit?limit=0')).status).toBe(400);
    expect((await f.call('/audit?limit=abc')).status).toBe(400);
    expect(await (await f.call('/audit')).json()).toEqual({ records: [] });
  });

  it('serves per-stage latencies and counts in the Prometheus text format', async () => {
    f.llm.enqueue({ toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] }, { text: 'Sunny.' });
    await post('/turns', { text: 'Weather?' });
    const response = await f.call('/metrics');
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('# TYPE desktop_assistant_stage_latency_ms summary');
    expect(text).toMatch(/^desktop_assistant_stage_latency_ms_count\{stage="tool_call"\} 1$/m);
    expect(text).toMatch(/^desktop_assistant_stage_latency_ms_count\{stage="llm_first_token"\} 1$/m);
    expect(text).toMatch(/^desktop_assistant_tool_calls_total\{tool="weather",status="ok"\} 1$/m);
    expect(text).toMatch(/^desktop_assistant_events_total\{type="turn.ended"\} 1$/m);
  });
});

describe('GET /events', () => {
  it('replays recent events on connect, then streams live ones', async () => {
    f.llm.enqueue({ text: 'First.' }, { text: 'Second.' });
    await post('/turns', { text: 'one' });
    const response = await f.call('/events');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const live = post('/turns', { text: 'two' });
    const events = await readSse(response, (e) => e.filter((x) => x.event === 'turn.ended').length >= 2);
    await live;
    const ended = events.filter((e) => e.event === 'turn.ended').map((e) => e.data.reply);
    expect(ended).toEqual(['First.', 'Second.']);
    const seqs = events.map((e) => Number(e.id));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(events.some((e) => e.event === 'state.changed')).toBe(true);
  });

  it('resumes after Last-Event-ID without repeating events', async () => {
    f.llm.enqueue({ text: 'First.' }, { text: 'Second.' });
    await post('/turns', { text: 'one' });
    const firstTurn = await readSse(await f.call('/events'), (e) => e.some((x) => x.event === 'turn.ended'));
    const last = firstTurn.at(-1)!.id;
    await post('/turns', { text: 'two' });
    const resumed = await readSse(await f.call('/events', { headers: { 'last-event-id': last } }), (e) => e.some((x) => x.event === 'turn.ended'));
    expect(Number(resumed[0]!.id)).toBe(Number(last) + 1);
    expect(resumed.find((e) => e.event === 'turn.ended')?.data.reply).toBe('Second.');
  });

  it('cleans up after clients that disconnect: no follower left after 200 cycles', async () => {
    const before = f.deps.events.followerCount;
    for (let i = 0; i < 200; i++) {
      const response = await f.call('/events');
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
    }
    expect(f.deps.events.followerCount).toBe(before);
    expect(f.deps.bus.listenerCount).toBeLessThan(10);
  });
});

describe('a client that stops reading', () => {
  it('is dropped once 4 MiB wait for it, and gets what was queued before the end', async () => {
    const response = await f.call('/events');
    const before = f.deps.events.followerCount;
    expect(before).toBeGreaterThan(0);
    const message = 'x'.repeat(1000);
    for (let i = 0; i < 6000 && f.deps.events.followerCount === before; i++) {
      f.deps.bus.emit({ type: 'error', stage: 'test', code: 'NOISE', message, recoverable: true, atMs: i });
    }
    expect(f.deps.events.followerCount).toBe(before - 1);
    const reader = response.body!.getReader();
    let bytes = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
    }
    expect(bytes).toBeGreaterThan(4 * 1024 * 1024);
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { META_ALLOW_UNLESS_SENSITIVE, META_RISK, META_SENSITIVE_ARGUMENT, META_TURN_ID, META_USER_CONFIRMED_SENSITIVE } from '../../../src/tool-meta/index.js';
import { textResult } from '../../fakes/fake-hub.js';
import { routerFixture, scriptedConfirmation, type RouterFixture } from './router-fixture.js';

const CARD = '4111 1111 1111 1111';
let f: RouterFixture;
afterEach(async () => {
  await f.close();
});

/** A memory-like save tool, declared as the built-in memory server declares memory.save. */
async function withSaveTool(config: Record<string, unknown> = {}, builtin = true): Promise<void> {
  f = await routerFixture(config);
  f.hub.addServer({ name: 'memory', trusted: true, builtin });
  f.hub.addTool(
    'memory',
    {
      name: 'memory_save',
      description: 'save',
      inputSchema: { type: 'object', properties: { text: { type: 'string' }, kind: { type: 'string' } }, required: ['text', 'kind'] },
      _meta: { [META_RISK]: 'write', [META_SENSITIVE_ARGUMENT]: 'text', [META_ALLOW_UNLESS_SENSITIVE]: true },
    },
    () => textResult('saved'),
  );
}

describe('sensitive content through the router', () => {
  it('lets an ordinary save through without asking (write risk, allowed unless sensitive)', async () => {
    await withSaveTool();
    const channel = scriptedConfirmation({ answer: 'approved' });
    const result = await f.router.call(f.router.newTurn('voice', channel, undefined, 'turn-9'), { name: 'memory_save', arguments: { text: 'I like jazz', kind: 'preference' } });
    expect(result.status).toBe('ok');
    expect(channel.asked).toEqual([]);
    expect(f.hub.calls[0]?.options.meta).toEqual({ [META_TURN_ID]: 'turn-9' });
    expect(f.audit.recent(1)[0]).toMatchObject({ decision: 'allow', decidedBy: 'policy', status: 'ok' });
  });

  it('asks before saving a card number, says why, and tells the server the user confirmed', async () => {
    await withSaveTool();
    const asked: { reason?: string; argsSummary: string }[] = [];
    const channel = { confirm: async (request: { reason?: string; argsSummary: string }) => (asked.push(request), { answer: 'approved' as const }) };
    const result = await f.router.call(f.router.newTurn('text', channel), { name: 'memory_save', arguments: { text: `my card is ${CARD}`, kind: 'fact' } });
    expect(result.status).toBe('ok');
    expect(asked[0]?.reason).toBe('it would store sensitive content: payment card');
    expect(asked[0]?.argsSummary).not.toContain('4111');
    expect(f.hub.calls[0]?.options.meta).toMatchObject({ [META_USER_CONFIRMED_SENSITIVE]: true });
    expect(f.hub.calls[0]?.args.text).toBe(`my card is ${CARD}`);
    const [record] = f.audit.recent(1);
    expect(record).toMatchObject({ decision: 'confirm', decidedBy: 'user', status: 'ok' });
    expect(record?.argsSummary).toContain('[sensitive: payment_card]');
    expect(JSON.stringify(f.events)).not.toContain('4111');
  });

  it('does not save it when the user says no, nor when nobody can be asked, and keeps the number out of the audit', async () => {
    await withSaveTool();
    const denied = await f.router.call(f.router.newTurn('text', scriptedConfirmation({ answer: 'denied' })), { name: 'memory_save', arguments: { text: `card ${CARD}`, kind: 'fact' } });
    expect(denied.status).toBe('refused');
    const nobody = await f.router.call(f.router.newTurn('mcp', scriptedConfirmation({ answer: 'unavailable', reason: 'no elicitation' })), {
      name: 'memory_save',
      arguments: { text: `card ${CARD}`, kind: 'fact' },
    });
    expect(nobody.status).toBe('refused');
    expect(f.hub.calls).toEqual([]);
    expect(JSON.stringify(f.audit.recent(10))).not.toContain('4111');
  });

  it('asks even when the user allowed the tool outright, and a deny stays a deny', async () => {
    await withSaveTool({ router: { tools: { memory_save: 'allow' } } });
    const channel = scriptedConfirmation({ answer: 'approved' });
    await f.router.call(f.router.newTurn('text', channel), { name: 'memory_save', arguments: { text: `card ${CARD}`, kind: 'fact' } });
    expect(channel.asked).toHaveLength(1);
    await f.close();

    await withSaveTool({ router: { write: 'deny' } });
    const never = scriptedConfirmation({ answer: 'approved' });
    const result = await f.router.call(f.router.newTurn('text', never), { name: 'memory_save', arguments: { text: 'I like jazz', kind: 'preference' } });
    expect(result.status).toBe('refused');
    expect(never.asked).toEqual([]);
  });

  it('ignores these declarations from a server that is not built in', async () => {
    await withSaveTool({}, false);
    const channel = scriptedConfirmation({ answer: 'approved' });
    await f.router.call(f.router.newTurn('text', channel), { name: 'memory_save', arguments: { text: 'I like jazz', kind: 'preference' } });
    // Not built in: its `write` risk is confirmed as usual, and it gets no _meta from the router.
    expect(channel.asked).toHaveLength(1);
    expect(f.hub.calls[0]?.options.meta).toBeUndefined();
  });
});

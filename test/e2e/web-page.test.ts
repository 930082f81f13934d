import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/host/daemon.js';
import { readToken } from '../../src/host/http/index.js';
import type { ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { pageOnDaemon, type PageOnDaemon } from './page-on-daemon.js';

// The whole path, as a user meets it: Debian's Chromium opens the page of a
// real daemon (tools server, router, SQLite audit) talking to the scripted LLM.
let fixture: PageOnDaemon;
let llm: ScriptedLlmServer;
let daemon: Daemon;
let page: Page;

beforeAll(async () => {
  fixture = await pageOnDaemon({
    config: (url) => `llm = "${url}"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}`,
    files: {
      'tools/forecast.sh': ['#!/bin/sh\necho "Sunny, 21 degrees in $1"\n', 0o755],
      'tools/weather.toml': 'description = "Weather"\ncommand = ["forecast.sh", "{place}"]\n[params.place]\n',
      'tools/note.toml': 'description = "Write a note"\ncommand = ["echo", "noted {text}"]\nrisk = "write"\n[params.text]\n',
    },
  });
  ({ llm, daemon, page } = fixture);
}, 60_000);

afterAll(() => fixture?.close());

const byTestId = (id: string) => page.getByTestId(id);

async function send(text: string): Promise<void> {
  await byTestId('turn-input').fill(text);
  await byTestId('turn-send').click();
}

describe('the web page in Chromium', () => {
  it('asks for the token once, then shows the live state', async () => {
    await page.goto(`${daemon.url}/`);
    await expect.poll(() => byTestId('token-form').isVisible()).toBe(true);
    await byTestId('token-input').fill(readToken(daemon.tokenFile)!);
    await byTestId('token-submit').click();
    await expect.poll(() => byTestId('connection').getAttribute('data-status')).toBe('live');
    expect(await byTestId('state').getAttribute('data-state')).toBe('idle');
    expect(await byTestId('tool').count()).toBe(2);
    // Without the voice there is nothing to talk to, and the page says why.
    expect(await byTestId('listen').isHidden()).toBe(true);
    expect(await byTestId('voice-off').textContent()).toBe('Voice off: [voice] enabled = false');
  });

  it("shows a spoken turn's stages: the end-of-turn rule and silence, the reply asked ahead and what became of it", async () => {
    const bus = daemon.host.bus;
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'started', speculationId: 's1', text: 'what time is it', atMs: Date.now() });
    await expect.poll(() => byTestId('latency-speculation').getAttribute('data-phase')).toBe('started');
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'discarded', speculationId: 's1', text: 'what time is it', reason: 'the user went on', wastedPieces: 4, atMs: Date.now() });
    await expect.poll(() => byTestId('latency-speculation-detail').textContent()).toBe('the user went on (4 pieces thrown away)');
    bus.emit({ type: 'voice.speech', stage: 'vad', phase: 'end', frame: 80, durationMs: 1600, endRule: 'complete', silenceMs: 256, atMs: Date.now() });
    await expect.poll(() => byTestId('latency-end-rule').getAttribute('data-rule')).toBe('complete');
    expect(await byTestId('latency-end-of-turn').getAttribute('data-ms')).toBe('256');
    expect(await byTestId('latency-end-rule').textContent()).toBe('a finished sentence');
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'used', speculationId: 's2', text: 'what time is it', atMs: Date.now() });
    await expect.poll(() => byTestId('latency-speculation').getAttribute('data-phase')).toBe('used');
    expect(await byTestId('latency-speculation-detail').textContent()).toBe('');
  });

  it('sends a turn that needs a tool and shows the reply and the tool call', async () => {
    llm.enqueue({ toolCalls: [{ name: 'weather', arguments: '{"place":"Rome"}' }] }, (request) => ({
      text: `Here it is: ${String(request.messages.find((m) => m.role === 'tool')?.content)}.`,
    }));
    await send('What is the weather in Rome?');
    const reply = page.locator('[data-testid="message-assistant"][data-status="ok"] [data-testid="message-text"]').last();
    await expect.poll(() => reply.textContent(), { timeout: 15_000 }).toBe('Here it is: Sunny, 21 degrees in Rome.');
    const call = page.locator('[data-testid="tool-call"][data-tool="weather"]');
    await expect.poll(() => call.getAttribute('data-status')).toBe('ok');
    expect(await call.getByTestId('tool-call-args').textContent()).toContain('Rome');
    expect(await call.getByTestId('tool-call-duration').textContent()).toMatch(/\d/);
    expect(await byTestId('message-user').last().textContent()).toContain('What is the weather in Rome?');
  });

  it('holds a write tool for confirmation; Approve on the page runs it', async () => {
    llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{"text":"buy milk"}' }] }, (request) => ({
      text: `Done: ${String(request.messages.find((m) => m.role === 'tool')?.content)}.`,
    }));
    await send('Note that I need milk');
    const confirmation = page.locator('[data-testid="confirmation"][data-tool="note"]');
    await expect.poll(() => confirmation.count(), { timeout: 15_000 }).toBe(1);
    const call = page.locator('[data-testid="tool-call"][data-tool="note"]');
    expect(await call.getAttribute('data-status')).not.toBe('ok');
    await confirmation.getByTestId('confirmation-approve').click();
    await expect.poll(() => call.getAttribute('data-status'), { timeout: 15_000 }).toBe('ok');
    const reply = page.locator('[data-testid="message-assistant"][data-status="ok"] [data-testid="message-text"]').last();
    await expect.poll(() => reply.textContent()).toBe('Done: noted buy milk.');
    await expect.poll(() => confirmation.count()).toBe(0);
    expect(await call.getByTestId('tool-call-decision').getAttribute('data-decided-by')).toBe('user');
    expect(Number(await byTestId('latency-turn').getAttribute('data-ms'))).toBeGreaterThan(0);
  });
});

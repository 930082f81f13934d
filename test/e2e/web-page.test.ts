import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/host/daemon.js';
import { readToken } from '../../src/host/http/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

// The whole path, as a user meets it: Debian's Chromium opens the page of a
// real daemon (tools server, router, SQLite audit) talking to the scripted LLM.
let home: TempDir;
let llm: ScriptedLlmServer;
let daemon: Daemon;
let browser: LaunchedBrowser;
let page: Page;

beforeAll(async () => {
  home = await makeTempDir('da-e2e-');
  llm = await startScriptedLlmServer();
  await home.write('config/config.toml', `llm = "${llm.url}"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}`);
  await home.write('config/tools/forecast.sh', '#!/bin/sh\necho "Sunny, 21 degrees in $1"\n', 0o755);
  await home.write('config/tools/weather.toml', 'description = "Weather"\ncommand = ["forecast.sh", "{place}"]\n[params.place]\n');
  await home.write('config/tools/note.toml', 'description = "Write a note"\ncommand = ["echo", "noted {text}"]\nrisk = "write"\n[params.text]\n');
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  daemon = await startDaemon({ configDir: join(home.path, 'config'), env, port: 0 });
  browser = await launchChromium();
  page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  await llm?.close();
  await home?.remove();
});

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
    // Without the voice there is nothing to talk to.
    expect(await byTestId('listen').isHidden()).toBe(true);
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

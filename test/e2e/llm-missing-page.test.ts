/**
 * The page while the LLM server is away (Debian's Chromium on a real
 * daemon): the notice says what is missing, in words, from the daemon's
 * own probe, and goes once the server serves again on the same port; the
 * page is not reloaded in between.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readToken } from '../../src/host/http/index.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { pageOnDaemon, type PageOnDaemon } from './page-on-daemon.js';

let fixture: PageOnDaemon | undefined;
let restarted: ScriptedLlmServer | undefined;

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  fixture = await pageOnDaemon({ config: (url) => `llm = "${url}"\n[voice]\nenabled = false\n${ONLY_TOOL_FILES}` });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
  await restarted?.close();
});

describe.skipIf(!chromiumAvailable())('the page while the LLM server is away', () => {
  it('shows what is missing until the server answers again', async () => {
    const { page, daemon, llm } = fixture!;
    const notice = page.getByTestId('llm-missing');
    await page.goto(`${daemon.url}/`);
    await page.getByTestId('token-input').fill(readToken(daemon.tokenFile)!);
    await page.getByTestId('token-submit').click();
    await expect.poll(() => page.getByTestId('connection').getAttribute('data-status')).toBe('live');
    expect(await notice.isHidden()).toBe(true);

    const port = Number(new URL(llm.url).port);
    await llm.close();
    // What a failed turn does: ask the daemon's watch to look.
    daemon.deps.llmHealth.check();
    await expect.poll(() => notice.getAttribute('data-missing'), { timeout: 5000 }).toBe('true');
    expect(await notice.textContent()).toMatch(new RegExp(`^Model waiting: the LLM server at ${llm.url.replace(/[./]/g, '\\$&')} does not answer: connection refused\\. `));
    expect(await page.getByTestId('provider').getAttribute('data-health')).toBe('error');

    restarted = await startScriptedLlmServer({ port });
    await expect.poll(() => notice.getAttribute('data-missing'), { timeout: 5000 }).toBe('false');
    expect(await notice.isHidden()).toBe(true);
    expect(await page.getByTestId('provider').getAttribute('data-health')).toBe('ok');
  });
});

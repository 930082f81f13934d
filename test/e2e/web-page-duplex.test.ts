import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/host/daemon.js';
import { readToken, type VoiceControl } from '../../src/host/http/index.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { pageOnDaemon, type PageOnDaemon } from './page-on-daemon.js';

// The page against a daemon whose voice says it is full duplex: a stand-in
// for the voice's control (the page is under test here, not the audio),
// the real daemon, HTTP API and event stream, in Debian's Chromium.
let fixture: PageOnDaemon;
let daemon: Daemon;
let page: Page;
let muted = false;

const control: VoiceControl = {
  mode: 'full_duplex_agent',
  get listening() {
    return !muted;
  },
  startListening: () => (muted ? !(muted = false) : false),
  stopListening: () => (muted ? false : (muted = true)),
  interrupt: () => false,
};

beforeAll(async () => {
  fixture = await pageOnDaemon({
    config: (url) => `llm = "${url}"\n${ONLY_TOOL_FILES}`,
    startVoice: async () => ({ control, reportsActivity: true, close: async () => undefined }),
  });
  ({ daemon, page } = fixture);
}, 60_000);

afterAll(() => fixture?.close());

const byTestId = (id: string) => page.getByTestId(id);

describe('the web page with the full-duplex voice', () => {
  it('shows the mode, the states the voice reports, partial transcripts, and a mute button', async () => {
    await page.goto(`${daemon.url}/`);
    await expect.poll(() => byTestId('token-form').isVisible()).toBe(true);
    await byTestId('token-input').fill(readToken(daemon.tokenFile)!);
    await byTestId('token-submit').click();
    await expect.poll(() => byTestId('connection').getAttribute('data-status')).toBe('live');
    await expect.poll(() => byTestId('listen').textContent()).toBe('Mute');

    const bus = daemon.host.bus;
    bus.emit({ type: 'state.changed', stage: 'conversation', state: 'speaking', previous: 'thinking', atMs: Date.now() });
    bus.emit({ type: 'state.changed', stage: 'conversation', state: 'interrupted', previous: 'speaking', atMs: Date.now() });
    await expect.poll(() => byTestId('state').getAttribute('data-state')).toBe('interrupted');
    bus.emit({ type: 'voice.transcript', stage: 'stt', text: 'stop talking', stable: 'stop', final: false, atMs: Date.now() });
    await expect.poll(() => page.getByText('stop talking').count()).toBeGreaterThan(0);
    // A state change does not turn the mute button into Talk/Done.
    bus.emit({ type: 'state.changed', stage: 'conversation', state: 'listening', previous: 'interrupted', atMs: Date.now() });
    await expect.poll(() => byTestId('state').getAttribute('data-state')).toBe('listening');
    expect(await byTestId('listen').textContent()).toBe('Mute');

    await byTestId('listen').click();
    await expect.poll(() => byTestId('listen').textContent()).toBe('Unmute');
    expect(muted).toBe(true);
    await byTestId('listen').click();
    await expect.poll(() => byTestId('listen').textContent()).toBe('Mute');
    expect(muted).toBe(false);
    const state = await (await fetch(`${daemon.url}/state`, { headers: { authorization: `Bearer ${readToken(daemon.tokenFile)}` } })).json();
    expect(state).toMatchObject({ mode: 'full_duplex_agent', state: 'listening', voice: { enabled: true, listening: true } });
  });
});

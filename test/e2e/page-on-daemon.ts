import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startDaemon, type Daemon, type StartVoice } from '../../src/host/daemon.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

export interface PageOnDaemon {
  home: TempDir;
  llm: ScriptedLlmServer;
  daemon: Daemon;
  browser: LaunchedBrowser;
  page: Page;
  close(): Promise<void>;
}

/**
 * Debian's Chromium on a new page, and a real daemon (in its own folders)
 * whose LLM is the scripted server. `config` gets the LLM's URL and returns
 * config.toml; `files` are written under the config folder first (with a
 * mode, for scripts).
 */
export async function pageOnDaemon(options: {
  config: (llmUrl: string) => string;
  files?: Record<string, string | [text: string, mode: number]>;
  startVoice?: StartVoice;
}): Promise<PageOnDaemon> {
  const home = await makeTempDir('da-e2e-');
  const llm = await startScriptedLlmServer();
  await home.write('config/config.toml', options.config(llm.url));
  for (const [name, file] of Object.entries(options.files ?? {})) {
    const [text, mode] = typeof file === 'string' ? [file, undefined] : file;
    await home.write(`config/${name}`, text, mode);
  }
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run') };
  const daemon = await startDaemon({ configDir: join(home.path, 'config'), env, port: 0, ...(options.startVoice ? { startVoice: options.startVoice } : {}) });
  const browser = await launchChromium();
  const page = await browser.browser.newPage({ viewport: { width: 1280, height: 800 } });
  return {
    home,
    llm,
    daemon,
    browser,
    page,
    close: async () => {
      await browser.close();
      await daemon.close();
      await llm.close();
      await home.remove();
    },
  };
}

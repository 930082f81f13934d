/**
 * A newcomer starts the daemon first and makes the config folder after
 * (`mkdir -p ~/.config/desktop-assistant && cp -r examples/tools ...`): the
 * tools appear without a restart.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../src/host/daemon.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';

let home: TempDir;
let daemon: Daemon;

beforeAll(async () => {
  home = await makeTempDir('da-config-later-');
  const env = { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'), XDG_RUNTIME_DIR: join(home.path, 'run'), OWNER_MEMORY_ENABLED: '0' };
  // Two levels that do not exist yet: the config folder and its tools/.
  daemon = await startDaemon({ configDir: join(home.path, 'dot-config', 'desktop-assistant'), env, port: 0, voice: false });
}, 60_000);
afterAll(async () => {
  await daemon?.close();
  await home?.remove();
});

const offered = (): string[] => daemon.host.router.offered().map((t) => t.name);

describe('a config folder made after the daemon started', () => {
  it('its tools are offered within 2 s, and later files too', async () => {
    expect(offered()).not.toContain('now');
    await home.write('dot-config/desktop-assistant/tools/now.toml', 'description = "The time"\ncommand = ["date", "+%H:%M"]\n');
    const made = Date.now();
    await waitFor(() => (offered().includes('now') ? true : undefined), 'the tool from the new folder', 2000);
    expect(Date.now() - made).toBeLessThan(2000);
    await home.write('dot-config/desktop-assistant/tools/echo.toml', 'description = "Echo"\ncommand = ["echo", "hi"]\n');
    await waitFor(() => (offered().includes('echo') ? true : undefined), 'a second tool file', 2000);
  });
});

import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asWritten, defaultConfig } from '../../src/config/index.js';
import { connectToolsServer, resultText } from '../helpers/mcp-stdio.js';
import { EXAMPLES } from '../helpers/paths.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

/** The commented `# key = value` and `# [table]` lines of the example, uncommented. */
function uncommentSettings(text: string): string {
  return text
    .split('\n')
    .map((line) => (/^# (\[|[A-Za-z_][A-Za-z0-9_.]* = )/.test(line) ? line.slice(2) : ''))
    .join('\n');
}

describe('examples/config.toml', () => {
  it('shows every key with its built-in default', async () => {
    const text = await readFile(join(EXAMPLES, 'config.toml'), 'utf8');
    const shown = parse(uncommentSettings(text)) as Record<string, unknown>;
    // [env] holds examples and [mcp.*] is shown as an indented example: both default to empty.
    expect({ ...shown, env: {}, mcp: {} }).toEqual(asWritten(defaultConfig()));
    expect(Object.keys(shown.env as object)).toEqual(['SEARXNG_URL', 'WEATHER_ENV', 'CALENDAR_DIR']);
  });

  it('is valid as it is (all commented out)', async () => {
    const text = await readFile(join(EXAMPLES, 'config.toml'), 'utf8');
    expect(parse(text)).toEqual({});
  });
});

describe('a copy of the example tools in a config folder', () => {
  let home: TempDir;
  beforeAll(async () => {
    home = await makeTempDir('da-examples-');
    await cp(join(EXAMPLES, 'tools'), join(home.path, 'tools'), { recursive: true });
    await cp(join(EXAMPLES, 'config.toml'), join(home.path, 'config.toml'));
  });
  afterAll(() => home.remove());

  it('passes config check with the four tools', async () => {
    const run = await runCli(['config', 'check', '--config-dir', home.path], {}, home.path);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const name of ['calendar', 'now', 'search', 'weather']) expect(run.stdout).toContain(`# ${name} (read,`);
  });

  it('answers `now` with the local date and time', async () => {
    const server = await connectToolsServer(home.path, [], { TZ: 'UTC', LC_ALL: 'C' });
    try {
      const text = resultText(await server.client.callTool({ name: 'now', arguments: {} }));
      expect(text).toMatch(/^[A-Z][a-z]+day \d{2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2}$/);
      const today = new Date();
      expect(text).toContain(String(today.getUTCFullYear()));
    } finally {
      await server.close();
    }
  });

  it('carries the announcements of weather and search', async () => {
    const server = await connectToolsServer(home.path);
    try {
      const { tools } = await server.client.listTools();
      const announce = (name: string) => tools.find((t) => t.name === name)?._meta?.['desktop-assistant/announce'];
      expect(announce('weather')).toMatchObject({ en: expect.any(Array), it: expect.any(Array) });
      expect(announce('search')).toMatchObject({ en: expect.any(Array), it: expect.any(Array) });
      expect(announce('now')).toEqual({});
    } finally {
      await server.close();
    }
  });
});

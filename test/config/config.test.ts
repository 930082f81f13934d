import { afterEach, describe, expect, it } from 'vitest';
import { asWritten, configDir, dataDir, defaultConfig, readConfig, validateConfig, voiceLanguages } from '../../src/config/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

describe('config merge over the built-in defaults', () => {
  it('keeps every default a partial file does not set, and replaces free-form tables whole', () => {
    const result = validateConfig({
      card: 'X',
      whisper: { port: 9 },
      voice: { it: { blend: { a: 1.0 } } },
      env: { K: 'v' },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const defaults = defaultConfig();
    expect(result.config.card).toBe('X');
    expect(result.config.whisper).toEqual({ ...defaults.whisper, port: 9 });
    expect(result.config.voice.it).toEqual({ lang: 'it', blend: { a: 1.0 } });
    expect(result.config.voice.en).toEqual(defaults.voice.en);
    expect(result.config.env).toEqual({ K: 'v' });
    expect(defaultConfig().card).toBe('Microphone');
  });

  it('has the documented defaults', () => {
    const c = defaultConfig();
    expect(c.llm).toBe('http://localhost:8181/v1');
    expect(c.tool_rounds).toBe(3);
    expect(c.whisper.port).toBe(8182);
    expect(c.whisper.device).toBe(0);
    expect(c.voice.en).toEqual({ lang: 'en-us', blend: { af_heart: 1.0 } });
    expect(c.voice.it?.blend).toEqual({ if_sara: 0.8, af_bella: 0.2 });
    expect(c.env).toEqual({});
    expect(c.stt.engine).toBe('pocketsphinx');
    // Unset: the engine's own interval (engines.ts).
    expect(c.stt.partial_interval_ms).toBeUndefined();
    expect(c.vad.sentence_end_silence_ms).toBe(160);
    expect(c.vad.unfinished_silence_ms).toBe(1000);
    expect(c.turn).toEqual({ preemptive: true, preemptive_pause_ms: 32 });
  });

  it('lets a new language be added with both of its keys', () => {
    const result = validateConfig({ voice: { fr: { lang: 'fr-fr', blend: { ff_siwis: 1 } } } });
    expect(result.ok && result.config.voice.fr).toEqual({ lang: 'fr-fr', blend: { ff_siwis: 1 } });
    expect(result.ok && Object.keys(voiceLanguages(result.config)).sort()).toEqual(['en', 'fr', 'it']);
    expect(result.ok && result.config.voice.enabled).toBe('auto');
  });
});

describe('config errors name the key', () => {
  it.each([
    [{ whisper: { prot: 1 } }, 'config: unknown key whisper.prot'],
    [{ cards: 'X' }, 'config: unknown key cards'],
    [{ whisper: 3 }, 'config: whisper must be a table (got integer)'],
    [{ card: 3 }, 'config: card must be a string (got integer)'],
    [{ tool_rounds: 1.5 }, 'config: tool_rounds must be an integer (got float)'],
    [{ voice: { fr: { lang: 'fr' } } }, 'config: missing key voice.fr.blend'],
    [{ env: { A: [1] } }, 'config: env.A must be a string or a number or a boolean (got array)'],
    [{ llm: 'not a url' }, 'config: llm must be a valid URL (got "not a url")'],
    [{ whisper: { port: 70000 } }, 'config: whisper.port must be <= 65535'],
    [{ env: { A: 'x\u0000y' } }, 'config: env.A: must not contain a NUL byte'],
    [{ mcp: { s: { command: 'x', env: { B: '\u0000' } } } }, 'config: mcp.s.env.B: must not contain a NUL byte'],
    [{ duplex: { partial_interval_ms: 0 } }, 'config: unknown key duplex.partial_interval_ms (it moved to stt.partial_interval_ms)'],
    [{ stt: { engine: 'sphinx' } }, 'config: stt.engine must be one of "pocketsphinx", "pocketsphinx_continuous", "whisper"'],
    [{ vad: { sentence_end_silence_ms: 500 } }, 'config: vad.sentence_end_silence_ms: must be below vad.silence_ms (0 = off)'],
  ])('%j -> %s', (raw, message) => {
    const result = validateConfig(raw);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toContain(message);
  });

  it('reports every error, not only the first', () => {
    const result = validateConfig({ cards: 1, whisper: { prot: 1, port: 'x' }, tool_rounds: -1 });
    expect(!result.ok && result.errors).toHaveLength(4);
  });
});

describe('config.toml on disk', () => {
  let dir: TempDir;
  afterEach(() => dir.remove());

  it('treats a missing folder or file as the defaults', async () => {
    dir = await makeTempDir();
    const missingFile = await readConfig(dir.path);
    expect(missingFile).toMatchObject({ ok: true, found: false });
    const missingFolder = await readConfig(`${dir.path}/nope`);
    expect(missingFolder.ok && missingFolder.config).toEqual(defaultConfig());
  });

  it('names the file, line and column of a TOML syntax error', async () => {
    dir = await makeTempDir();
    const file = await dir.write('config.toml', 'card = "A"\n\n[whisper]\nport = = 3\n');
    const result = await readConfig(dir.path);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[0]).toMatch(new RegExp(`^config: ${file}:4:8: invalid TOML: `));
  });

  it('reads a valid file', async () => {
    dir = await makeTempDir();
    await dir.write('config.toml', 'tool_rounds = 5\n[env]\nSEARXNG_URL = "http://searxng.example.org"\n');
    const result = await readConfig(dir.path);
    expect(result.ok && result.config.tool_rounds).toBe(5);
    expect(result.ok && result.config.env).toEqual({ SEARXNG_URL: 'http://searxng.example.org' });
  });
});

describe('folders', () => {
  it('takes --config-dir, then DESKTOP_ASSISTANT_CONFIG_DIR, then XDG_CONFIG_HOME', () => {
    expect(configDir('/x', { DESKTOP_ASSISTANT_CONFIG_DIR: '/y' })).toBe('/x');
    expect(configDir(undefined, { DESKTOP_ASSISTANT_CONFIG_DIR: '/y', XDG_CONFIG_HOME: '/z' })).toBe('/y');
    expect(configDir(undefined, { XDG_CONFIG_HOME: '/z' })).toBe('/z/desktop-assistant');
    expect(configDir(undefined, {})).toMatch(/\/\.config\/desktop-assistant$/);
  });

  it('puts data under XDG_DATA_HOME', () => {
    expect(dataDir({ XDG_DATA_HOME: '/d' })).toBe('/d/desktop-assistant');
    expect(dataDir({})).toMatch(/\/\.local\/share\/desktop-assistant$/);
  });
});

describe('[mcp.<name>] servers', () => {
  it('reads a server with its defaults', () => {
    const result = validateConfig({ mcp: { files: { command: 'npx', args: ['x'] } } });
    expect(result.ok && asWritten(result.config.mcp.files)).toEqual({ command: 'npx', args: ['x'], env: {}, enabled: true, trusted: false, risk: {}, timeout: 60 });
  });

  it.each([
    [{ mcp: { tools: { command: 'x' } } }, 'config: mcp.tools: this name belongs to a built-in server'],
    [{ mcp: { 'a b': { command: 'x' } } }, 'config: mcp.a b: a server name is letters, digits, _ or -'],
    [{ mcp: { files: { args: [] } } }, 'config: missing key mcp.files.command'],
    [{ mcp: { files: { command: 'x', risk: { t: 'low' } } } }, 'config: mcp.files.risk.t must be one of "read", "write", "high"'],
    [{ router: { write: 'maybe' } }, 'config: router.write must be one of "allow", "confirm", "deny"'],
    [{ http: { host: '0.0.0.0' } }, 'config: http.host must be one of "127.0.0.1", "localhost", "::1"'],
    [{ voice: { enabled: 'no' } }, 'config: voice.enabled must be true, false or "auto" (got string)'],
    [{ voice: { enabeld: false } }, 'config: voice.enabeld must be a table (got boolean)'],
    [{ duplex: { barge_in_threshold: 0.3 } }, 'config: duplex.barge_in_threshold: must be at least vad.threshold (0.5): speech over a reply cannot need less than speech in silence'],
  ])('%j -> %s', (raw, message) => {
    const result = validateConfig(raw);
    expect(!result.ok && result.errors).toContain(message);
  });
});

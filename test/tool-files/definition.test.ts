import { afterEach, describe, expect, it } from 'vitest';
import { asWritten } from '../../src/config/index.js';
import { loadToolDir, parseToolFile, renderArgv, toMcpTool } from '../../src/tool-files/index.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const parse = (text: string, name = 'weather') => parseToolFile(text, `/cfg/tools/${name}.toml`, '/cfg/tools');

describe('tool file', () => {
  it('reads description, command, params, announce, with defaults', () => {
    const result = parse(
      [
        'description = "Weather"',
        'command = ["weather.sh", "{place}"]',
        'announce.en = ["Checking the weather."]',
        '[params.place]',
        'type = "string"',
        'description = "City"',
        '[params.days]',
        'type = "integer"',
      ].join('\n'),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // Durations are read in seconds and held as Duration: asWritten gives the seconds back.
    expect(asWritten(result.tool)).toMatchObject({
      name: 'weather',
      timeout: 10,
      risk: 'read',
      command: ['weather.sh', '{place}'],
      announce: { en: ['Checking the weather.'] },
      params: { place: { type: 'string', description: 'City' }, days: { type: 'integer', description: '' } },
      dir: '/cfg/tools',
    });
  });

  it.each([
    ['command = ["date"]', 'missing key description'],
    ['description = "d"', 'missing key command'],
    ['description = "d"\ncommand = []', 'command must be at least 1 item'],
    ['description = "d"\ncommand = "date"', 'command must be an array (got string)'],
    ['description = "d"\ncommand = ["date"]\ntimeout = 0', 'timeout must be > 0'],
    ['description = "d"\ncommand = ["date"]\nrisk = "low"', 'risk must be one of "read", "write", "high"'],
    ['description = "d"\ncommand = ["date"]\n[params.x]\ntype = "float"', 'params.x.type must be one of "string", "integer", "number", "boolean"'],
    ['description = "d"\ncommand = ["date"]\ncomand = 1', 'unknown key comand'],
    ['description = "d"\ncommand = ["date"]\n[params.x]\ntipe = "string"', 'unknown key params.x.tipe'],
  ])('%j is refused: %s', (text, reason) => {
    const result = parse(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toContain(`/cfg/tools/weather.toml: ${reason}`);
  });

  it('names the file, line and column of invalid TOML', () => {
    const result = parse('description = "d"\ncommand = ["date"\n');
    expect(!result.ok && result.errors[0]).toMatch(/^\/cfg\/tools\/weather\.toml:3:1: invalid TOML: /);
  });

  it('refuses a file name that cannot be a tool name', () => {
    const result = parse('description = "d"\ncommand = ["date"]', 'my tool');
    expect(!result.ok && result.errors[0]).toContain('the file name must be letters, digits, _ or -');
  });
});

describe('as an MCP tool', () => {
  const tool = (risk: string) => {
    const result = parse(`description = "d"\ncommand = ["x"]\nrisk = "${risk}"\nannounce.it = ["Cerco."]\n[params.q]\ntype = "number"\ndescription = "n"`);
    if (!result.ok) throw new Error(result.errors.join());
    return toMcpTool(result.tool);
  };

  it('has an input schema of optional parameters and no others', () => {
    expect(tool('read').inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'number', description: 'n' } },
      additionalProperties: false,
    });
  });

  it('maps risk to annotations and carries risk and announcements in _meta', () => {
    expect(tool('read').annotations).toEqual({ readOnlyHint: true });
    expect(tool('write').annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(tool('high').annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(tool('write')._meta).toEqual({
      'desktop-assistant/risk': 'write',
      'desktop-assistant/announce': { it: ['Cerco.'] },
      'desktop-assistant/timeoutMs': 10000,
    });
  });
});

describe('argv substitution', () => {
  const values = new Map([['a', 'x; rm -rf ~'], ['b', '2']]);

  it('fills placeholders inside one element only', () => {
    expect(renderArgv(['echo.sh', '{a}', 'x{b}y', '{a}{b}'], values)).toEqual(['echo.sh', 'x; rm -rf ~', 'x2y', 'x; rm -rf ~2']);
  });

  it('makes an unknown placeholder empty and leaves other braces alone', () => {
    expect(renderArgv(['{nope}', '{not valid}', '{}'], values)).toEqual(['', '{not valid}', '{}']);
  });
});

describe('a tools folder', () => {
  let dir: TempDir;
  afterEach(() => dir.remove());

  it('loads the good files in name order and reports the bad ones', async () => {
    dir = await makeTempDir();
    await dir.write('b.toml', 'description = "b"\ncommand = ["date"]\n');
    await dir.write('a.toml', 'description = "a"\ncommand = ["date"]\n');
    await dir.write('broken.toml', 'description = "x"\n');
    await dir.write('notes.txt', 'not a tool');
    const set = await loadToolDir(dir.path);
    expect(set.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(set.errors).toEqual([`${dir.path}/broken.toml: missing key command`]);
  });

  it('has no tools when the folder is missing', async () => {
    dir = await makeTempDir();
    expect(await loadToolDir(`${dir.path}/missing`)).toEqual({ tools: [], errors: [] });
  });
});

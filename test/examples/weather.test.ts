import { execFile } from 'node:child_process';
import { cp, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedUrl, sendJson, sendText, startHttpStub, type HttpStub, type StubHandler } from '../helpers/http-stub.js';
import { connectToolsServer, resultText } from '../helpers/mcp-stdio.js';
import { EXAMPLES } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

const WEATHER = join(EXAMPLES, 'tools', 'weather.mjs');
const HOUR_MS = 60 * 60 * 1000;

// Quotes, `export` and comments: the env file is shell style.
const ENV_FILE = ['# weather settings', 'export KEY="test-key" # from example.org', "CITY='Exampleville'", 'COUNTRY=ZZ # home', ''].join('\n');

interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The bundled tool as a child process, with only the environment given here. */
function runWeather(args: string[], env: Record<string, string>): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WEATHER, ...args], { env, timeout: 15_000 }, (error, stdout, stderr) => {
      // A numeric code is the exit status; anything else means the tool never ran.
      if (!error) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(error);
    });
  });
}

function conditions(name: string, temp: number) {
  return { dt: Math.floor(Date.now() / 1000), name, weather: [{ description: 'light rain' }], main: { temp, feels_like: temp - 2.4, humidity: 81 }, wind: { speed: 5 } };
}

const slot = (ms: number, temp: number, description: string) => ({ dt: ms / 1000, main: { temp }, weather: [{ description }] });

/** Midnight starting the local day `days` from today, for a zone `offsetHours` east of UTC without DST. */
function localMidnightMs(days: number, offsetHours: number): number {
  const local = new Date(Date.now() + offsetHours * HOUR_MS);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + days) - offsetHours * HOUR_MS;
}

const localDay = (ms: number, offsetHours: number) => new Date(ms + offsetHours * HOUR_MS).toISOString().slice(0, 10);

let dir: TempDir;
let envPath: string;
let cachePath: string;
let stub: HttpStub | undefined;

async function serve(handler: StubHandler): Promise<HttpStub> {
  stub = await startHttpStub(handler);
  return stub;
}

/** An allow-list environment: HOME points into the temp folder so no default path reaches the real one. */
function toolEnv(server: HttpStub, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir.path,
    TZ: 'UTC',
    WEATHER_ENV: envPath,
    OPENWEATHER_URL: server.url,
    WEATHER_CACHE: cachePath,
    ...extra,
  };
}

beforeEach(async () => {
  dir = await makeTempDir();
  envPath = await dir.write('weather.env', ENV_FILE);
  cachePath = join(dir.path, 'cache', 'weather.json');
});

afterEach(async () => {
  await stub?.close();
  stub = undefined;
  await dir.remove();
});

describe('weather.mjs now', () => {
  it.each([
    ['no UNITS', '', 'metric', 'Exampleville: light rain, 12 degrees, feels like 10, humidity 81%, wind 18 km/h'],
    ['UNITS=imperial', 'UNITS=imperial\n', 'imperial', 'Exampleville: light rain, 12 degrees Fahrenheit, feels like 10, humidity 81%, wind 5 mph'],
    ['UNITS=standard', 'UNITS=standard\n', 'standard', 'Exampleville: light rain, 12 kelvin, feels like 10, humidity 81%, wind 18 km/h'],
  ])('asks /data/2.5/weather for a place with q, appid and units (%s)', async (_, unitsLine, units, text) => {
    await writeFile(envPath, ENV_FILE + unitsLine);
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Exampleville', 12.3)));
    const run = await runWeather(['Exampleville', 'now'], toolEnv(server));
    expect(run).toEqual({ code: 0, stdout: `${text}\n`, stderr: '' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/data/2.5/weather' });
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({ q: 'Exampleville', appid: 'test-key', units });
  });

  it('asks for CITY,COUNTRY when the place is empty, and writes the answer to the cache', async () => {
    const body = conditions('Exampleville', 7);
    const server = await serve((_req, res) => sendJson(res, 200, body));
    const run = await runWeather(['', ''], toolEnv(server));
    expect(run.stdout).toBe('Exampleville: light rain, 7 degrees, feels like 5, humidity 81%, wind 18 km/h\n');
    expect(server.requests.map((r) => r.query.get('q'))).toEqual(['Exampleville,ZZ']);
    expect(JSON.parse(await readFile(cachePath, 'utf8'))).toEqual(body);
  });

  it('answers home now from a cache younger than 30 minutes without any request', async () => {
    await dir.write('cache/weather.json', JSON.stringify(conditions('Cachedville', 3)));
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Exampleville', 20)));
    const run = await runWeather([], toolEnv(server));
    expect(run).toMatchObject({ code: 0, stdout: 'Cachedville: light rain, 3 degrees, feels like 1, humidity 81%, wind 18 km/h\n' });
    expect(server.requests).toHaveLength(0);
  });

  it('asks again and rewrites a cache 31 minutes old', async () => {
    await dir.write('cache/weather.json', JSON.stringify(conditions('Cachedville', 3)));
    const old = new Date(Date.now() - 31 * 60 * 1000);
    await utimes(cachePath, old, old);
    const fresh = conditions('Exampleville', 20);
    const server = await serve((_req, res) => sendJson(res, 200, fresh));
    const run = await runWeather([], toolEnv(server));
    expect(run.stdout).toBe('Exampleville: light rain, 20 degrees, feels like 18, humidity 81%, wind 18 km/h\n');
    expect(server.requests.map((r) => r.query.get('q'))).toEqual(['Exampleville,ZZ']);
    expect(JSON.parse(await readFile(cachePath, 'utf8'))).toEqual(fresh);
    expect((await stat(cachePath)).mtimeMs).toBeGreaterThan(old.getTime() + 30 * 60 * 1000);
  });

  it('does not use or touch the home cache for a named place', async () => {
    const cached = JSON.stringify(conditions('Cachedville', 3));
    await dir.write('cache/weather.json', cached);
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Otherville', 15)));
    const run = await runWeather(['Otherville'], toolEnv(server));
    expect(run.stdout).toMatch(/^Otherville: light rain, 15 degrees/);
    expect(server.requests.map((r) => r.query.get('q'))).toEqual(['Otherville']);
    expect(await readFile(cachePath, 'utf8')).toBe(cached);
  });

  it('reads the env file from XDG_CONFIG_HOME when WEATHER_ENV is not set', async () => {
    await dir.write('xdg/desktop-assistant/weather.env', 'KEY=xdg-key\nCITY=Exampleville\n');
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Exampleville', 12)));
    const { WEATHER_ENV: _, ...env } = toolEnv(server, { XDG_CONFIG_HOME: join(dir.path, 'xdg') });
    const run = await runWeather(['', 'now'], env);
    expect(run.code).toBe(0);
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({ q: 'Exampleville', appid: 'xdg-key', units: 'metric' });
  });
});

describe('weather.mjs forecast', () => {
  it('keeps only the slots of tomorrow, in UTC', async () => {
    const tomorrow = localMidnightMs(1, 0);
    const list = [
      slot(tomorrow - 3 * HOUR_MS, 5, 'mist'),
      slot(tomorrow, 8, 'clear sky'),
      slot(tomorrow + 12 * HOUR_MS, 15.4, 'few clouds'),
      slot(tomorrow + 21 * HOUR_MS, 9.6, 'rain'),
      slot(tomorrow + 24 * HOUR_MS, 2, 'snow'),
    ];
    const server = await serve((_req, res) => sendJson(res, 200, { city: { name: 'Exampleville' }, list }));
    const run = await runWeather(['Exampleville', 'tomorrow'], toolEnv(server));
    const day = localDay(tomorrow, 0);
    expect(run).toEqual({ code: 0, stdout: `Exampleville ${day}: min 8, max 15 C; 00:00 clear sky 8, 12:00 few clouds 15, 21:00 rain 10\n`, stderr: '' });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/data/2.5/forecast' });
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({ q: 'Exampleville', appid: 'test-key', units: 'metric' });
  });

  it('keeps only the slots of today, for home, and takes WHEN in any case', async () => {
    const today = localMidnightMs(0, 0);
    const list = [slot(today - 3 * HOUR_MS, 1, 'fog'), slot(today + 6 * HOUR_MS, 4, 'drizzle'), slot(today + 24 * HOUR_MS, 9, 'sun')];
    const server = await serve((_req, res) => sendJson(res, 200, { list }));
    const run = await runWeather(['', ' Today '], toolEnv(server));
    expect(run.stdout).toBe(`Exampleville,ZZ ${localDay(today, 0)}: min 4, max 4 C; 06:00 drizzle 4\n`);
    expect(server.requests.map((r) => [r.path, r.query.get('q')])).toEqual([['/data/2.5/forecast', 'Exampleville,ZZ']]);
  });

  it('draws day boundaries and hours in the local time zone (TZ)', async () => {
    // Asia/Tokyo is UTC+9 all year: its midnight is 15:00 UTC the day before.
    const tomorrow = localMidnightMs(1, 9);
    const list = [slot(tomorrow - 3 * HOUR_MS, 30, 'haze'), slot(tomorrow, 20, 'clear sky'), slot(tomorrow + 15 * HOUR_MS, 25, 'rain'), slot(tomorrow + 24 * HOUR_MS, 30, 'haze')];
    const server = await serve((_req, res) => sendJson(res, 200, { city: { name: 'Exampleville' }, list }));
    const run = await runWeather(['Exampleville', 'tomorrow'], toolEnv(server, { TZ: 'Asia/Tokyo' }));
    expect(run.stdout).toBe(`Exampleville ${localDay(tomorrow, 9)}: min 20, max 25 C; 00:00 clear sky 20, 15:00 rain 25\n`);
  });

  it('says so when the list has nothing for the day', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { list: [slot(localMidnightMs(0, 0), 4, 'drizzle')] }));
    const run = await runWeather(['Exampleville', 'tomorrow'], toolEnv(server));
    expect(run.stdout).toBe(`no forecast for Exampleville on ${localDay(localMidnightMs(1, 0), 0)}\n`);
  });
});

describe('weather.mjs failures', () => {
  it.each<[string, string, (env: Record<string, string>) => Promise<void> | void, (env: Record<string, string>) => string]>([
    ['WHEN is not now, today or tomorrow', 'yesterday', () => undefined, () => 'when must be now, today or tomorrow'],
    ['there is no env file', 'now', (env) => void (env.WEATHER_ENV = join(dir.path, 'missing.env')), (env) => `no weather env file at ${env.WEATHER_ENV} (set WEATHER_ENV in config.toml [env])`],
    ['KEY is empty', 'now', () => writeFile(envPath, 'KEY=\nCITY=Exampleville\n'), () => `KEY is empty in ${envPath}`],
    ['no place is given and there is no CITY', 'now', () => writeFile(envPath, 'KEY=k\n'), () => 'no place given and no CITY in the weather env file'],
    ['no place is given and there is only a COUNTRY', 'now', () => writeFile(envPath, 'KEY=k\nCOUNTRY=ZZ\n'), () => 'no place given and no CITY in the weather env file'],
  ])('fails without a request when %s', async (_, when, prepare, message) => {
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Exampleville', 1)));
    const env = toolEnv(server);
    await prepare(env);
    const run = await runWeather(['', when], env);
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${message(env)}\n` });
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, string, StubHandler, string]>([
    ['HTTP 401 as a KEY that is not valid', 'Exampleville', (_, res) => sendJson(res, 401, { cod: 401 }), 'weather request refused: the KEY in the weather env file is not valid'],
    ['HTTP 404 as no such place', 'Nowhere', (_, res) => sendJson(res, 404, { cod: '404' }), 'no such place: Nowhere'],
    ['another HTTP status', 'Exampleville', (_, res) => sendText(res, 503, 'busy'), 'weather request failed for Exampleville: HTTP 503'],
    ['an answer that is not JSON', 'Exampleville', (_, res) => sendText(res, 200, '<html>'), 'weather request failed for Exampleville: the answer is not JSON'],
  ])('reports %s', async (_, place, handler, message) => {
    const server = await serve(handler);
    for (const when of ['now', 'tomorrow']) {
      const run = await runWeather([place, when], toolEnv(server));
      expect(run).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/data/2.5/weather', '/data/2.5/forecast']);
  });

  it('reports a refused connection, and writes no cache', async () => {
    const server = await serve(() => undefined);
    const run = await runWeather([], toolEnv(server, { OPENWEATHER_URL: await refusedUrl() }));
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'weather request failed for Exampleville,ZZ: ECONNREFUSED\n' });
    await expect(stat(cachePath)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('weather tool through the tools MCP server', () => {
  async function callWeather(server: HttpStub, args: Record<string, string>) {
    await cp(join(EXAMPLES, 'tools'), join(dir.path, 'tools'), { recursive: true });
    const env = { WEATHER_ENV: envPath, OPENWEATHER_URL: server.url, WEATHER_CACHE: cachePath };
    await dir.write('config.toml', `[env]\n${Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join('\n')}\n`);
    const tools = await connectToolsServer(dir.path);
    try {
      return await tools.client.callTool({ name: 'weather', arguments: args });
    } finally {
      await tools.close();
    }
  }

  it('returns home now from the API and fills the cache', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, conditions('Exampleville', 12)));
    const called = await callWeather(server, { place: '', when: '' });
    expect(called.isError).toBe(false);
    expect(resultText(called)).toBe('Exampleville: light rain, 12 degrees, feels like 10, humidity 81%, wind 18 km/h');
    expect(server.requests.map((r) => r.query.get('q'))).toEqual(['Exampleville,ZZ']);
    expect(JSON.parse(await readFile(cachePath, 'utf8'))).toMatchObject({ name: 'Exampleville' });
  });

  it('turns a failure into an error result with the last stderr line', async () => {
    const server = await serve((_req, res) => sendJson(res, 404, { cod: '404' }));
    const called = await callWeather(server, { place: 'Nowhere', when: 'now' });
    expect(called.isError).toBe(true);
    expect(resultText(called)).toBe('error: no such place: Nowhere');
  });
});

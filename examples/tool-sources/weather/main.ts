/**
 * weather.mjs [PLACE] [WHEN]: OpenWeatherMap current conditions (WHEN now
 * or empty) or the 3-hourly forecast for today or tomorrow. PLACE empty =
 * home, from the env file named by WEATHER_ENV (KEY, CITY, COUNTRY, UNITS;
 * default ~/.config/desktop-assistant/weather.env). Home "now" is served
 * from the cache file (WEATHER_CACHE, default
 * ~/.cache/desktop-assistant/weather.json) while it is under 30 minutes old,
 * with no request. OPENWEATHER_URL replaces the API's address.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { readEnvFile } from './env-file.js';
import { describeConditions, describeDay, fetchWeather, localDate, type Conditions, type Forecast, type WeatherSettings } from './open-weather.js';

const CACHE_MAX_AGE_MS = 30 * 60 * 1000;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function settings(): Promise<WeatherSettings & { home: string }> {
  const configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const path = process.env.WEATHER_ENV || join(configHome, 'desktop-assistant', 'weather.env');
  let env: Record<string, string>;
  try {
    env = await readEnvFile(path);
  } catch {
    fail(`no weather env file at ${path} (set WEATHER_ENV in config.toml [env])`);
  }
  if (!env.KEY) fail(`KEY is empty in ${path}`);
  // Without a CITY there is no home: a lone COUNTRY would be asked for as a city name.
  const home = env.CITY ? [env.CITY, env.COUNTRY].filter(Boolean).join(',') : '';
  return { key: env.KEY, units: env.UNITS || 'metric', baseUrl: process.env.OPENWEATHER_URL || 'https://api.openweathermap.org', home };
}

function cachePath(): string {
  if (process.env.WEATHER_CACHE) return process.env.WEATHER_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'desktop-assistant', 'weather.json');
}

async function freshCache(path: string): Promise<Conditions | undefined> {
  try {
    if (Date.now() - (await stat(path)).mtimeMs > CACHE_MAX_AGE_MS) return undefined;
    return JSON.parse(await readFile(path, 'utf8')) as Conditions;
  } catch {
    return undefined;
  }
}

async function homeNow(s: WeatherSettings & { home: string }): Promise<Conditions> {
  const path = cachePath();
  const cached = await freshCache(path);
  if (cached) return cached;
  const now = await fetchWeather<Conditions>('weather', s.home, s);
  // A cache we cannot write only costs a request next time.
  await mkdir(dirname(path), { recursive: true })
    .then(() => writeFile(path, JSON.stringify(now)))
    .catch(() => undefined);
  return now;
}

async function main(): Promise<string> {
  const [placeArg = '', whenArg = ''] = process.argv.slice(2).map((a) => a.trim());
  const when = whenArg.toLowerCase() || 'now';
  if (!['now', 'today', 'tomorrow'].includes(when)) fail('when must be now, today or tomorrow');
  const s = await settings();
  const place = placeArg || s.home;
  if (!place) fail('no place given and no CITY in the weather env file');
  if (when === 'now') {
    const conditions = placeArg ? await fetchWeather<Conditions>('weather', place, s) : await homeNow(s);
    return describeConditions(conditions, s.units, place);
  }
  const day = new Date();
  if (when === 'tomorrow') day.setDate(day.getDate() + 1);
  return describeDay(await fetchWeather<Forecast>('forecast', place, s), localDate(day), s.units, place);
}

main().then(
  (text) => process.stdout.write(`${text}\n`),
  (error: unknown) => fail((error as Error).message),
);

import { fetchFailure } from '../shared/fetch-failure.js';

/** The parts of OpenWeatherMap's 2.5 answers this tool reads. */
export interface Conditions {
  dt: number;
  name?: string;
  weather?: { description?: string }[];
  main: { temp: number; feels_like?: number; humidity?: number; temp_min?: number; temp_max?: number };
  wind?: { speed?: number };
}

export interface Forecast {
  city?: { name?: string };
  list: Conditions[];
}

export interface WeatherSettings {
  key: string;
  units: string;
  baseUrl: string;
}

const TIMEOUT_MS = 8000;

/** GET /data/2.5/{what}?q=..., with a message that says what failed. */
export async function fetchWeather<T>(what: 'weather' | 'forecast', place: string, settings: WeatherSettings): Promise<T> {
  const url = new URL(`/data/2.5/${what}`, settings.baseUrl);
  url.search = new URLSearchParams({ q: place, appid: settings.key, units: settings.units }).toString();
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`weather request failed for ${place}: ${fetchFailure(error)}`);
  }
  if (response.status === 404) throw new Error(`no such place: ${place}`);
  if (response.status === 401) throw new Error('weather request refused: the KEY in the weather env file is not valid');
  if (!response.ok) throw new Error(`weather request failed for ${place}: HTTP ${response.status}`);
  try {
    return (await response.json()) as T;
  } catch {
    throw new Error(`weather request failed for ${place}: the answer is not JSON`);
  }
}

export function describeConditions(c: Conditions, units: string, place: string): string {
  const deg = units === 'imperial' ? 'degrees Fahrenheit' : units === 'standard' ? 'kelvin' : 'degrees';
  const parts = [`${c.name || place}: ${c.weather?.[0]?.description ?? 'unknown conditions'}`, `${Math.round(c.main.temp)} ${deg}`];
  if (c.main.feels_like !== undefined) parts.push(`feels like ${Math.round(c.main.feels_like)}`);
  if (c.main.humidity !== undefined) parts.push(`humidity ${c.main.humidity}%`);
  if (c.wind?.speed !== undefined) parts.push(`wind ${windText(c.wind.speed, units)}`);
  return parts.join(', ');
}

/** OpenWeatherMap gives m/s for metric and standard, mph for imperial. */
function windText(speed: number, units: string): string {
  return units === 'imperial' ? `${Math.round(speed)} mph` : `${Math.round(speed * 3.6)} km/h`;
}

export function describeDay(forecast: Forecast, day: string, units: string, place: string): string {
  const name = forecast.city?.name || place;
  const slots = forecast.list.filter((slot) => localDate(new Date(slot.dt * 1000)) === day);
  if (slots.length === 0) return `no forecast for ${name} on ${day}`;
  const temps = slots.map((s) => s.main.temp);
  const deg = units === 'imperial' ? 'F' : units === 'standard' ? 'K' : 'C';
  const hours = slots.map((s) => `${localTime(new Date(s.dt * 1000))} ${s.weather?.[0]?.description ?? '?'} ${Math.round(s.main.temp)}`);
  return `${name} ${day}: min ${Math.round(Math.min(...temps))}, max ${Math.round(Math.max(...temps))} ${deg}; ${hours.join(', ')}`;
}

export function localDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function localTime(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

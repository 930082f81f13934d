/**
 * The daemon's own figures for the soak, from GET /metrics: the event
 * loop's delay since the previous scrape (the daemon resets it on each one)
 * and the V8 heap in use. Nothing else can see inside its process.
 */
import { parseDaemonInside, type DaemonInside } from '../../test/support/soak-figures.js';

export async function scrapeDaemonInside(url: string, token: string, signal?: AbortSignal): Promise<DaemonInside> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parseDaemonInside(await response.text());
}

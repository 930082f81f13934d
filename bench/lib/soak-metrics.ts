/**
 * The daemon's own figures for the soak, from GET /metrics: the event
 * loop's delay since the previous scrape (the daemon resets it on each one)
 * and the V8 heap in use. Nothing else can see inside its process.
 */
import { get } from 'node:http';
import { parseDaemonInside, type DaemonInside } from '../../test/support/soak-figures.js';

/**
 * One GET /metrics on a connection of its own, closed after it (no agent): a
 * kept-alive socket would be counted among the daemon's descriptors by
 * whichever census came within its idle timeout.
 */
export function scrapeDaemonInside(url: string, token: string, timeoutMs = 5000): Promise<DaemonInside> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}/metrics`, { agent: false, headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => (text += part));
      response.on('error', reject);
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`GET /metrics answered ${response.statusCode}`));
        else {
          try {
            resolve(parseDaemonInside(text));
          } catch (error) {
            reject(error);
          }
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error(`GET /metrics did not answer within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

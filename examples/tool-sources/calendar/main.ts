/**
 * calendar.mjs [START] [DAYS]: the events from START (YYYY-MM-DD, empty =
 * today) for DAYS days (empty = 1), one line each, in local time. Reads
 * every .ics under CALENDAR_DIR (default ~/.local/share/calendars, the
 * folder vdirsyncer writes).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { agenda, formatEntry } from './agenda.js';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function parseStart(text: string): Date {
  if (!text) {
    const now = new Date();
    return new Date(now.getFullYear(), now.getMonth(), now.getDate());
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) fail(`start must be a date as YYYY-MM-DD, not ${JSON.stringify(text)}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  if (date.getMonth() !== month - 1 || date.getDate() !== day) fail(`no such date: ${text}`);
  return date;
}

function parseDays(text: string): number {
  if (!text) return 1;
  const days = Number(text);
  if (!Number.isInteger(days) || days < 1 || days > 366) fail(`days must be a whole number from 1 to 366, not ${JSON.stringify(text)}`);
  return days;
}

const [startText = '', daysText = ''] = process.argv.slice(2);
const dir = process.env.CALENDAR_DIR || join(homedir(), '.local', 'share', 'calendars');
const start = parseStart(startText.trim());
const days = parseDays(daysText.trim());
try {
  const entries = await agenda(dir, start, days);
  process.stdout.write(`${entries.length > 0 ? entries.map(formatEntry).join('\n') : 'no events'}\n`);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') fail(`no calendar folder at ${dir} (set CALENDAR_DIR in config.toml [env])`);
  fail(`cannot read the calendars in ${dir}: ${(error as Error).message}`);
}

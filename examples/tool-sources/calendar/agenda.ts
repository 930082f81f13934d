import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { toInstant } from './zoned-time.js';

export interface AgendaEntry {
  start: Date;
  end: Date;
  allDay: boolean;
  summary: string;
}

/** Safety net against a rule that never ends and never reaches the range. */
const MAX_OCCURRENCES = 100_000;

/**
 * Every event of every `.ics` under `dir` that overlaps [from, from + days),
 * in local time, sorted by start. RRULE, RDATE and EXDATE are expanded by
 * ical.js; a RECURRENCE-ID override replaces the occurrence it names;
 * cancelled occurrences are left out; VALARM blocks play no part.
 */
export async function agenda(dir: string, from: Date, days: number): Promise<AgendaEntry[]> {
  const rangeEnd = new Date(from.getFullYear(), from.getMonth(), from.getDate() + days);
  const entries: AgendaEntry[] = [];
  for (const file of await icsFiles(dir)) {
    const calendar = new ICAL.Component(ICAL.parse(await readFile(file, 'utf8')));
    for (const event of eventsOf(calendar)) entries.push(...occurrencesIn(event, from, rangeEnd));
  }
  return entries.sort((a, b) => a.start.getTime() - b.start.getTime() || a.summary.localeCompare(b.summary));
}

async function icsFiles(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true });
  return found
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.ics'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Each master event with its overrides related to it, plus lone overrides. */
function eventsOf(calendar: ICAL.Component): ICAL.Event[] {
  const masters = new Map<string, ICAL.Event>();
  const overrides: ICAL.Component[] = [];
  const lone: ICAL.Event[] = [];
  for (const component of calendar.getAllSubcomponents('vevent')) {
    if (component.hasProperty('recurrence-id')) overrides.push(component);
    else masters.set(String(component.getFirstPropertyValue('uid') ?? Symbol()), new ICAL.Event(includeStartInRdates(component)));
  }
  for (const component of overrides) {
    const master = masters.get(String(component.getFirstPropertyValue('uid')));
    if (master) master.relateException(component);
    else lone.push(new ICAL.Event(component));
  }
  return [...masters.values(), ...lone];
}

/**
 * RFC 5545 counts DTSTART as the first instance, but ical.js 2.x leaves it
 * out when an event recurs by RDATE alone (ical.js PR #534), so it is added
 * as one more RDATE. A repeat of an existing RDATE is dropped when expanding.
 */
function includeStartInRdates(component: ICAL.Component): ICAL.Component {
  if (!component.hasProperty('rdate') || component.hasProperty('rrule')) return component;
  const start = component.getFirstPropertyValue('dtstart');
  if (start instanceof ICAL.Time) component.addPropertyWithValue('rdate', start.clone());
  return component;
}

/** The TZID of an event's DTSTART; its times that ical.js could not zone are in it. */
function startTzid(item: ICAL.Event): string | undefined {
  const tzid = item.component.getFirstProperty('dtstart')?.getParameter('tzid');
  return typeof tzid === 'string' ? tzid : undefined;
}

function occurrencesIn(event: ICAL.Event, from: Date, rangeEnd: Date): AgendaEntry[] {
  if (!event.isRecurring()) {
    const entry = entryOf(event, event.startDate, event.endDate);
    return entry && overlaps(entry, from, rangeEnd) ? [entry] : [];
  }
  // An override may move an occurrence from outside the range into it:
  // expand as far past the range as the largest move.
  const horizon = rangeEnd.getTime() + largestMoveMs(event);
  const tzid = startTzid(event);
  const out: AgendaEntry[] = [];
  const iterator = event.iterator();
  let previous: ICAL.Time | undefined;
  for (let i = 0, next = iterator.next(); next && i < MAX_OCCURRENCES; i++, next = iterator.next()) {
    if (toInstant(next, tzid).getTime() >= horizon) break;
    // ical.js yields a time given by both RRULE and RDATE twice (ical.js
    // issue #1026); the expansion is sorted, so a repeat comes right after.
    if (previous && next.compare(previous) === 0) continue;
    previous = next;
    const details = event.getOccurrenceDetails(next);
    const entry = entryOf(details.item, details.startDate, details.endDate);
    if (entry && overlaps(entry, from, rangeEnd)) out.push(entry);
  }
  return out;
}

function largestMoveMs(event: ICAL.Event): number {
  let largest = 0;
  for (const override of Object.values(event.exceptions)) {
    const move = Math.abs(toInstant(override.startDate).getTime() - toInstant(override.recurrenceId).getTime());
    largest = Math.max(largest, move);
  }
  return largest;
}

function entryOf(item: ICAL.Event, startTime: ICAL.Time, endTime: ICAL.Time | undefined): AgendaEntry | undefined {
  if (String(item.component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') return undefined;
  const tzid = startTzid(item);
  const start = toInstant(startTime, tzid);
  const allDay = startTime.isDate;
  const end = endTime ? toInstant(endTime, tzid) : allDay ? new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1) : start;
  return { start, end, allDay, summary: item.summary?.trim() || '(no title)' };
}

function overlaps(entry: AgendaEntry, from: Date, rangeEnd: Date): boolean {
  if (entry.start.getTime() >= rangeEnd.getTime()) return false;
  if (entry.start.getTime() >= from.getTime()) return true;
  return entry.end.getTime() > from.getTime();
}

/** One line per entry: `YYYY-MM-DD HH:MM summary` or `YYYY-MM-DD all day summary`. */
export function formatEntry(entry: AgendaEntry): string {
  const day = localDate(entry.start);
  const lastDay = new Date(entry.end.getTime() - (entry.allDay ? 1 : 0));
  const until = localDate(lastDay) !== day && entry.end > entry.start ? ` (until ${localDate(lastDay)})` : '';
  const when = entry.allDay ? 'all day' : `${pad(entry.start.getHours())}:${pad(entry.start.getMinutes())}`;
  return `${day} ${when} ${entry.summary.replace(/\s*\n\s*/g, ' ')}${until}`;
}

function localDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

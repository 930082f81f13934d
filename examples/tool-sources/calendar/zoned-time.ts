import ICAL from 'ical.js';

/**
 * The instant an iCalendar time stands for. A TZID with its VTIMEZONE in
 * the file is converted by ical.js; a TZID without one (many exporters
 * leave it out) is taken as an IANA zone name and converted with Intl;
 * a floating time or an unknown zone is the local wall-clock time.
 * ical.js keeps such a TZID only on the time it parsed, not on clones or
 * recurrence occurrences, so the caller passes the event's TZID as
 * `fallbackTzid` for those.
 */
export function toInstant(time: ICAL.Time, fallbackTzid?: string): Date {
  if (time.isDate) return new Date(time.year, time.month - 1, time.day);
  const zone = time.zone;
  if (zone && zone.tzid !== 'floating' && zone !== ICAL.Timezone.localTimezone) return time.toJSDate();
  const tzid = (time as unknown as { timezone?: string }).timezone ?? fallbackTzid;
  if (tzid && isIanaZone(tzid)) return wallTimeIn(tzid, time);
  return new Date(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}

function isIanaZone(tzid: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tzid });
    return true;
  } catch {
    return false;
  }
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The instant at which the clocks of `tzid` show `wall`. */
function wallTimeIn(tzid: string, wall: WallTime): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // Two passes settle the offset on either side of a DST change.
  let guess = asUtc - offsetMs(tzid, asUtc);
  guess = asUtc - offsetMs(tzid, guess);
  return new Date(guess);
}

function offsetMs(tzid: string, instant: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tzid,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const shown = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return shown - Math.floor(instant / 1000) * 1000;
}

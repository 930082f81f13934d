/**
 * Builders for small iCalendar files as real exporters write them: CRLF
 * line ends, a VCALENDAR wrapper, UID and DTSTAMP on every event.
 */

const CRLF = '\r\n';

/** A whole .ics file from the components' lines. */
export function calendarFile(...components: string[][]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//example.org//tests//EN', ...components.flat(), 'END:VCALENDAR'];
  return lines.join(CRLF) + CRLF;
}

/** A VEVENT with the given UID and property lines (DTSTART, SUMMARY, ...). */
export function vevent(uid: string, ...properties: string[]): string[] {
  return ['BEGIN:VEVENT', `UID:${uid}@example.org`, 'DTSTAMP:20260101T000000Z', ...properties, 'END:VEVENT'];
}

/** A VALARM block; its SUMMARY belongs to the alarm, not to the event. */
export function valarm(summary: string): string[] {
  return ['BEGIN:VALARM', 'ACTION:EMAIL', 'TRIGGER:-P1D', `SUMMARY:${summary}`, 'DESCRIPTION:Reminder', 'ATTENDEE:mailto:someone@example.org', 'END:VALARM'];
}

/** Continues `rest` on a folded line, as RFC 5545 §3.1 does for long lines. */
export function folded(first: string, ...rest: string[]): string {
  return [first, ...rest.map((part) => ` ${part}`)].join(CRLF);
}

/** Europe/Rome since 1996: CET, with CEST from the last Sunday of March to the last Sunday of October. */
export const VTIMEZONE_ROME: string[] = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Rome',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

/** America/New_York since 2007: EDT from the second Sunday of March to the first Sunday of November. */
export const VTIMEZONE_NEW_YORK: string[] = [
  'BEGIN:VTIMEZONE',
  'TZID:America/New_York',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:-0500',
  'TZOFFSETTO:-0400',
  'TZNAME:EDT',
  'DTSTART:20070311T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:-0400',
  'TZOFFSETTO:-0500',
  'TZNAME:EST',
  'DTSTART:20071104T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

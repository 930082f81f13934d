import { execFile } from 'node:child_process';
import { cp, readFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { connectToolsServer, resultText } from '../helpers/mcp-stdio.js';
import { EXAMPLES, REPO_ROOT } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { VTIMEZONE_NEW_YORK, VTIMEZONE_ROME, calendarFile, folded, valarm, vevent } from './ics-fixtures.js';

const CALENDAR_TOOL = join(EXAMPLES, 'tools', 'calendar.mjs');
// The agenda uses the process's local zone, and the vitest process is not in
// Rome: every run of the tool is a child process with TZ set.
const ROME = 'Europe/Rome';
const execFileAsync = promisify(execFile);

interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function runCalendar(dir: string, ...args: string[]): Promise<ToolRun> {
  const env = { ...process.env, TZ: ROME, CALENDAR_DIR: dir };
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CALENDAR_TOOL, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const temps: TempDir[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => t.remove()));
});

/** A vdir-like folder holding the given files (relative path -> text). */
async function vdir(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir('da-calendar-');
  temps.push(dir);
  for (const [path, text] of Object.entries(files)) await dir.write(path, text);
  return dir.path;
}

/** The tool's lines for a successful run. */
async function agendaLines(dir: string, start: string, days: string): Promise<string[]> {
  const run = await runCalendar(dir, start, days);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout.trimEnd().split('\n');
}

function seedFiles(): Record<string, string> {
  return {
    'dentist.ics': calendarFile(vevent('dentist', 'DTSTART:20261001T100000', 'DTEND:20261001T110000', 'SUMMARY:Dentist\\, checkup')),
    'birthday.ics': calendarFile(
      vevent('birthday', 'DTSTART;VALUE=DATE:19900312', 'RRULE:FREQ=YEARLY', 'SUMMARY:Birthday', ...valarm('Alarm text')),
    ),
    'gym.ics': calendarFile(
      VTIMEZONE_ROME,
      vevent(
        'gym',
        'DTSTART;TZID=Europe/Rome:20260901T180000',
        'DTEND;TZID=Europe/Rome:20260901T190000',
        'RRULE:FREQ=WEEKLY;UNTIL=20261231T170000Z',
        'EXDATE;TZID=Europe/Rome:20260908T180000',
        'SUMMARY:Gym',
      ),
      vevent(
        'gym',
        'RECURRENCE-ID;TZID=Europe/Rome:20260915T180000',
        'DTSTART;TZID=Europe/Rome:20260916T190000',
        'DTEND;TZID=Europe/Rome:20260916T200000',
        'SUMMARY:Gym moved',
      ),
    ),
    'call.ics': calendarFile(vevent('call', 'DTSTART:20261001T160000Z', 'DTEND:20261001T170000Z', 'SUMMARY:Call')),
  };
}

describe('calendar tool: seed cases (TZ=Europe/Rome)', () => {
  let dir = '';
  let seed: TempDir;
  beforeAll(async () => {
    seed = await makeTempDir('da-calendar-seed-');
    for (const [path, text] of Object.entries(seedFiles())) await seed.write(path, text);
    dir = seed.path;
  });
  afterAll(() => seed.remove());

  it('expands a weekly rule with EXDATE and a moved override', async () => {
    expect(await agendaLines(dir, '2026-09-01', '30')).toEqual([
      '2026-09-01 18:00 Gym',
      '2026-09-16 19:00 Gym moved',
      '2026-09-22 18:00 Gym',
      '2026-09-29 18:00 Gym',
    ]);
  });

  it('shows a yearly all-day event and not its alarm', async () => {
    const run = await runCalendar(dir, '2026-03-10', '5');
    expect(run.stdout).toBe('2026-03-12 all day Birthday\n');
    expect(run.stdout).not.toContain('Alarm text');
  });

  it('unescapes commas and shows a UTC time in local time', async () => {
    expect(await agendaLines(dir, '2026-10-01', '1')).toEqual(['2026-10-01 10:00 Dentist, checkup', '2026-10-01 18:00 Call']);
  });

  it('says "no events" for an empty day', async () => {
    expect(await agendaLines(dir, '2026-10-02', '1')).toEqual(['no events']);
  });
});

describe('calendar tool: time zones', () => {
  it('keeps a weekly Rome event at 18:00 across the EU change to winter time', async () => {
    const dir = await vdir({
      'yoga.ics': calendarFile(
        VTIMEZONE_ROME,
        vevent('yoga', 'DTSTART;TZID=Europe/Rome:20261013T180000', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY', 'SUMMARY:Yoga'),
      ),
    });
    expect(await agendaLines(dir, '2026-10-20', '15')).toEqual(['2026-10-20 18:00 Yoga', '2026-10-27 18:00 Yoga', '2026-11-03 18:00 Yoga']);
  });

  // 2026-10-25 to 2026-11-01 the EU is on winter time and the US is not yet:
  // 12:00 in New York is 17:00 in Rome that week, 18:00 before and after.
  const newYorkCall = vevent(
    'ny',
    'DTSTART;TZID=America/New_York:20261021T120000',
    'DTEND;TZID=America/New_York:20261021T130000',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:New York call',
  );
  const newYorkLines = ['2026-10-21 18:00 New York call', '2026-10-28 17:00 New York call', '2026-11-04 18:00 New York call'];

  it('converts a TZID that has no VTIMEZONE in the file', async () => {
    const dir = await vdir({ 'ny.ics': calendarFile(newYorkCall) });
    expect(await agendaLines(dir, '2026-10-20', '30')).toEqual(newYorkLines);
  });

  it('places the end of an event in a zone without VTIMEZONE in that zone too', async () => {
    // 17:00 to 20:00 in New York is 23:00 to 02:00 in Rome: still on in Rome's next day.
    const dir = await vdir({
      'late.ics': calendarFile(vevent('late', 'DTSTART;TZID=America/New_York:20261020T170000', 'DURATION:PT3H', 'SUMMARY:Late call')),
    });
    expect(await agendaLines(dir, '2026-10-21', '1')).toEqual(['2026-10-20 23:00 Late call (until 2026-10-21)']);
  });

  it('converts a TZID with its VTIMEZONE in the file', async () => {
    const dir = await vdir({ 'ny.ics': calendarFile(VTIMEZONE_NEW_YORK, newYorkCall) });
    expect(await agendaLines(dir, '2026-10-20', '30')).toEqual(newYorkLines);
  });
});

describe('calendar tool: parsing and recurrence', () => {
  it('joins folded lines and unescapes newlines and semicolons', async () => {
    const dir = await vdir({
      'a.ics': calendarFile(
        vevent('folded', 'DTSTART:20260505T090000', folded('SUMMARY:Quarterly plan', 'ning review with the', ' whole team')),
        vevent('escaped', 'DTSTART:20260505T100000', 'SUMMARY:Pick up\\nparcel\\; bring ID'),
      ),
    });
    expect(await agendaLines(dir, '2026-05-05', '1')).toEqual([
      '2026-05-05 09:00 Quarterly planning review with the whole team',
      '2026-05-05 10:00 Pick up parcel; bring ID',
    ]);
  });

  it('expands a monthly second-Tuesday rule and stops at COUNT', async () => {
    const dir = await vdir({
      'club.ics': calendarFile(vevent('club', 'DTSTART:20260113T090000', 'RRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=3', 'SUMMARY:Book club')),
    });
    expect(await agendaLines(dir, '2026-01-01', '150')).toEqual([
      '2026-01-13 09:00 Book club',
      '2026-02-10 09:00 Book club',
      '2026-03-10 09:00 Book club',
    ]);
  });

  it('adds RDATE occurrences', async () => {
    const dir = await vdir({
      'rdate.ics': calendarFile(vevent('rdate', 'DTSTART:20261102T080000', 'RDATE:20261105T080000,20261107T080000', 'SUMMARY:Run')),
    });
    expect(await agendaLines(dir, '2026-11-01', '10')).toEqual(['2026-11-02 08:00 Run', '2026-11-05 08:00 Run', '2026-11-07 08:00 Run']);
  });

  it('counts DTSTART once with RDATE alone, drops it by EXDATE, and shows a time from RRULE and RDATE once', async () => {
    const dir = await vdir({
      'mixed.ics': calendarFile(
        vevent('excluded', 'DTSTART:20261202T080000', 'RDATE:20261204T080000', 'EXDATE:20261202T080000', 'SUMMARY:Swim'),
        vevent('both', 'DTSTART:20261202T090000', 'RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20261203T090000,20261205T090000', 'SUMMARY:Walk'),
      ),
    });
    expect(await agendaLines(dir, '2026-12-01', '7')).toEqual([
      '2026-12-02 09:00 Walk',
      '2026-12-03 09:00 Walk',
      '2026-12-04 08:00 Swim',
      '2026-12-05 09:00 Walk',
    ]);
  });

  it('leaves out an occurrence cancelled by an override', async () => {
    const dir = await vdir({
      'standup.ics': calendarFile(
        vevent('standup', 'DTSTART:20261102T093000', 'RRULE:FREQ=DAILY;COUNT=3', 'SUMMARY:Standup'),
        vevent('standup', 'RECURRENCE-ID:20261103T093000', 'DTSTART:20261103T093000', 'STATUS:CANCELLED', 'SUMMARY:Standup'),
      ),
    });
    expect(await agendaLines(dir, '2026-11-02', '3')).toEqual(['2026-11-02 09:30 Standup', '2026-11-04 09:30 Standup']);
  });

  it('shows an occurrence moved from after the range into it, and not at its old date', async () => {
    const dir = await vdir({
      'review.ics': calendarFile(
        vevent('review', 'DTSTART:20261102T100000', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;COUNT=4', 'SUMMARY:Review'),
        vevent('review', 'RECURRENCE-ID:20261116T100000', 'DTSTART:20261111T150000', 'DURATION:PT1H', 'SUMMARY:Review (moved)'),
      ),
    });
    expect(await agendaLines(dir, '2026-11-10', '3')).toEqual(['2026-11-11 15:00 Review (moved)']);
    expect(await agendaLines(dir, '2026-11-16', '1')).toEqual(['no events']);
  });

  it('shows a multi-day all-day event that began before the range, with its last day', async () => {
    const dir = await vdir({
      'holiday.ics': calendarFile(vevent('holiday', 'DTSTART;VALUE=DATE:20260728', 'DTEND;VALUE=DATE:20260804', 'SUMMARY:Holiday')),
    });
    expect(await agendaLines(dir, '2026-08-01', '2')).toEqual(['2026-07-28 all day Holiday (until 2026-08-03)']);
    expect(await agendaLines(dir, '2026-08-04', '1')).toEqual(['no events']);
  });

  it('reads .ics files in nested sub-folders and ignores other files', async () => {
    const dir = await vdir({
      'personal/home.ics': calendarFile(vevent('home', 'DTSTART:20260601T080000', 'SUMMARY:Home')),
      'work/shared/team/office.ICS': calendarFile(vevent('office', 'DTSTART:20260601T090000', 'SUMMARY:Office')),
      'work/notes.txt': 'BEGIN:VCALENDAR\r\nnot a calendar\r\n',
    });
    expect(await agendaLines(dir, '2026-06-01', '1')).toEqual(['2026-06-01 08:00 Home', '2026-06-01 09:00 Office']);
  });
});

describe('calendar tool: arguments', () => {
  /** Today's date in Rome as YYYY-MM-DD (en-CA formats dates that way). */
  const romeToday = (): string => new Intl.DateTimeFormat('en-CA', { timeZone: ROME }).format(new Date());
  const daily = calendarFile(vevent('daily', 'DTSTART;VALUE=DATE:20200101', 'RRULE:FREQ=DAILY', 'SUMMARY:Every day'));

  it.each([[['', '']], [[]]])('takes today for an empty start and one day for empty days (args %j)', async (args: string[]) => {
    const dir = await vdir({ 'daily.ics': daily });
    const before = romeToday();
    const run = await runCalendar(dir, ...args);
    // Either side of a midnight that passes during the run is right.
    const days = new Set([before, romeToday()]);
    expect(run.code).toBe(0);
    expect([...days].map((day) => `${day} all day Every day\n`)).toContain(run.stdout);
  });

  it.each([
    ['2026-13-01', '1', '2026-13-01'],
    ['2026-02-30', '1', '2026-02-30'],
    ['tomorrow', '1', '"tomorrow"'],
    ['2026-10-01', '0', '"0"'],
    ['2026-10-01', 'abc', '"abc"'],
    ['2026-10-01', '367', '"367"'],
  ])('rejects start %j, days %j', async (start, days, named) => {
    const dir = await vdir({ 'daily.ics': daily });
    const run = await runCalendar(dir, start, days);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(named);
  });

  it('names a missing calendar folder', async () => {
    const missing = join(await vdir({}), 'no-such-folder');
    const run = await runCalendar(missing, '2026-10-01', '1');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no calendar folder at ${missing}`);
  });
});

describe('calendar tool through the tools server, from a copy of examples/tools', () => {
  it('answers a call with the events of the configured folder', async () => {
    const configDir = await makeTempDir('da-calendar-config-');
    temps.push(configDir);
    const calendars = await vdir(seedFiles());
    await cp(join(EXAMPLES, 'tools'), join(configDir.path, 'tools'), { recursive: true });
    await configDir.write('config.toml', `[env]\nCALENDAR_DIR = ${JSON.stringify(calendars)}\n`);

    // Outside the checkout, the bundle has no node_modules to fall back on.
    const repoRoot = REPO_ROOT.replace(/\/+$/, '');
    expect(configDir.path.startsWith(repoRoot)).toBe(false);
    await expect(access(join(configDir.path, 'node_modules'))).rejects.toThrow();
    expect(await readFile(join(configDir.path, 'tools', 'calendar.mjs'), 'utf8')).not.toContain(repoRoot);

    const server = await connectToolsServer(configDir.path, [], { TZ: ROME });
    try {
      const result = await server.client.callTool({ name: 'calendar', arguments: { start: '2026-10-01', days: 1 } });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(resultText(result)).toBe('2026-10-01 10:00 Dentist, checkup\n2026-10-01 18:00 Call');
    } finally {
      await server.close();
    }
  });
});

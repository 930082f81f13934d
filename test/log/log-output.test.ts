import { afterEach, describe, expect, it } from 'vitest';
import { logEvent, setLogOutput, type LogSink } from '../../src/log/index.js';

function sink(isTTY: boolean): LogSink & { lines: string[] } {
  const lines: string[] = [];
  return { isTTY, lines, write: (line: string) => lines.push(line) };
}

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe('log lines: JSON for programs, text for a person at a terminal', () => {
  it('on a pipe (tests, the journal): one JSON object per line, every level', () => {
    const pipe = sink(false);
    logEvent('debug', 'probe', { n: 1 }, pipe);
    logEvent('info', 'audio_libraries', { noSoundCard: true, messages: 93 }, pipe);
    expect(pipe.lines.map((l) => JSON.parse(l))).toMatchObject([
      { level: 'debug', event: 'probe', n: 1 },
      { level: 'info', event: 'audio_libraries', noSoundCard: true, messages: 93 },
    ]);
    expect(pipe.lines.every((l) => l.endsWith('}\n'))).toBe(true);
  });

  it('a sink without isTTY (a collector in a test) is a pipe', () => {
    const lines: string[] = [];
    logEvent('info', 'x', {}, { write: (l: string) => lines.push(l) });
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'x' });
  });

  it('on a terminal: no JSON; info and debug are left out, warnings and errors are one text line', () => {
    const terminal = sink(true);
    logEvent('info', 'audio_libraries', { noSoundCard: true }, terminal);
    logEvent('debug', 'probe', {}, terminal);
    logEvent('warn', 'memory_snapshot_failed', { error: 'no space left on device', bytes: 12 }, terminal);
    logEvent('error', 'mcp_message_invalid', { reason: 'not-JSON' }, terminal);
    expect(terminal.lines).toEqual([
      '[warn] memory_snapshot_failed: error="no space left on device" bytes=12\n',
      '[error] mcp_message_invalid: reason=not-JSON\n',
    ]);
  });

  it('on a terminal a long field is cut, so one line stays one line', () => {
    const terminal = sink(true);
    logEvent('error', 'memory_index_mismatch', { problems: Array.from({ length: 100 }, (_, i) => `row ${i} has no vector`) }, terminal);
    expect(terminal.lines).toHaveLength(1);
    expect(terminal.lines[0]!.length).toBeLessThan(220);
    expect(terminal.lines[0]).toMatch(/^\[error\] memory_index_mismatch: problems=\["row 0 has no vector",.*…\n$/);
  });

  it('asked for (--log-format json): JSON on a terminal too, every level', () => {
    restore = setLogOutput({ format: 'json' });
    const terminal = sink(true);
    logEvent('info', 'audio_libraries', { noSoundCard: true }, terminal);
    expect(JSON.parse(terminal.lines[0]!)).toMatchObject({ event: 'audio_libraries', level: 'info' });
  });

  it('asked for (--log-level info): info lines on a terminal, as text', () => {
    restore = setLogOutput({ format: 'auto', level: 'info' });
    const terminal = sink(true);
    logEvent('info', 'audio_libraries', { noSoundCard: true, messages: 93 }, terminal);
    logEvent('debug', 'probe', {}, terminal);
    expect(terminal.lines).toEqual(['[info] audio_libraries: noSoundCard=true messages=93\n']);
  });

  it('a level applies to a pipe too (--log-level error leaves warnings out of the journal)', () => {
    restore = setLogOutput({ format: 'auto', level: 'error' });
    const pipe = sink(false);
    logEvent('warn', 'w', {}, pipe);
    logEvent('error', 'e', {}, pipe);
    expect(pipe.lines.map((l) => JSON.parse(l).event)).toEqual(['e']);
  });

  it('setLogOutput gives back a way to put the one before back', () => {
    const restoreOuter = setLogOutput({ format: 'text' });
    const restoreInner = setLogOutput({ format: 'json' });
    restoreInner();
    const pipe = sink(false);
    logEvent('warn', 'w', {}, pipe);
    restoreOuter();
    logEvent('warn', 'w', {}, pipe);
    expect(pipe.lines).toEqual(['[warn] w\n', expect.stringMatching(/^\{"time":.*"event":"w"\}\n$/)]);
  });
});

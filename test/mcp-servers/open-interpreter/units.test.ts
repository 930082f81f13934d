import { describe, expect, it } from 'vitest';
import { interpreterEnv } from '../../../mcp-servers/open-interpreter/child-env.js';
import { limitOutput, stripAnsi } from '../../../mcp-servers/open-interpreter/results.js';
import { buildArgs } from '../../../mcp-servers/open-interpreter/settings.js';

describe('buildArgs', () => {
  it('replaces {task} inside elements and keeps the task literal', () => {
    expect(buildArgs(['--auto_run', '{task}'], 'a $& b')).toEqual(['--auto_run', 'a $& b']);
    expect(buildArgs(['--message={task}', '{task}'], 'x')).toEqual(['--message=x', 'x']);
  });

  it('appends the task when no element has {task}', () => {
    expect(buildArgs([], 'x')).toEqual(['x']);
    expect(buildArgs(['-y'], 'x')).toEqual(['-y', 'x']);
  });
});

describe('interpreterEnv', () => {
  it('passes the session basics and LLM settings, drops other secrets, adds [env] last', () => {
    const env = interpreterEnv(
      { HOME: '/h', PATH: '/bin', OPENAI_API_KEY: 'k', AZURE_API_BASE: 'b', AZURE_CLIENT_SECRET: 's', AWS_ACCESS_KEY_ID: 'a', OWNER_OPENINTERPRETER_ENABLED: '1' },
      { NO_COLOR: '0', EXTRA: 'e' },
    );
    expect(env).toEqual({
      HOME: '/h',
      PATH: '/bin',
      OPENAI_API_KEY: 'k',
      AZURE_API_BASE: 'b',
      TERM: 'dumb',
      NO_COLOR: '0',
      DISABLE_TELEMETRY: 'true',
      PYTHONUNBUFFERED: '1',
      EXTRA: 'e',
    });
  });
});

describe('output shaping', () => {
  it('strips colour, cursor and title sequences', () => {
    expect(stripAnsi('\u001b[1;31mred\u001b[0m \u001b[2K\u001b]0;title\u0007done')).toBe('red done');
  });

  it('keeps start and end, and marks bytes never read', () => {
    expect(limitOutput('abcdefghij', 4, 0)).toEqual({ text: 'ab\n[... output truncated: 6 characters left out ...]\nij', truncated: true });
    expect(limitOutput('abc', 4, 0)).toEqual({ text: 'abc', truncated: false });
    expect(limitOutput('abc', 4, 10)).toEqual({ text: 'abc\n[... output truncated: 10 more bytes not read ...]', truncated: true });
    // Characters, not UTF-16 units: an emoji is not cut in half.
    expect(limitOutput('😀😀😀😀😀', 4, 0).text).toBe('😀😀\n[... output truncated: 1 characters left out ...]\n😀😀');
  });
});

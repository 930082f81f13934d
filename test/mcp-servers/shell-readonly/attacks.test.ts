import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpStub, type HttpStub } from '../../helpers/http-stub.js';
import { ATTACKS, type Attack } from './attack-corpus.js';
import { makeFixture, SECRET, snapshot, type Fixture } from './fixture.js';
import { startInProcess, type InProcessServer } from './harness.js';

let fixture: Fixture;
let stub: HttpStub;
let server: InProcessServer;
let before: Map<string, string>;

beforeAll(async () => {
  stub = await startHttpStub((_request, response) => response.writeHead(404).end());
  fixture = await makeFixture(`${stub.url}/remote.git`);
  server = await startInProcess({ allowedDirs: [fixture.inside], timeoutMs: 5000, maxOutputChars: 4000 });
  before = await snapshot(fixture.base);
});

afterAll(async () => {
  await server?.close();
  await stub?.close();
  await fixture?.dir.remove();
});

function fill(value: string): string {
  return value.replaceAll('$IN', fixture.inside).replaceAll('$OUT', fixture.outside).replaceAll('$BASE', fixture.base);
}

function toolArguments(attack: Attack): unknown {
  if (attack.input !== undefined) return attack.input;
  return { argv: attack.argv!.map(fill), ...(attack.cwd === undefined ? {} : { cwd: fill(attack.cwd) }) };
}

describe('the attack corpus', () => {
  it('has at least 40 attempts, each with a unique name', () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ATTACKS.map((a) => a.name)).size).toBe(ATTACKS.length);
  });

  it.each(ATTACKS.map((a) => [a.name, a] as const))('%s', async (_name, attack) => {
    for (const [key, value] of Object.entries(attack.serverEnv ?? {})) vi.stubEnv(key, fill(value));
    try {
      const outcome = await server.call(toolArguments(attack));
      if (attack.expect === 'ok') expect(outcome, outcome.text).toMatchObject({ isError: false });
      else expect(outcome, outcome.text).toMatchObject({ isError: true, code: attack.expect });
      expect(outcome.text).not.toContain(SECRET);
      expect(outcome.text).not.toContain('PWNED');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(fixture.pwned), 'the evil program ran').toBe(false);
    expect(await snapshot(fixture.base)).toEqual(before);
    expect(stub.requests).toEqual([]);
  });

  it('logs each refusal with its code and the arguments in fields', () => {
    const refusals = server.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'shell_readonly_refused');
    expect(refusals.length).toBe(ATTACKS.filter((a) => a.expect === 'SHELL_COMMAND_REFUSED' || a.expect === 'SHELL_PATH_OUTSIDE').length);
    expect(refusals[0]).toMatchObject({ level: 'warn', code: 'SHELL_PATH_OUTSIDE', argv: ['cat', `${fixture.outside}/secret.txt`] });
  });
});

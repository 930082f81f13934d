import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, afterEach, describe, expect, it } from 'vitest';
import { startHttpStub, type HttpStub } from '../../helpers/http-stub.js';
import { GIT_ENV, makeFixture, SECRET, type Fixture } from './fixture.js';

/**
 * The corpus proves little if its traps are duds. Here the same fixture is
 * attacked directly, without shell.readonly, and each attack must work:
 * the evil program runs, the secret shows, the network is reached.
 */
let fixture: Fixture;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub((_request, response) => response.writeHead(404).end());
  fixture = await makeFixture(`${stub.url}/remote.git`);
});

afterEach(async () => {
  await rm(fixture.pwned, { force: true });
});

afterAll(async () => {
  await stub?.close();
  await fixture?.dir.remove();
});

/** Runs a program the plain way, as a shell would, and returns stdout and stderr together. */
function raw(cwd: string, program: string, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd: join(fixture.inside, cwd), env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', () => resolve(output));
  });
}

describe('the traps work when shell.readonly is not there', () => {
  it('core.fsmonitor runs its program on git status', async () => {
    await raw('fsmon', 'git', 'status');
    expect(existsSync(fixture.pwned)).toBe(true);
  });

  it('a clean filter runs on git status once a file may have changed', async () => {
    // Same size, new mtime: git must read the file, through the filter, to know.
    await writeFile(join(fixture.inside, 'filter', 'a.txt'), 'b\n');
    await raw('filter', 'git', 'status');
    expect(existsSync(fixture.pwned)).toBe(true);
  });

  it('diff.external runs on git diff, textconv on git log -p, gpg.program on git log', async () => {
    await raw('extdiff', 'git', 'diff');
    expect(existsSync(fixture.pwned)).toBe(true);
    await rm(fixture.pwned);
    await raw('textconv', 'git', 'log', '-p');
    expect(existsSync(fixture.pwned)).toBe(true);
    await rm(fixture.pwned);
    await raw('signed', 'git', 'log');
    expect(existsSync(fixture.pwned)).toBe(true);
  });

  it('a partial clone reaches the network for a missing object', async () => {
    await raw('promisor', 'git', 'show', '1234567890123456789012345678901234567890');
    expect(stub.requests.length).toBeGreaterThan(0);
  });

  it('git finds repositories outside: above, through a .git file, through alternates, through core.worktree', async () => {
    expect(await raw('.', 'git', 'log')).toContain(SECRET);
    expect(await raw('gitfile', 'git', 'log')).toContain(SECRET);
    expect(await raw('alternates', 'git', 'log')).toContain(SECRET);
    expect(await raw('worktree', 'git', 'status', '--short')).toContain('secret.txt');
  });

  it('grep -R and find -L follow the symlinks out', async () => {
    // -D skip: grep would otherwise block on the fixture's FIFO.
    expect(await raw('.', 'grep', '-R', '-D', 'skip', SECRET, '.')).toContain(SECRET);
    expect(await raw('.', 'find', '-L', '.', '-name', 'secret2.txt')).toContain('secret2.txt');
  });
});

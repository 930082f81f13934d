import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type Host } from '../../src/host/runtime.js';
import type { ConfirmationChannel } from '../../src/host/router/index.js';
import { openStateDb, SqliteAuditLog } from '../../src/host/store/index.js';
import { startHttpStub, type HttpStub } from '../helpers/http-stub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

// The built-in adapters as the assistant uses them: started by the host's
// hub from [adapters.*], called through the router (risk from the server's
// own declaration, the policy, confirmation, one audit record per call).
let home: TempDir;
let host: Host;
let page: HttpStub;
const asked: string[] = [];
const approveAll: ConfirmationChannel = {
  confirm: async (request) => {
    asked.push(request.tool);
    return { answer: 'approved' };
  },
};

beforeAll(async () => {
  home = await makeTempDir('da-adapters-');
  const work = join(home.path, 'work');
  await mkdir(work);
  await home.write('work/notes.txt', 'first line\nsecond line\n');
  await mkdir(join(home.path, 'bin'));
  await copyFile(join(REPO_ROOT, 'test/fakes/interpreter-stand-in.mjs'), join(home.path, 'bin', 'interpreter'));
  await chmod(join(home.path, 'bin', 'interpreter'), 0o755);
  page = await startHttpStub((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><title>Example page</title></head><body><main><p>Hello from the example page.</p></main></body></html>');
  });
  await home.write(
    'config/config.toml',
    [
      '[router]',
      'tools = { openinterpreter_run = "confirm" }',
      '[adapters.shell_readonly]',
      `allowed_dirs = ["${work}"]`,
      '[adapters.openinterpreter]',
      'enabled = true',
      `cwd = "${work}"`,
      '',
    ].join('\n'),
  );
  const env = {
    ...process.env,
    PATH: `${join(home.path, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
    DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data'),
  };
  host = await startHost({ configDir: join(home.path, 'config'), env });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await page?.close();
  await home?.remove();
});

function lastAudit() {
  const state = openStateDb(join(home.path, 'data'));
  try {
    return new SqliteAuditLog(state).recent(1)[0];
  } finally {
    state.close();
  }
}

describe('the built-in adapters through the router', () => {
  it('are started by the hub, with the risk their servers declare', () => {
    const servers = Object.fromEntries(host.hub.servers().map((s) => [s.name, s.state]));
    expect(servers).toMatchObject({ tools: 'ready', 'shell-readonly': 'ready', 'open-interpreter': 'ready', browser: 'ready' });
    const risk = Object.fromEntries(host.router.catalog().map((t) => [t.name, [t.risk, t.decision]]));
    expect(risk.shell_readonly).toEqual(['read', 'allow']);
    expect(risk.browser_read_page).toEqual(['read', 'allow']);
    expect(risk.openinterpreter_run).toEqual(['high', 'confirm']);
  });

  it('runs shell.readonly without asking and audits it', async () => {
    const result = await host.router.call(host.router.newTurn('text', approveAll), { name: 'shell_readonly', arguments: { argv: ['cat', 'notes.txt'] } });
    expect(result).toMatchObject({ status: 'ok', text: 'first line\nsecond line' });
    expect(lastAudit()).toMatchObject({ tool: 'shell_readonly', server: 'shell-readonly', risk: 'read', decision: 'allow', decidedBy: 'policy', status: 'ok' });
  });

  it('refuses a writing shell command, audited as an error result', async () => {
    const result = await host.router.call(host.router.newTurn('text', approveAll), { name: 'shell_readonly', arguments: { argv: ['find', '.', '-delete'] } });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('SHELL_COMMAND_REFUSED');
    expect(lastAudit()).toMatchObject({ tool: 'shell_readonly', status: 'error' });
  });

  it('asks before Open Interpreter runs a task (high risk), and audits the answer', async () => {
    asked.length = 0;
    const result = await host.router.call(host.router.newTurn('text', approveAll), { name: 'openinterpreter_run', arguments: { task: 'say hello' } });
    expect(asked).toEqual(['openinterpreter_run']);
    expect(result.status).toBe('ok');
    expect(lastAudit()).toMatchObject({ tool: 'openinterpreter_run', server: 'open-interpreter', risk: 'high', decision: 'confirm', decidedBy: 'user', status: 'ok' });
  });

  it('reads a page with the browser adapter and audits it', async () => {
    const result = await host.router.call(host.router.newTurn('text', approveAll), { name: 'browser_read_page', arguments: { url: page.url } });
    expect(result.status).toBe('ok');
    expect(result.text).toContain('Example page');
    expect(result.text).toContain('Hello from the example page.');
    expect(lastAudit()).toMatchObject({ tool: 'browser_read_page', server: 'browser', risk: 'read', decision: 'allow', status: 'ok' });
  });
});

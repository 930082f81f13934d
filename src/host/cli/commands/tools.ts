import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../command.js';
import { UsageError } from '../command.js';

type HostModule = typeof import('../../runtime.js');

export const toolsCommand: CliCommand = {
  name: 'tools',
  usage: 'desktop-assistant tools [--config-dir DIR] [--json]',
  summary: 'every tool: exposed name, server, risk, policy, status; and the servers',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' }, json: { type: 'boolean' } } });
    const { startHost } = (await import('../../runtime.js')) as HostModule;
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    try {
      const tools = host.router.catalog();
      const servers = host.hub.servers();
      if (values.json) {
        const rows = tools.map(({ hubTool: _hub, inputSchema: _schema, ...rest }) => rest);
        io.stdout.write(`${JSON.stringify({ enabled: host.router.enabled, tools: rows, servers }, null, 2)}\n`);
        return 0;
      }
      if (!host.router.enabled) io.stdout.write('The router is off: no tool is offered or run.\n');
      writeTable(io, ['tool', 'server', 'server tool', 'risk', 'policy', 'status'], tools.map((t) => [
        t.name,
        t.server,
        t.serverToolName,
        `${t.risk} (${t.riskSource})`,
        t.decision,
        t.unsupported ? 'unsupported: GUI control' : t.quarantined ? 'quarantined: run `desktop-assistant tools approve NAME`' : t.available ? 'ready' : 'unavailable',
      ]));
      io.stdout.write('\n');
      for (const server of servers) {
        io.stdout.write(`server ${server.name}: ${server.state}, ${server.toolCount} tools, ${server.trusted ? 'trusted' : 'untrusted'}${server.builtin ? ', built in' : ''}: ${server.commandLine}\n`);
        if (server.error) io.stdout.write(`  ${server.error}\n`);
        if (server.state === 'failed') for (const line of server.stderrTail.slice(-10)) io.stdout.write(`  stderr: ${line}\n`);
      }
      return servers.some((s) => s.state === 'failed') ? 1 : 0;
    } finally {
      await host.close();
    }
  },
};

export const toolsApproveCommand: CliCommand = {
  name: 'tools approve',
  usage: 'desktop-assistant tools approve [--config-dir DIR] NAME',
  summary: 'approve the current definition of a quarantined tool, showing what changed',
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } }, allowPositionals: true });
    const [name, ...extra] = positionals;
    if (!name || extra.length > 0) throw new UsageError('give exactly one tool name');
    const { startHost } = (await import('../../runtime.js')) as HostModule;
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    try {
      const approved = host.router.approve(name);
      if (!approved) {
        io.stderr.write(`desktop-assistant: no tool named ${name} (see desktop-assistant tools)\n`);
        return 1;
      }
      if (!approved.tool.quarantined) {
        io.stdout.write(`${name} was not quarantined; its current definition is pinned.\n`);
        return 0;
      }
      io.stdout.write(`${name} (server ${approved.tool.server}) changed since it was approved:\n`);
      for (const change of approved.changes) io.stdout.write(`  ${change}\n`);
      io.stdout.write(`approved: ${name} is offered again.\n`);
      return 0;
    } finally {
      await host.close();
    }
  },
};

function writeTable(io: CliIo, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  io.stdout.write(`${line(header)}\n`);
  for (const row of rows) io.stdout.write(`${line(row)}\n`);
  if (rows.length === 0) io.stdout.write('(no tools)\n');
}

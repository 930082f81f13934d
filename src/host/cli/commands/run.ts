import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.js';
import { UsageError } from '../command.js';

export const runCommand: CliCommand = {
  name: 'run',
  usage: 'desktop-assistant run [--config-dir DIR] [--no-voice] [--port N]',
  summary: 'the daemon: MCP hub, HTTP API and web page (and the voice, when it is built)',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { 'config-dir': { type: 'string' }, 'no-voice': { type: 'boolean' }, port: { type: 'string' } },
    });
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError(`--port must be a port number, not ${values.port}`);
    const { startDaemon } = await import('../../daemon.js');
    const { reportToTerminal } = await import('../../terminal/index.js');
    const daemon = await startDaemon({ configDir: values['config-dir'], env: io.env, voice: !values['no-voice'], port });
    const stopReporting = reportToTerminal(daemon.host.bus, io.stderr);
    const tools = daemon.host.router.offered().map((t) => t.name);
    io.stdout.write(
      `desktop-assistant is running at ${daemon.url}/ (the token is in ${daemon.tokenFile}; \`desktop-assistant token\` prints it)\n` +
        `LLM: ${daemon.host.config.llm}; tools: ${tools.length > 0 ? tools.join(', ') : 'none'}\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    io.stdout.write('stopping\n');
    stopReporting();
    await daemon.close();
    return 0;
  },
};

#!/usr/bin/env node
import { isAppError, messageOf } from '../../errors/index.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import { UsageError, type CliCommand, type CliIo } from './command.js';
import { configCheckCommand } from './commands/config-check.js';
import { doctorCommand } from './commands/doctor.js';
import { askCommand } from './commands/ask.js';
import { auditCommand } from './commands/audit.js';
import { chatCommand } from './commands/chat.js';
import { MEMORY_COMMANDS } from './commands/memory.js';
import { mcpCommand } from './commands/mcp.js';
import { listenCommand } from './commands/listen.js';
import { runCommand } from './commands/run.js';
import { SERVICE_COMMANDS } from './commands/service.js';
import { tokenCommand } from './commands/token.js';
import { toolServerCommand } from './commands/tool-server.js';
import { toolsApproveCommand, toolsCommand } from './commands/tools.js';

const COMMANDS: CliCommand[] = [runCommand, listenCommand, ...SERVICE_COMMANDS, tokenCommand, chatCommand, askCommand, toolsCommand, toolsApproveCommand, auditCommand, ...MEMORY_COMMANDS, mcpCommand, configCheckCommand, doctorCommand, toolServerCommand];

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return `desktop-assistant ${PACKAGE_VERSION}: a local voice assistant and MCP agent host\n\nCommands:\n${lines.join('\n')}\n`;
}

/** Finds the command whose words start argv, longest name first. */
function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | undefined {
  const byLength = [...COMMANDS].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const command of byLength) {
    const words = command.name.split(' ');
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout.write(helpText());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version') {
    io.stdout.write(`${PACKAGE_VERSION}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr.write(`desktop-assistant: unknown command: ${argv.join(' ')}\n\n${helpText()}`);
    return 2;
  }
  try {
    return await found.command.run(found.rest, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`desktop-assistant: ${messageOf(error)}\nusage: ${found.command.usage}\n`);
      return 2;
    }
    io.stderr.write(`${isAppError(error) ? error.message : `desktop-assistant: ${messageOf(error)}`}\n`);
    return 1;
  }
}

// A reader that goes away (`| head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`desktop-assistant: ${messageOf(error)}\n`);
    process.exitCode = 1;
  },
);

import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.js';

const PROMPT = 'you> ';

export const chatCommand: CliCommand = {
  name: 'chat',
  usage: 'desktop-assistant chat [--config-dir DIR]',
  summary: 'a conversation in the terminal (Ctrl-C stops a reply, Ctrl-D or /quit leaves)',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } } });
    const { startHost } = await import('../../runtime.js');
    const { LineInput, reportToTerminal, terminalConfirmation } = await import('../../terminal/index.js');
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    const input = new LineInput(io.stdin, io.stdout);
    const stopReporting = reportToTerminal(host.bus, io.stderr);
    const conversation = host.newConversation();
    const confirmation = terminalConfirmation(input, io.stdout);
    let current: AbortController | undefined;
    const onInterrupt = (): void => {
      if (current) current.abort();
      else input.close();
    };
    process.on('SIGINT', onInterrupt);
    const offered = host.router.offered().map((t) => t.name);
    io.stdout.write(`desktop-assistant chat: ${host.config.llm}, tools: ${offered.length > 0 ? offered.join(', ') : 'none'}\n`);
    try {
      for (;;) {
        const line = await input.next(PROMPT);
        if (line === undefined || /^\/(quit|exit)$/.test(line.trim())) break;
        if (!line.trim()) continue;
        current = new AbortController();
        io.stdout.write('assistant> ');
        const outcome = await conversation.turn(line, {
          entry: 'text',
          confirmation,
          signal: current.signal,
          onSentence: (sentence) => io.stdout.write(`${sentence} `),
        });
        current = undefined;
        io.stdout.write('\n');
        if (outcome.status === 'cancelled') io.stdout.write('(stopped)\n');
        else if (outcome.error) io.stdout.write(`(${outcome.error.message})\n`);
      }
      return 0;
    } finally {
      process.off('SIGINT', onInterrupt);
      stopReporting();
      input.close();
      await host.close();
    }
  },
};

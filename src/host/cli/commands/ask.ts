import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.js';
import { UsageError } from '../command.js';

export const askCommand: CliCommand = {
  name: 'ask',
  usage: 'desktop-assistant ask [--config-dir DIR] "QUESTION"',
  summary: 'one turn: the reply on stdout, tool calls and timings on stderr',
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' } }, allowPositionals: true });
    const question = positionals.join(' ').trim();
    if (!question) throw new UsageError('no question given');
    const { startHost } = await import('../../runtime.js');
    const { LineInput, reportToTerminal, terminalConfirmation } = await import('../../terminal/index.js');
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    const input = new LineInput(io.stdin, io.stderr);
    const stopReporting = reportToTerminal(host.bus, io.stderr);
    const controller = new AbortController();
    const onInterrupt = (): void => controller.abort();
    process.once('SIGINT', onInterrupt);
    try {
      const outcome = await host.newConversation().turn(question, {
        entry: 'text',
        confirmation: terminalConfirmation(input, io.stderr),
        signal: controller.signal,
        onSentence: (sentence) => io.stdout.write(`${sentence}\n`),
      });
      if (outcome.error) io.stderr.write(`desktop-assistant: ${outcome.error.message}\n`);
      return outcome.status === 'ok' ? 0 : 1;
    } finally {
      process.off('SIGINT', onInterrupt);
      stopReporting();
      input.close();
      await host.close();
    }
  },
};

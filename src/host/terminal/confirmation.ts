import { confirmationQuestion, type ConfirmationChannel } from '../router/index.js';
import type { LineInput } from './line-input.js';

/** Asks on the terminal: the tool, its risk and its (redacted) arguments, answered y or n. */
export function terminalConfirmation(input: LineInput, output: NodeJS.WritableStream): ConfirmationChannel {
  return {
    async confirm(request, { signal }) {
      const question = `\n${confirmationQuestion(request)} [y/N] `;
      const answer = await input.next(question, signal);
      if (signal.aborted) {
        output.write('\n(no answer in time: not allowed)\n');
        return { answer: 'denied' };
      }
      return /^\s*(y|yes|s|si|sì)\s*$/i.test(answer ?? '') ? { answer: 'approved' } : { answer: 'denied' };
    },
  };
}

import { createInterface, type Interface } from 'node:readline';

/**
 * Lines from a stream, one at a time, for the chat prompt and the y/n
 * question of a confirmation alike (they share the terminal). Lines typed
 * ahead are queued; `next` resolves undefined at end of input.
 */
export class LineInput {
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | undefined) => void)[] = [];
  private ended = false;
  private readonly rl: Interface;

  constructor(input: NodeJS.ReadableStream, private readonly output: NodeJS.WritableStream) {
    this.rl = createInterface({ input, terminal: false });
    this.rl.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }

  next(prompt = '', signal?: AbortSignal): Promise<string | undefined> {
    if (prompt) this.output.write(prompt);
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (line: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  close(): void {
    this.rl.close();
  }
}

/** An AudioOutput that plays nothing, instantly; it counts what it was given, for tests. */
import type { AudioOutput } from '../../src/voice/types.js';

export class NullOutput implements AudioOutput {
  readonly name = 'null';
  samplesWritten = 0;

  async write(samples: Int16Array): Promise<void> {
    this.samplesWritten += samples.length;
  }

  async drain(): Promise<void> {}

  clear(): void {}

  async close(): Promise<void> {}
}

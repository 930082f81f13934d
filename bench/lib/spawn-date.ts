import { execFile } from 'node:child_process';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../src/errors/index.js';

/** The baseline of the tool benchmarks: Node spawning `date` itself and waiting for its output. */
export function spawnDate(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('date', [], { env, timeout: timeoutMs }, (error, stdout) => {
      if (error) reject(error);
      else if (stdout.length === 0) reject(new AppError('BENCH_TOOL_FAILED', 'date printed nothing'));
      else resolve();
    });
  });
}

/** An error result is fast and would flatter the path measured: refuse to time it. */
export function requireSuccess(result: CallToolResult): void {
  if (result.isError) throw new AppError('BENCH_TOOL_FAILED', 'the date tool returned an error result', { cause: result.content });
}

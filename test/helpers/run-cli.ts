import { execFile } from 'node:child_process';
import { CLI } from './paths.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI as a user would, and never rejects: the exit code is part of the answer. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** One CLI command: `desktop-assistant <name> ...`. */
export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  /** Resolves to the process exit code. */
  run(argv: string[], io: CliIo): Promise<number>;
}

export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** A usage error: the message and the command's usage, exit code 2. */
export class UsageError extends Error {}

/** `--port N`: a whole number up to 65535, from `lowest` (0 for `run`: any free port). */
export function parsePortOption(value: string | undefined, lowest = 1): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < lowest || port > 65535) throw new UsageError(`--port must be a port number, not ${value}`);
  return port;
}

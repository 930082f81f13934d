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

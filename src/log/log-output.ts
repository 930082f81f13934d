/**
 * Where the structured log goes in what form. On a pipe, a file or the
 * journal (a service): one JSON object per line, every level, for a program
 * to read. On a terminal a person reads, among the human lines the terminal
 * reporter prints: warnings and errors only, as text; JSON or more levels
 * only when asked (`desktop-assistant run --log-format json`, `--log-level info`).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: JSON, unless the sink is a terminal (then text). */
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogOutput {
  format: LogFormat;
  /** The lowest level written; unset: every level as JSON, warnings and errors as text. */
  level?: LogLevel;
}

/** Something log lines are written to; `isTTY` as Node's streams have it. */
export interface LogSink {
  write(line: string): unknown;
  isTTY?: boolean;
}

let chosen: LogOutput = { format: 'auto' };

/** For the whole process (the CLI, from its flags); returns a function that puts back the one before. */
export function setLogOutput(output: LogOutput): () => void {
  const before = chosen;
  chosen = { ...output };
  return () => {
    chosen = before;
  };
}

/** What a line to `sink` becomes: its form, and the lowest level that is written at all. */
export function logOutputFor(sink: LogSink, output: LogOutput = chosen): { format: 'json' | 'text'; level: LogLevel } {
  const format = output.format === 'auto' ? (sink.isTTY === true ? 'text' : 'json') : output.format;
  return { format, level: output.level ?? (format === 'text' ? 'warn' : 'debug') };
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export function isLogFormat(value: string): value is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(value);
}

/** True when a line at `level` is written under a threshold of `lowest`. */
export function levelWritten(level: LogLevel, lowest: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(lowest);
}

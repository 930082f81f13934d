/**
 * Structured log lines on stderr: one JSON object per line. Free text
 * (transcripts, tool arguments and output) goes only into fields, never into
 * the event name, so a reader can truncate or drop it.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogSink {
  write(line: string): unknown;
}

export function logEvent(
  level: LogLevel,
  event: string,
  fields: Record<string, unknown> = {},
  sink: LogSink = process.stderr,
): void {
  sink.write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
}

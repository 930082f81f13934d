import { levelWritten, logOutputFor, type LogLevel, type LogSink } from './log-output.js';
import { textLogLine } from './text-line.js';

/**
 * One structured log line, on stderr unless another sink is given: a JSON
 * object per line, or on a terminal a short text line (log-output.ts says
 * which, and which levels). Free text (transcripts, tool arguments and
 * output) goes only into fields, never into the event name, so a reader can
 * truncate or drop it.
 */
export function logEvent(level: LogLevel, event: string, fields: Record<string, unknown> = {}, sink: LogSink = process.stderr): void {
  const output = logOutputFor(sink);
  if (!levelWritten(level, output.level)) return;
  sink.write(output.format === 'json' ? `${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n` : textLogLine(level, event, fields));
}

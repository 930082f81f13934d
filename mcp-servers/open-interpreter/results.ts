import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TaskRisk } from './classify-task.js';
import { META_TASK_RISK } from './tool.js';

export type InterpreterErrorCode =
  | 'OPENINTERPRETER_INVALID_ARGUMENTS'
  | 'OPENINTERPRETER_UNKNOWN_TOOL'
  | 'OPENINTERPRETER_UNAVAILABLE'
  | 'OPENINTERPRETER_CWD_REFUSED'
  | 'OPENINTERPRETER_TIMEOUT'
  | 'OPENINTERPRETER_CANCELLED'
  | 'OPENINTERPRETER_FAILED'
  | 'OPENINTERPRETER_INTERNAL';

/**
 * An error as a result, never a protocol error: the text is
 * `{"error":{"code","message",...details},"taskRisk":{...}}` so a caller (or
 * the LLM) branches on the code, and the task's risk travels with a refusal.
 */
export function errorResult(
  code: InterpreterErrorCode,
  message: string,
  options: { taskRisk?: TaskRisk; details?: Record<string, unknown> } = {},
): CallToolResult {
  const body: Record<string, unknown> = { error: { code, message, ...options.details } };
  if (options.taskRisk) body.taskRisk = options.taskRisk;
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    isError: true,
    ...(options.taskRisk ? { _meta: { [META_TASK_RISK]: options.taskRisk } } : {}),
  };
}

export function outputResult(text: string, taskRisk: TaskRisk, truncated: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: text === '' ? '(Open Interpreter finished without printing anything)' : text }],
    _meta: { [META_TASK_RISK]: taskRisk, 'desktop-assistant/truncated': truncated },
  };
}

// CSI and OSC sequences: colours, cursor moves, window titles.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * At most `maxChars` characters of output, keeping its start and its end:
 * Open Interpreter prints its answer last, after the code it ran. What is
 * left out is named in a line of its own in the middle; bytes past the read
 * limit (never read at all) in one at the end.
 */
export function limitOutput(text: string, maxChars: number, unreadBytes: number): { text: string; truncated: boolean } {
  const chars = [...text];
  let out = text;
  let truncated = false;
  if (chars.length > maxChars) {
    const head = Math.floor(maxChars / 2);
    const tail = maxChars - head;
    const omitted = chars.length - head - tail;
    out = `${chars.slice(0, head).join('')}\n[... output truncated: ${omitted} characters left out ...]\n${chars.slice(chars.length - tail).join('')}`;
    truncated = true;
  }
  if (unreadBytes > 0) {
    out += `\n[... output truncated: ${unreadBytes} more bytes not read ...]`;
    truncated = true;
  }
  return { text: out, truncated };
}

/** The last lines of a stream's text, for an error: at most `lines` lines and `chars` characters. */
export function lastLines(text: string, lines = 10, chars = 2000): string {
  const kept = text.trimEnd().split('\n').slice(-lines).join('\n');
  return kept.length > chars ? kept.slice(kept.length - chars) : kept;
}

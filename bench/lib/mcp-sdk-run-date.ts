import { execFile } from 'node:child_process';

/** What both bench servers' `date` tool returns: a tool result shaped the same in both SDKs. */
export interface DateResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

const DATE_TIMEOUT_MS = 10_000;

/** Runs `date` as the tools server does (execFile, no shell) and returns its output as text. */
export function runDate(): Promise<DateResult> {
  return new Promise((resolve) => {
    execFile('date', [], { timeout: DATE_TIMEOUT_MS }, (error, stdout) => {
      resolve(error ? { content: [{ type: 'text', text: error.message }], isError: true } : { content: [{ type: 'text', text: stdout }] });
    });
  });
}

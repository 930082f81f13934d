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

/** What `date` prints, answered at once: the SDKs' own round trip, with no process in the way. */
export async function fixedDate(): Promise<DateResult> {
  return { content: [{ type: 'text', text: 'Mon Dec  7 22:36:47 UTC 2026\n' }] };
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AssistantEvent } from '../../src/events/index.js';
import { createAssistantBus, type AssistantBus } from '../../src/events/index.js';
import type { ServerSpec } from '../../src/host/hub/index.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** Scripted stdio MCP servers for the hub's tests (plain ESM, run with this node). */
export const FAKE_SERVER = join(REPO_ROOT, 'test/fakes/fake-server.mjs');
export const HANG_SERVER = join(REPO_ROOT, 'test/fakes/hang-server.mjs');

/** A fake-server.mjs spec; `env` holds its FAKE_* settings. */
export function fakeSpec(name: string, env: Record<string, string> = {}, overrides: Partial<ServerSpec> = {}): ServerSpec {
  return { name, command: process.execPath, args: [FAKE_SERVER], env, trusted: false, builtin: false, callTimeoutMs: 5000, ...overrides };
}

export function hangSpec(name: string, env: Record<string, string> = {}): ServerSpec {
  return { name, command: process.execPath, args: [HANG_SERVER], env, trusted: false, builtin: false, callTimeoutMs: 5000 };
}

/** The pids a fake appended to its pid file, oldest first. */
export async function readPids(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

/** A bus that records what it carries. */
export function recordingBus(): { bus: AssistantBus; events: AssistantEvent[] } {
  const bus = createAssistantBus();
  const events: AssistantEvent[] = [];
  bus.subscribe((event) => events.push(event));
  return { bus, events };
}

/** `server.state` events of one server, as "state" or "state: detail". */
export function statesOf(events: AssistantEvent[], server: string): string[] {
  return events.flatMap((e) => (e.type === 'server.state' && e.server === server ? [e.detail ? `${e.state}: ${e.detail}` : e.state] : []));
}

/** A log sink that keeps the parsed lines. */
export function recordingLog(): { sink: { write(line: string): boolean }; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    sink: {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
        return true;
      },
    },
  };
}

/** The private PulseAudio server (test/support/pulse-server.ts, which the benchmarks use too), and what test files share on top of it. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { messageOf } from '../../src/errors/index.js';
import { loadPortAudio } from '../../src/voice/devices/index.js';
import { startPulse, type PulseServer, type PulseStart } from '../support/pulse-server.js';

export * from '../support/pulse-server.js';

const run = promisify(execFile);

/**
 * For a test file that runs PortAudio on the private PulseAudio (its name
 * ends in -pulse.test.ts, so it runs alone, after the rest): starts it
 * (once, at import), or gives the reason it cannot run here (no naudiodon,
 * no PulseAudio), which the file's suite skips with and prints.
 */
export async function startPulseForTests(what: string): Promise<{ pulse: PulseStart; skipReason: string | undefined }> {
  const file = expect.getState().testPath ?? '';
  if (!file.endsWith('-pulse.test.ts')) throw new Error(`${file}: a test file on PulseAudio must end in -pulse.test.ts, so that it runs alone (vitest.config.ts)`);
  let pulse: PulseStart;
  try {
    loadPortAudio();
    pulse = await startPulse();
  } catch (error) {
    pulse = { ok: false, reason: messageOf(error) };
  }
  const skipReason = pulse.ok ? undefined : pulse.reason;
  if (skipReason) console.warn(`${what} skipped: ${skipReason}`);
  return { pulse, skipReason };
}

/**
 * Says `text` into the sink, as a user would into the microphone: espeak-ng
 * (US English unless `voice`), 16 kHz, padded with silence, played by paplay.
 */
export async function sayIntoSink(server: PulseServer, dir: string, text: string, options: { voice?: string; padBefore: number; padAfter: number }): Promise<void> {
  const raw = join(dir, 'say22.wav');
  const wav = join(dir, 'say.wav');
  await run('espeak-ng', [...(options.voice ? ['-v', options.voice] : []), '-w', raw, text]);
  await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav, 'pad', String(options.padBefore), String(options.padAfter)]);
  await run('paplay', [wav], { env: { ...process.env, ...server.env } });
}

/**
 * Inside a suite: points this process's PortAudio at the private PulseAudio
 * before its tests and stops the server after them; returns the server.
 */
export function usePulseInSuite(pulse: PulseStart): () => PulseServer {
  let server: PulseServer | undefined;
  let restoreEnv: (() => void) | undefined;
  beforeAll(() => {
    if (!pulse.ok) throw new Error(`PulseAudio did not start: ${pulse.reason}`);
    server = pulse.server;
    restoreEnv = server.useIn(process.env);
  });
  afterAll(async () => {
    restoreEnv?.();
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('the PulseAudio server is only there inside the suite');
    return server;
  };
}

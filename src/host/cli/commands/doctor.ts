import { parseArgs } from 'node:util';
import { configDir, dataDir, loadConfig } from '../../../config/index.js';
import { runChecks, type CheckResult } from '../../../doctor/index.js';
import type { CliCommand } from '../command.js';

export const doctorCommand: CliCommand = {
  name: 'doctor',
  usage: 'desktop-assistant doctor [--json] [--no-sound] [--config-dir DIR]',
  summary: 'check every configured dependency (LLM, STT, TTS, VAD, audio, Chromium, FAISS, data folder) and print the fix for each failure',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' }, json: { type: 'boolean' }, 'no-sound': { type: 'boolean' } } });
    const config = await loadConfig(configDir(values['config-dir'], io.env));
    const results = await runChecks({ config, dataDir: dataDir(io.env), env: io.env, voice: config.voice.enabled !== false, sound: values['no-sound'] !== true });
    if (values.json) io.stdout.write(`${JSON.stringify(results)}\n`);
    else io.stdout.write(formatResults(results));
    return results.every((r) => r.ok) ? 0 : 1;
  },
};

export function formatResults(results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.map((r) => {
    const mark = r.skipped ? 'skip' : r.ok ? 'ok  ' : 'FAIL';
    const line = `${mark}  ${r.name.padEnd(width)}  ${r.detail}`;
    return r.fix === undefined ? line : `${line}\n      fix: ${r.fix}`;
  });
  const failures = results.filter((r) => !r.ok).length;
  return `${lines.join('\n')}\n${failures === 0 ? 'everything configured is in place' : `${failures} problem${failures === 1 ? '' : 's'} found`}\n`;
}

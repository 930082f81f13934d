/**
 * `desktop-assistant chat --voice` for real: a private PulseAudio null sink
 * is the microphone and the speakers; Enter on an empty line starts a
 * recording, a spoken command is played into the sink, the VAD ends it, the
 * reply is printed and spoken. Skipped, with the reason, where PulseAudio
 * or naudiodon cannot run.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { CLI } from '../helpers/paths.js';
import { startPulseForTests } from '../helpers/pulse.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);

const { pulse, skipReason } = await startPulseForTests('chat --voice test');

afterAll(async () => {
  if (pulse.ok) await pulse.server.stop();
});

describe.skipIf(skipReason !== undefined)('desktop-assistant chat --voice', () => {
  it('Enter records a spoken question, which is printed and answered aloud and on screen', async () => {
    if (!pulse.ok) throw new Error('unreachable');
    const home = await makeTempDir('da-chat-voice-');
    const llm = await startScriptedLlmServer();
    try {
      const grammar = await home.write('config/commands.jsgf', '#JSGF V1.0;\ngrammar commands;\npublic <command> = turn on the light | what time is it;\n');
      await home.write('config/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n`);
      llm.enqueue({ text: 'The light is on.' });
      const raw = join(home.path, 'q22.wav');
      const question = join(home.path, 'question.wav');
      await run('espeak-ng', ['-w', raw, 'turn on the light']);
      await run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', question, 'pad', '0.3', '1.2']);

      const env = { ...process.env, ...pulse.server.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
      const child = spawn(process.execPath, [CLI, 'chat', '--voice', '--config-dir', join(home.path, 'config')], { env, cwd: home.path });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.resume();
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

      await waitFor(() => (stdout.includes('you> ') ? true : undefined), 'the prompt', 20_000);
      child.stdin.write('\n');
      await waitFor(() => (stdout.includes('(listening)') ? true : undefined), 'the recording to start', 5_000);
      await run('paplay', [question], { env: { ...process.env, ...pulse.server.env } });
      await waitFor(() => (stdout.includes('assistant> The light is on.') ? true : undefined), 'the reply', 20_000);
      expect(stdout).toContain('you (spoken)> turn on the light');
      expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'turn on the light' });
      child.stdin.end('/quit\n');
      expect(await exited).toBe(0);
    } finally {
      await llm.close();
      await home.remove();
    }
  }, 60_000);
});

import { parseArgs } from 'node:util';
import { AppError, isAppError } from '../../../errors/index.js';
import type { StateBody } from '../../http/index.js';
import type { CliCommand } from '../command.js';
import { parsePortOption, UsageError } from '../command.js';
import type { DaemonClient } from '../daemon-client.js';

const ACTIONS = ['start', 'stop', 'toggle'] as const;
type Action = (typeof ACTIONS)[number];

export const listenCommand: CliCommand = {
  name: 'listen',
  usage: 'desktop-assistant listen [start|stop|toggle] [--config-dir DIR] [--port N]',
  summary: "push to talk: start (the default), stop or toggle the running daemon's recording, for a desktop shortcut",
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'config-dir': { type: 'string' }, port: { type: 'string' } },
    });
    if (positionals.length > 1) throw new UsageError(`one action at a time, not ${positionals.join(' ')}`);
    const action = positionals[0] ?? 'start';
    if (!isAction(action)) throw new UsageError(`the action is start, stop or toggle, not ${action}`);
    // Loaded here: main.ts imports every command, and the HTTP module is not small.
    const { daemonClient } = await import('../daemon-client.js');
    const client = await daemonClient({ configDir: values['config-dir'], port: parsePortOption(values.port), env: io.env });
    try {
      io.stdout.write(`${await act(client, action)}\n`);
    } catch (error) {
      throw explained(error, client.url);
    }
    return 0;
  },
};

function isAction(value: string): value is Action {
  return (ACTIONS as readonly string[]).includes(value);
}

/** Does the action; resolves to the line to print. */
async function act(client: DaemonClient, action: Action): Promise<string> {
  if (action === 'toggle') {
    const state = await client.get<StateBody>('/state');
    // Without the voice this is a start, so the daemon's own VOICE_DISABLED, with its reason, is what is said.
    return act(client, state.voice.listening ? 'stop' : 'start');
  }
  if (action === 'start') {
    await client.post<{ listening: boolean }>('/listen/start');
    return 'listening';
  }
  const stopped = await client.post<{ stopped: boolean; listening: boolean }>('/listen/stop');
  return stopped.stopped ? 'stopped' : 'not listening';
}

/** The voice's refusals, said for someone who pressed a key: the daemon's reason, then what to do. */
function explained(error: unknown, url: string): unknown {
  if (isAppError(error, 'VOICE_DISABLED')) {
    const daemonMessage = typeof error.details.message === 'string' ? error.details.message : undefined;
    return new AppError(
      'VOICE_DISABLED',
      `the daemon at ${url} runs without the voice (VOICE_DISABLED): ${daemonMessage ?? error.message}\n` +
        'to talk to it: restart the daemon without --no-voice and with the voice enabled in config.toml ([voice] enabled); `desktop-assistant doctor` checks what the voice needs',
      { cause: error },
    );
  }
  if (isAppError(error, 'VOICE_BUSY')) {
    return new AppError('VOICE_BUSY', 'the voice is busy (VOICE_BUSY): it is already listening or still answering; try again when it is idle', {
      cause: error,
      retryable: true,
    });
  }
  return error;
}

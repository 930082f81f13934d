import { parseArgs } from 'node:util';
import { isLogFormat, isLogLevel, LOG_FORMATS, LOG_LEVELS, setLogOutput, type LogOutput } from '../../../log/index.js';
import type { StartVoice } from '../../daemon.js';
import type { CliCommand, CliIo } from '../command.js';
import { parsePortOption, UsageError } from '../command.js';

export const runCommand: CliCommand = {
  name: 'run',
  usage: 'desktop-assistant run [--config-dir DIR] [--no-voice] [--port N] [--log-format json|text] [--log-level LEVEL] | run --input IN.wav --output OUT.wav',
  summary: 'the daemon: MCP hub, HTTP API, web page and voice; with --input/--output, the voice turns of a WAV file, headless',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        'config-dir': { type: 'string' },
        'no-voice': { type: 'boolean' },
        port: { type: 'string' },
        input: { type: 'string' },
        output: { type: 'string' },
        'log-format': { type: 'string' },
        'log-level': { type: 'string' },
      },
    });
    setLogOutput(logOutputOption(values['log-format'], values['log-level']));
    if (values.input !== undefined || values.output !== undefined) {
      if (!values.input || !values.output) throw new UsageError('--input and --output go together: a WAV to listen to and a WAV for the replies');
      return answerFile(values.input, values.output, values['config-dir'], io);
    }
    const port = parsePortOption(values.port, 0);
    const { startDaemon } = await import('../../daemon.js');
    const { reportToTerminal } = await import('../../terminal/index.js');
    const daemon = await startDaemon({ configDir: values['config-dir'], env: io.env, voice: !values['no-voice'], port, startVoice: startVoice(io.env), recordExits: true });
    const stopReporting = reportToTerminal(daemon.host.bus, io.stderr);
    const tools = daemon.host.router.offered().map((t) => t.name);
    // Listening for the stop before saying it runs: whoever reads that line may send it at once.
    const stopped = new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    io.stdout.write(
      `desktop-assistant is running at ${daemon.url}/ (the token is in ${daemon.tokenFile}; \`desktop-assistant token\` prints it)\n` +
        `LLM: ${daemon.host.config.llm}; tools: ${tools.length > 0 ? tools.join(', ') : 'none'}\n` +
        `voice: ${daemon.deps.voiceOff === undefined ? `on (${daemon.deps.voice?.mode ?? 'turn_based'})` : `off: ${daemon.deps.voiceOff}`}\n`,
    );
    const signal = await stopped;
    io.stdout.write('stopping\n');
    stopReporting();
    await daemon.close(`stopped by ${signal}`);
    return 0;
  },
};

/**
 * `--log-format` / `--log-level`: on a terminal the log shows warnings and
 * errors as text among the human lines; on a pipe or in the journal, every
 * level as JSON (src/log says why).
 */
function logOutputOption(format: string | undefined, level: string | undefined): LogOutput {
  if (format !== undefined && !isLogFormat(format)) throw new UsageError(`--log-format must be one of ${LOG_FORMATS.join(', ')}, not ${format}`);
  if (level !== undefined && !isLogLevel(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not ${level}`);
  return { format: format ?? 'auto', ...(level !== undefined ? { level } : {}) };
}

/** One headless run over a WAV: each utterance answered into the output WAV; replies on stdout, events on stderr. */
async function answerFile(input: string, output: string, configDir: string | undefined, io: CliIo): Promise<number> {
  const { startHost } = await import('../../runtime.js');
  const { reportToTerminal } = await import('../../terminal/index.js');
  const { ActivityTracker } = await import('../../conversation/index.js');
  const { answerWavFile } = await import('../../../voice/index.js');
  const host = await startHost({ configDir, env: io.env });
  const activity = new ActivityTracker(host.bus);
  const stopReporting = reportToTerminal(host.bus, io.stderr);
  try {
    const results = await answerWavFile({ config: host.config, bus: host.bus, conversation: host.newConversation(), input, output });
    for (const result of results) {
      if (result.outcome) io.stdout.write(`${result.outcome.reply}\n`);
    }
    const answered = results.filter((r) => r.outcome?.status === 'ok').length;
    io.stderr.write(`${results.length} utterance${results.length === 1 ? '' : 's'} heard, ${answered} answered; replies in ${output}\n`);
    return answered > 0 ? 0 : 1;
  } finally {
    stopReporting();
    activity.close();
    await host.close();
  }
}

/**
 * The daemon's voice, in the mode of `mode` / OWNER_ASSISTANT_MODE: turn-based
 * (the configured devices and engines, started by the microphone switch, the
 * HTTP API and keys) or full duplex (always listening, echo-cancelled, barge-in).
 */
const startVoice =
  (env: NodeJS.ProcessEnv): StartVoice =>
  async (host, conversation, confirmations) => {
    const { assistantMode } = await import('../../../config/index.js');
    if (assistantMode(host.config, env) === 'full_duplex_agent') {
      const { startLiveDuplex } = await import('../../../voice/index.js');
      const duplex = await startLiveDuplex({ config: host.config, bus: host.bus, conversation, confirmation: confirmations });
      return { control: duplex.control, reportsActivity: true, close: duplex.close };
    }
    const { micSwitchTrigger, startLiveVoice } = await import('../../../voice/index.js');
    const live = await startLiveVoice({
      config: host.config,
      bus: host.bus,
      conversation,
      startTrigger: async (service) =>
        micSwitchTrigger(host.config.card, service, {
          onError: (event) => host.bus.emit({ type: 'error', stage: 'voice', code: 'MIC_SWITCH_UNAVAILABLE', message: event.message, recoverable: true, atMs: Date.now() }),
        }),
    });
    return { control: live.service, close: live.close };
  };

import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../command.js';

const PROMPT = 'you> ';
/** A spoken question longer than this is cut (the VAD normally ends it at the first pause). */
const MAX_RECORDING_MS = 30_000;

export const chatCommand: CliCommand = {
  name: 'chat',
  usage: 'desktop-assistant chat [--voice] [--config-dir DIR]',
  summary: 'a conversation in the terminal (Ctrl-C stops a reply, Ctrl-D or /quit leaves); --voice: Enter on an empty line records a spoken question, replies are spoken',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { 'config-dir': { type: 'string' }, voice: { type: 'boolean' } } });
    const { startHost } = await import('../../runtime.js');
    const { LineInput, reportToTerminal, terminalConfirmation } = await import('../../terminal/index.js');
    const host = await startHost({ configDir: values['config-dir'], env: io.env });
    const input = new LineInput(io.stdin, io.stdout);
    const stopReporting = reportToTerminal(host.bus, io.stderr);
    const conversation = host.newConversation();
    const voice = values.voice ? await startVoiceFor(host, conversation, io).catch(async (error: unknown) => {
      stopReporting();
      input.close();
      await host.close();
      throw error;
    }) : undefined;
    const confirmation = terminalConfirmation(input, io.stdout);
    let current: AbortController | undefined;
    const onInterrupt = (): void => {
      if (current) current.abort();
      else input.close();
    };
    process.on('SIGINT', onInterrupt);
    const offered = host.router.offered().map((t) => t.name);
    io.stdout.write(`desktop-assistant chat: ${host.config.llm}, tools: ${offered.length > 0 ? offered.join(', ') : 'none'}\n`);
    try {
      for (;;) {
        const line = await input.next(PROMPT);
        if (line === undefined || /^\/(quit|exit)$/.test(line.trim())) break;
        if (!line.trim()) {
          if (voice) await askAloud(voice.service, io);
          continue;
        }
        current = new AbortController();
        io.stdout.write('assistant> ');
        const outcome = await conversation.turn(line, {
          entry: 'text',
          confirmation,
          signal: current.signal,
          onSentence: (sentence) => io.stdout.write(`${sentence} `),
        });
        current = undefined;
        io.stdout.write('\n');
        if (outcome.status === 'cancelled') io.stdout.write('(stopped)\n');
        else if (outcome.error) io.stdout.write(`(${outcome.error.message})\n`);
      }
      return 0;
    } finally {
      process.off('SIGINT', onInterrupt);
      stopReporting();
      input.close();
      await voice?.close();
      await host.close();
    }
  },
};

type LiveVoice = import('../../../voice/index.js').LiveVoice;

async function startVoiceFor(host: Awaited<ReturnType<typeof import('../../runtime.js').startHost>>, conversation: import('../../conversation/index.js').Conversation, io: CliIo): Promise<LiveVoice> {
  const { startLiveVoice } = await import('../../../voice/index.js');
  const live = await startLiveVoice({ config: host.config, bus: host.bus, conversation });
  io.stdout.write('voice: press Enter on an empty line and speak; the recording ends when you stop\n');
  return live;
}

/** One spoken question from a key press: recorded until the end of speech, answered aloud and on screen. */
async function askAloud(service: LiveVoice['service'], io: CliIo): Promise<void> {
  if (!service.startListening('key')) return;
  io.stdout.write('(listening)\n');
  const cut = setTimeout(() => service.stopListening(), MAX_RECORDING_MS);
  try {
    const result = await service.lastTurn;
    if (result?.outcome) io.stdout.write(`you (spoken)> ${result.transcript.text}\nassistant> ${result.outcome.reply}\n`);
    else io.stdout.write(`(nothing to answer${result?.dropped ? `: ${result.dropped}` : ''})\n`);
  } finally {
    clearTimeout(cut);
  }
}

/**
 * The daemon's full-duplex voice for real: PortAudio devices on a private
 * PulseAudio null sink whose monitor is the microphone, so the assistant's
 * own voice truly comes back into what it hears. The WebRTC echo canceller,
 * Silero, pocketsphinx with a grammar, espeak-ng and the scripted LLM.
 * A question is answered without the assistant interrupting itself; a
 * command spoken over a long reply cuts it off. Skipped, with the reason,
 * where PulseAudio or naudiodon cannot run.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AssistantEvent } from '../../src/events/index.js';
import { startDaemon, type Daemon } from '../../src/host/daemon.js';
import { ttsFromConfig } from '../../src/voice/engines.js';
import { startLiveDuplex, type LiveDuplex } from '../../src/voice/live-duplex.js';
import { FRAME_MS, FRAME_SAMPLES, type Tts } from '../../src/voice/types.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { sayIntoSink, startPulseForTests, usePulseInSuite } from '../helpers/pulse.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';


const { pulse, skipReason } = await startPulseForTests('live full-duplex test');

const LONG_REPLY =
  'Here is a long answer about the weather. It will be sunny in the morning with a light wind. ' +
  'In the afternoon clouds come in from the west. In the evening there may be rain, so take an umbrella. ' +
  'Tomorrow will be cooler and windy all day.';
const FIRST_SENTENCE = 'Here is a long answer about the weather.';

/** The frames the voice has heard (its onHeard tap): how many had its own playback as their echo reference, and how many since the last such one. */
class HeardFrames {
  withPlayback = 0;
  sincePlayback = 0;
  readonly onHeard = (_frame: unknown, render: Int16Array | null): void => {
    if (render) {
      this.withPlayback += 1;
      this.sincePlayback = 0;
    } else this.sincePlayback += 1;
  };
}

/** How many frames `text` takes when the voice's TTS says it. */
async function framesOf(tts: Tts, text: string): Promise<number> {
  let samples = 0;
  for await (const chunk of tts.synthesize(text, { language: 'en' })) samples += chunk.length;
  return Math.ceil(samples / FRAME_SAMPLES);
}

describe.skipIf(skipReason !== undefined)('the full-duplex voice on a PulseAudio null sink', () => {
  const pulseServer = usePulseInSuite(pulse);
  let home: TempDir;
  let llm: ScriptedLlmServer;
  let daemon: Daemon | undefined;
  let duplex: LiveDuplex | undefined;
  let heard: HeardFrames;
  let firstSentenceFrames: number;

  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
    duplex = undefined;
    await llm?.close();
    await home?.remove();
  });

  async function start(): Promise<{ events: AssistantEvent[]; token: string }> {
    home = await makeTempDir('da-live-duplex-');
    llm = await startScriptedLlmServer({ split: { seed: 3, maxBytes: 23 } });
    heard = new HeardFrames();
    const grammar = await home.write('config/commands.jsgf', '#JSGF V1.0;\ngrammar commands;\npublic <command> = what is the weather | [please] stop talking [now];\n');
    await home.write('config/config.toml', `mode = "full_duplex_agent"\nllm = "${llm.url}"\n${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n`);
    daemon = await startDaemon({
      configDir: join(home.path, 'config'),
      env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') },
      port: 0,
      startVoice: async (host, conversation, confirmations) => {
        const tts = await ttsFromConfig(host.config);
        firstSentenceFrames = await framesOf(tts, FIRST_SENTENCE).finally(() => tts.close());
        const started = await startLiveDuplex({ config: host.config, bus: host.bus, conversation, confirmation: confirmations, onHeard: heard.onHeard });
        duplex = started;
        return { control: started.control, reportsActivity: true, close: started.close };
      },
    });
    const events: AssistantEvent[] = [];
    daemon.host.bus.subscribe((e) => events.push(e));
    return { events, token: daemon.deps.token };
  }

  const say = (text: string) => sayIntoSink(pulseServer(), home.path, text, { voice: 'en-us', padBefore: 0.2, padAfter: 0.2 });

  const states = (events: AssistantEvent[]) => events.filter((e) => e.type === 'state.changed').map((e) => (e as { state: string }).state);
  const transcripts = (events: AssistantEvent[]) => events.flatMap((e) => (e.type === 'voice.transcript' ? [`${e.final ? 'final' : 'partial'}: ${e.text}`] : []));

  it('hears a question with no trigger, answers it aloud, and does not take its own voice for the user', async () => {
    const { events, token } = await start();
    llm.enqueue({ text: 'It is sunny and warm today. Enjoy the afternoon outside.' });
    await say('what is the weather');
    await waitFor(() => (events.some((e) => e.type === 'voice.playback' && e.phase === 'ended') ? true : undefined), 'the reply to be played', 30_000);
    // The echo tail dies down before anything is judged: 1.2 s of audio heard after the voice's own echo tail (more than
    // the 1000 ms unfinished-sentence silence that ends an utterance the echo could have started), then any final transcript.
    await waitFor(() => (heard.sincePlayback >= 1200 / FRAME_MS ? true : undefined), '1.2 s of audio after the echo tail', 10_000);
    await duplex?.voice.settled();
    expect(events.filter((e) => e.type === 'voice.transcript' && e.final).map((e) => e.type === 'voice.transcript' && e.text)).toEqual(['what is the weather']);
    expect(states(events)).toEqual(['listening', 'thinking', 'speaking', 'idle']);
    expect(events.some((e) => e.type === 'voice.interrupted')).toBe(false);
    expect(daemon?.host && llm.requests).toHaveLength(1);
    const state = await (await fetch(`${daemon?.url}/state`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(state).toMatchObject({ mode: 'full_duplex_agent', voice: { enabled: true, listening: true }, state: 'idle' });
    // Measured at start-up ([duplex] calibrate): the loopback returns the chirp at full level, with no noise.
    expect(state.voice.room).toMatchObject({ heard: true, problems: [] });
    expect(state.voice.room.delayMs).toBeGreaterThan(0);
    expect(state.voice.room.delayMs).toBeLessThan(500);
    expect(Math.abs(state.voice.room.echoDb)).toBeLessThan(3);
  }, 60_000);

  it('stops talking when the user talks over it, and answers what was said', async () => {
    const { events } = await start();
    llm.enqueue({ text: LONG_REPLY }, { text: 'Okay.' });
    await say('what is the weather');
    await waitFor(() => (events.some((e) => e.type === 'voice.playback' && e.phase === 'started') ? true : undefined), 'the reply to start', 30_000);
    // Into the second sentence: the first was heard whole (half a second more than it lasts, counted in frames heard over playback).
    await waitFor(() => (heard.withPlayback >= firstSentenceFrames + 500 / FRAME_MS ? true : undefined), 'the second sentence to play', 30_000);
    // The first syllable over the assistant's voice can be lost to echo suppression before playback stops: the command leads with a word it can spare.
    // Words said over the reply are not always recognized yet (1 run in 5 to 10 here heard "what is the" and ended with no words: the
    // barge-in bench's word error figures, issue 14); a user who was not understood says it again, at most twice.
    const answered = () => (events.some((e) => e.type === 'turn.ended' && e.reply === 'Okay.') ? true : undefined);
    for (let attempt = 1; answered() === undefined; attempt++) {
      await say('please stop talking now');
      const heard = await waitFor(answered, 'the answer to the interruption', attempt < 3 ? 8000 : 30_000).catch((error: Error) => {
        if (attempt < 3) return undefined;
        throw new Error(`${error.message}; states ${states(events).join(' > ')}; transcripts ${JSON.stringify(transcripts(events))}`);
      });
      if (heard === undefined) console.warn(`not understood over the reply (attempt ${attempt}): ${JSON.stringify(transcripts(events).slice(-3))}; said again`);
    }
    const interrupted = events.find((e) => e.type === 'voice.interrupted');
    expect(interrupted).toBeDefined();
    // (After a command that was not understood the reply may have resumed, and is interrupted again.)
    expect(states(events).slice(0, 4)).toEqual(['listening', 'thinking', 'speaking', 'interrupted']);
    expect(states(events).slice(4)).toContain('listening');
    expect(llm.requests[1]?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^(please )?stop talking( now)?$/) });
    // Only what was played before the interruption went to history: not the whole reply.
    const history = (llm.requests[1]?.messages ?? []).filter((m) => m.role === 'assistant').map((m) => String(m.content));
    expect(history).toHaveLength(1);
    expect(history[0]!.length).toBeLessThan(LONG_REPLY.length);
    expect(LONG_REPLY.startsWith(history[0]!)).toBe(true);
    expect(history[0]!.startsWith(FIRST_SENTENCE)).toBe(true);
  }, 90_000);
});

/**
 * The daemon's voice for real: PortAudio devices on a private PulseAudio
 * null sink (its monitor is the microphone), POST /listen/start, a spoken
 * command played into the sink, the recording ended by the VAD, pocketsphinx
 * with a grammar, the scripted LLM and a tool, the reply spoken by
 * espeak-ng into the sink. Skipped, with the reason, where PulseAudio or
 * naudiodon cannot run.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AssistantEvent } from '../../src/events/index.js';
import { startDaemon, type Daemon } from '../../src/host/daemon.js';
import { PortAudioInput } from '../../src/voice/devices/index.js';
import { startLiveVoice } from '../../src/voice/live-voice.js';
import { FRAME_MS, type AudioInput } from '../../src/voice/types.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { ONLY_TOOL_FILES } from '../helpers/config-snippets.js';
import { sayIntoSink, startPulseForTests, usePulseInSuite } from '../helpers/pulse.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';


const { pulse, skipReason } = await startPulseForTests('live voice test');

/** The device's microphone, counting the frames the voice reads from it: a test waits on audio recorded, not on the clock. */
function countingMicrophone(device: string): { input: AudioInput; framesRead: () => number } {
  const input = PortAudioInput.open({ device });
  let read = 0;
  return {
    input: {
      name: input.name,
      async *frames(options) {
        for await (const frame of input.frames(options)) {
          read += 1;
          yield frame;
        }
      },
      close: () => input.close(),
    },
    framesRead: () => read,
  };
}

describe.skipIf(skipReason !== undefined)('the daemon’s voice on a PulseAudio null sink', () => {
  const pulseServer = usePulseInSuite(pulse);
  let home: TempDir;
  let llm: ScriptedLlmServer;
  let daemon: Daemon | undefined;

  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
    await llm?.close();
    await home?.remove();
  });

  /** With `microphone`, the voice reads that input instead of its own PortAudio one. */
  async function startWith(
    grammarPhrases: string,
    tools: Record<string, string>,
    microphone?: (device: string) => AudioInput,
  ): Promise<{ events: AssistantEvent[]; token: string }> {
    home = await makeTempDir('da-live-voice-');
    llm = await startScriptedLlmServer({ split: { seed: 2, maxBytes: 17 } });
    const grammar = await home.write('config/commands.jsgf', `#JSGF V1.0;\ngrammar commands;\npublic <command> = ${grammarPhrases};\n`);
    await home.write('config/config.toml', `llm = "${llm.url}"\n${ONLY_TOOL_FILES}[stt]\ngrammar = "${grammar}"\n`);
    for (const [name, toml] of Object.entries(tools)) await home.write(`config/tools/${name}.toml`, toml);
    daemon = await startDaemon({
      configDir: join(home.path, 'config'),
      env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') },
      port: 0,
      startVoice: async (host, conversation) => {
        const input = microphone?.(host.config.audio.input);
        const live = await startLiveVoice({ config: host.config, bus: host.bus, conversation, ...(input ? { input } : {}) });
        return { control: live.service, close: live.close };
      },
    });
    const events: AssistantEvent[] = [];
    daemon.host.bus.subscribe((e) => events.push(e));
    return { events, token: daemon.deps.token };
  }

  const say = (text: string) => sayIntoSink(pulseServer(), home.path, text, { padBefore: 0.3, padAfter: 1.2 });

  async function listen(token: string): Promise<void> {
    const started = await fetch(`${daemon?.url}/listen/start`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await started.json()).toEqual({ listening: true });
  }

  it('a write tool is asked about aloud, and a spoken yes lets it run', async () => {
    const { events, token } = await startWith('write a note | yes | no', {
      note: 'description = "Write a note"\ncommand = ["echo", "noted"]\nrisk = "write"\n',
    });
    llm.enqueue({ toolCalls: [{ name: 'note', arguments: '{}' }] }, { text: 'Done, the note is written.' });
    await listen(token);
    await say('write a note');
    // The question is played, then the voice listens for the answer.
    await waitFor(() => (events.some((e) => e.type === 'voice.listening' && e.trigger === 'answer') ? true : undefined), 'the spoken question', 20_000);
    await say('yes');
    await waitFor(() => (events.some((e) => e.type === 'voice.playback' && e.phase === 'ended') ? true : undefined), 'the reply', 20_000);
    expect(daemon?.host.audit.recent(1)[0]).toMatchObject({ tool: 'note', entry: 'voice', decision: 'confirm', decidedBy: 'user', status: 'ok' });
    expect(events.some((e) => e.type === 'turn.ended' && e.reply === 'Done, the note is written.')).toBe(true);
  }, 60_000);

  it('POST /listen/start, a spoken command, the tool, the spoken reply: listening, thinking, tool_running, speaking, idle', async () => {
    const { events, token } = await startWith('what time is it | turn on the light', {
      now: 'description = "The time"\ncommand = ["echo", "15:30"]\nannounce.en = ["One moment."]\n',
    });
    llm.enqueue({ toolCalls: [{ name: 'now', arguments: '{}' }] }, { text: 'It is half past three.' });
    await listen(token);
    // The command, spoken into the sink: the voice hears it from the monitor.
    await say('what time is it');

    await waitFor(() => (events.some((e) => e.type === 'voice.playback' && e.phase === 'ended') ? true : undefined), 'the reply to be played', 20_000);
    const heard = events.find((e) => e.type === 'voice.transcript' && e.final);
    expect(heard).toMatchObject({ text: 'what time is it' });
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'what time is it' });
    const states = events.filter((e) => e.type === 'state.changed').map((e) => (e as { state: string }).state);
    expect(states.filter((s, i) => states.indexOf(s) === i)).toEqual(['listening', 'thinking', 'tool_running', 'speaking', 'idle']);
    expect(states.at(-1)).toBe('idle');
    expect(daemon?.host.audit.recent(1)[0]).toMatchObject({ tool: 'now', entry: 'voice', status: 'ok' });
    const state = await (await fetch(`${daemon?.url}/state`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(state).toMatchObject({ mode: 'turn_based', voice: { enabled: true, listening: false }, state: 'idle' });
  }, 40_000);

  it('POST /listen/stop during a recording with no speech says it stopped and is not listening', async () => {
    let mic: ReturnType<typeof countingMicrophone> | undefined;
    const { token } = await startWith('what time is it', {}, (device) => (mic = countingMicrophone(device)).input);
    const before = mic!.framesRead();
    await listen(token);
    // Under way: the recording has read 300 ms of (silent) audio.
    await waitFor(() => (mic!.framesRead() - before >= 300 / FRAME_MS ? true : undefined), 'the recording to take 300 ms of audio');
    const stopped = await fetch(`${daemon?.url}/listen/stop`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(await stopped.json()).toEqual({ stopped: true, listening: false });
  }, 20_000);
});

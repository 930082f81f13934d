/**
 * End-to-end voice latency measured from outside the daemon: the real
 * `desktop-assistant run` on PulseAudio devices, a recorded question played
 * into its microphone in real time, its answer recorded from its speaker,
 * and the time from the question's end of speech to the answer's first
 * sound, per `[stt] engine`, in turn-based mode (POST /listen/start, the VAD
 * ends the recording) and in full duplex (always listening), each with two
 * scripted LLMs (bench/lib/scripted-llm.ts): `instant` (the reply at once:
 * the pipeline's own figure) and `realistic` (300 ms to the first piece, 25
 * ms per piece, about a 12B model on llama-server). Figures are named
 * `<profile>_<mode>_<engine>_...`.
 *
 * One clock: each daemon has a "room" (bench/room.ts), a stereo null sink
 * whose left channel is fed by the question and heard by the daemon's
 * microphone, and whose right channel is the daemon's speaker. One pacat
 * records the room's monitor, both channels in one stream: frame n of the
 * left and frame n of the right channel were rendered in the same pass of
 * the sink's clock, so end of speech and first sound are positions in one
 * recording and their difference needs no clock of this process or the
 * daemon's. (The daemon's own events are placed on that recording only
 * approximately, through the wall clock, for the breakdown.)
 *
 * Questions: the five cards clips and the five LibriVox clips (whole)
 * of Debian's pocketsphinx-testdata, each played twice: 20 per engine,
 * mode and profile, engines interleaved question by question, so load falls
 * on them alike. An engine whose config does not check or whose daemon does
 * not start is skipped, with the reason in the figures.
 *
 * Daemons: the resident `pocketsphinx` with today's defaults and with the
 * end of turn of before (`pocketsphinx_before`: VARIANTS), side by side, in
 * two modes with two profiles; TURN_DAEMON_ENGINES=pocketsphinx,pocketsphinx_continuous
 * compares the engines instead. Each daemon has its own
 * scripted LLM, which counts the requests it got, those the daemon aborted
 * and the pieces it had streamed to them; the daemon's events give the
 * end-of-turn rule that fired and preemptive generation's requests (sent
 * ahead, used, discarded, pieces wasted, discarded per 100 turns).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { configProblem, daemonEnv, startDaemonProcess, type DaemonProcess, type ReceivedEvent } from './lib/daemon-process.js';
import { loadClip } from '../test/support/echo-scenes.js';
import { startPulse, type PulseServer } from '../test/support/pulse-server.js';
import { addRoom, asoundrc, playInto, RoomRecorder, type Room } from './lib/room.js';
import { benchLlmProfiles, llmFigures, startBenchLlm, type BenchLlm, type LlmProfile } from './lib/scripted-llm.js';
import { CARDS_DIR, LIBRIVOX_DIR } from '../test/support/speech-clips.js';
import { round } from '../test/support/stats.js';
import { ANSWER_RMS, measure, noAnswerReason, trialFigures, turnEventFigures, type Trial } from './lib/turn-daemon-trials.js';

/**
 * The daemons measured side by side, each in its own room: an `[stt] engine`, with today's defaults,
 * or with `:before` the end of turn and answer of issue 24's start (no preemptive generation, the
 * fixed 500 ms silence, 40 ms queued ahead of the speaker), so the old and the new run in one run (TURN_DAEMON_ENGINES=a,b:before).
 * An engine the config does not know is skipped with the reason.
 */
const BEFORE = ['[turn]', 'preemptive = false', '[vad]', 'silence_ms = 500', 'sentence_end_silence_ms = 0', 'unfinished_silence_ms = 0'];
/** ... and the speaker's queue of before (4 chunks of 10 ms). */
const BEFORE_AUDIO = ['output_buffer_ms = 40'];
const VARIANTS = (process.env.TURN_DAEMON_ENGINES ?? 'pocketsphinx,pocketsphinx:before')
  .split(',')
  .map((e) => e.trim())
  .filter((e) => e !== '')
  .map((spec) => {
    const [engine = spec, variant] = spec.split(':');
    const before = variant === 'before';
    return { engine, name: variant ? `${engine}_${variant}` : engine, extra: before ? BEFORE : [], audio: before ? BEFORE_AUDIO : [] };
  });
type Variant = (typeof VARIANTS)[number];
const MODES = [
  { key: 'turn_based', mode: 'turn_based' },
  { key: 'full_duplex', mode: 'full_duplex_agent' },
] as const;
type Mode = (typeof MODES)[number];
const PLAYS = 2;
/** Questions per engine, mode and profile: every clip PLAYS times (TURN_DAEMON_QUESTIONS=N for a quick look; BENCHMARKS.md uses 20). */
const QUESTIONS = Number(process.env.TURN_DAEMON_QUESTIONS ?? 10 * PLAYS);
const CARDS = ['001', '002', '003', '004', '005'];
const LIBRIVOX = ['0870', '0880', '0890', '0920', '0930'];
/**
 * LibriVox clips run 3-7 s. They were cut at 4 s (as the partials bench does) until the end of
 * turn began to read the words: a clip cut mid-word is not a question anybody finishes.
 * TURN_DAEMON_CLIP_MAX_MS=4000 cuts them again.
 */
const CLIP_MAX_MS = Number(process.env.TURN_DAEMON_CLIP_MAX_MS ?? Number.POSITIVE_INFINITY);
/** Two short sentences: with the instant profile the LLM adds nothing, the pipeline is what is measured. */
const REPLY = 'It is sunny in Rome. About twenty degrees.';
/** After the question has played, an answer that has not begun by then is a missing one. */
const ANSWER_TIMEOUT_MS = 10_000;
/** A dropped transcript with no turn for this long: no answer is coming. */
const GIVE_UP_AFTER_DROP_MS = 1500;
/** Turn-based: from POST /listen/start to the question, so the capture stream is open (a new PortAudio stream per recording). */
const LISTEN_SETTLE_MS = 200;
/** The speaker channel silent this long (10 ms frames) before the next question to the same daemon. */
const QUIET_FRAMES = 30;
const READY_TIMEOUT_MS = 20_000;

export const turnDaemon: Benchmark = {
  name: 'turn-daemon',
  description: 'end of speech to the first answer sound of the real daemon on PulseAudio devices, 20 recorded questions per STT engine, turn-based and full duplex, instant and realistic LLM',
  run: runTurnDaemon,
};

interface Question {
  name: string;
  /** 16 kHz mono s16le, for pacat. */
  rawFile: string;
}

interface Slot {
  engine: string;
  prefix: string;
  mode: Mode;
  llm: BenchLlm;
  room: Room;
  recorder: RoomRecorder;
  daemon: DaemonProcess;
  trials: Trial[];
}

async function runTurnDaemon(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const began = Date.now();
  const figures: Figures = { load_average_1m_start: round(loadavg()[0]!, 2) };
  const pulse = await startPulse();
  if (!pulse.ok) return { ...figures, skipped: pulse.reason };
  const root = await mkdtemp(join(tmpdir(), 'bench-turn-daemon-'));
  const recorders: RoomRecorder[] = [];
  const profiles = benchLlmProfiles();
  try {
    const questions = await loadQuestions(root);
    Object.assign(figures, {
      questions_per_engine_mode_and_profile: Math.min(QUESTIONS, questions.length * PLAYS),
      reply: REPLY,
      engines: VARIANTS.map((v) => v.name).join(', '),
      llm_profiles: profiles.map((p) => `${p.name} (first piece ${p.firstPieceMs} ms, then ${p.pieceMs} ms each)`).join(', '),
    });
    const rooms: Room[] = [];
    for (let i = 0; i < VARIANTS.length; i++) rooms.push(await addRoom(pulse.server, `da_room${i}`));
    // PortAudio finds the rooms' devices by name through this ALSA config (HOME is the daemons' own).
    const home = join(root, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.asoundrc'), asoundrc(rooms));
    for (const room of rooms) recorders.push(await RoomRecorder.start(pulse.server, room));
    for (const mode of MODES) for (const profile of profiles) {
      options.signal?.throwIfAborted();
      const slots: Slot[] = [];
      try {
        // allSettled: a slot that failed must not keep the others' daemons from being stopped.
        const starts = await Promise.allSettled(VARIANTS.map((variant, i) => startSlot(variant, mode, profile, rooms[i]!, recorders[i]!, root, home, pulse.server)));
        for (const start of starts) if (start.status === 'fulfilled' && !('skipped' in start.value)) slots.push(start.value);
        for (const start of starts) {
          if (start.status === 'rejected') throw start.reason;
          if ('skipped' in start.value) {
            figures[`${start.value.prefix}_skipped`] = start.value.skipped;
            process.stderr.write(`  ${start.value.prefix}: skipped: ${start.value.skipped}\n`);
          }
        }
        const phaseStart = Date.now();
        if (slots.length > 0) await runPhase(slots, questions, pulse.server, options.signal);
        process.stderr.write(`  ${profile.name} ${mode.key}: ${Math.round((Date.now() - phaseStart) / 1000)} s\n`);
      } finally {
        await Promise.allSettled(slots.map((s) => s.daemon.stop()));
        await Promise.allSettled(slots.map((s) => s.llm.close()));
      }
      for (const slot of slots) {
        const events = slot.daemon.events.slice(slot.trials[0]?.fromEvent ?? slot.daemon.events.length);
        const measured = slot.trials.map((t) => measure(t, slot.recorder, slot.daemon.events));
        Object.assign(figures, trialFigures(slot.prefix, slot.trials, measured, events), turnEventFigures(slot.prefix, events), llmFigures(slot.prefix, slot.llm.stats()));
        // TURN_DAEMON_EVENTS=folder keeps each daemon's events, to look at one turn's stages.
        if (process.env.TURN_DAEMON_EVENTS) await writeFile(join(process.env.TURN_DAEMON_EVENTS, `${slot.prefix}.json`), JSON.stringify(slot.daemon.events, null, 1));
        // Gaps the speaker played as silence (the daemon's audio_output_underflow log lines), over the whole phase.
        figures[`${slot.prefix}_output_underflows`] = slot.daemon.underflows;
      }
    }
  } finally {
    await Promise.allSettled(recorders.map((r) => r.stop()));
    await pulse.server.stop();
    await rm(root, { recursive: true, force: true });
  }
  return { ...figures, load_average_1m_end: round(loadavg()[0]!, 2), duration_s: round((Date.now() - began) / 1000, 1) };
}

async function loadQuestions(root: string): Promise<Question[]> {
  const clips = [
    ...CARDS.map((n) => ({ name: `cards ${n}`, path: join(CARDS_DIR, `${n}.wav`) })),
    ...LIBRIVOX.map((n) => ({ name: `librivox ${n}`, path: join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${n}.wav`) })),
  ];
  return Promise.all(
    clips.map(async ({ name, path }) => {
      const whole = await loadClip(path);
      const samples = Number.isFinite(CLIP_MAX_MS) ? whole.slice(0, (CLIP_MAX_MS * 16_000) / 1000) : whole;
      const rawFile = join(root, `${name.replace(' ', '-')}.raw`);
      await writeFile(rawFile, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
      return { name, rawFile };
    }),
  );
}

/** A config folder, a scripted LLM and a daemon for one engine in one mode with one LLM profile, or why not. */
async function startSlot(variant: Variant, mode: Mode, profile: LlmProfile, room: Room, recorder: RoomRecorder, root: string, home: string, pulse: PulseServer): Promise<Slot | { prefix: string; skipped: string }> {
  const { engine } = variant;
  const prefix = `${profile.name}_${mode.key}_${variant.name}`;
  const dir = join(root, prefix);
  const llm = await startBenchLlm(REPLY, profile);
  let slot: Slot | undefined;
  try {
    const configDir = join(dir, 'config');
    await mkdir(join(configDir, 'tools'), { recursive: true });
    await mkdir(join(dir, 'runtime'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(configDir, 'config.toml'),
      [
        `mode = "${mode.mode}"`,
        `llm = "${llm.url}"`,
        '[stt]',
        `engine = "${engine}"`,
        '[tts]',
        'engine = "espeak"',
        '[audio]',
        `input = "${room.micSource}"`,
        `output = "${room.speakerSink}"`,
        ...variant.audio,
        '[http]',
        'port = 0',
        '[memory]',
        'enabled = false',
        '[adapters.shell_readonly]',
        'enabled = false',
        '[adapters.browser]',
        'enabled = false',
        ...variant.extra,
        '',
      ].join('\n'),
    );
    const env = daemonEnv({ ...pulse.env, HOME: home, XDG_RUNTIME_DIR: join(dir, 'runtime'), DESKTOP_ASSISTANT_DATA_DIR: join(dir, 'data') });
    const problem = await configProblem(configDir, env);
    if (problem) return { prefix, skipped: problem };
    const started = await startDaemonProcess(configDir, env);
    if (!started.ok) return { prefix, skipped: started.reason };
    slot = { engine, prefix, mode, llm, room, recorder, daemon: started.daemon, trials: [] };
    return slot;
  } finally {
    // The slot's owner closes its LLM; a slot that did not start has none.
    if (!slot) await llm.close();
  }
}

/**
 * Every question PLAYS times; per question each engine once, always in the
 * same order, so each daemon's question follows the other's (the other's
 * answer still playing): alike for both, and no daemon waits for its own
 * answer to end before its next question.
 */
async function runPhase(slots: Slot[], questions: readonly Question[], pulse: PulseServer, signal: AbortSignal | undefined): Promise<void> {
  const total = Math.min(QUESTIONS, questions.length * PLAYS);
  for (let n = 0; n < total; n++) {
    const question = questions[n % questions.length]!;
    for (const slot of slots) {
      signal?.throwIfAborted();
      const previous = slot.trials.at(-1);
      if (previous) previous.toEvent = slot.daemon.events.length;
      const trial = await ask(slot, question, pulse, signal);
      slot.trials.push(trial);
      const { latencyMs } = measure(trial, slot.recorder, slot.daemon.events);
      const heard = trial.soundFrame === undefined ? `no answer (${trial.why})` : `answer ${latencyMs === undefined ? '(question end not found)' : `${Math.round(latencyMs)} ms after the end of speech`}`;
      process.stderr.write(`  ${slot.prefix} ${n + 1}/${total} ${question.name}: ${heard}\n`);
    }
  }
}

/** One question to one daemon: wait for quiet, (turn-based) start a recording, play it, wait for the answer's first sound. */
async function ask(slot: Slot, question: Question, pulse: PulseServer, signal: AbortSignal | undefined): Promise<Trial> {
  const { daemon, recorder } = slot;
  if (!daemon.exited) await readyForQuestion(slot, signal);
  const fromEvent = daemon.events.length;
  const base = { clip: question.name, fromEvent };
  if (daemon.exited) return { ...base, fromFrame: recorder.frames, playedFrame: recorder.frames, why: `the daemon is gone (${daemon.exited})` };
  if (slot.mode.mode === 'turn_based') {
    const listening = await startListening(daemon, signal);
    if (!listening) return { ...base, fromFrame: recorder.frames, playedFrame: recorder.frames, why: 'POST /listen/start kept answering busy' };
    // Capped, not required: a missed voice.listening shows in the result's `why` (noAnswerReason).
    await until(() => daemon.events.slice(fromEvent).some((e) => e.type === 'voice.listening'), 2000, signal).catch(() => undefined);
    await sleep(LISTEN_SETTLE_MS);
  }
  const fromFrame = recorder.frames;
  await playInto(pulse, slot.room.questionSink, question.rawFile);
  const playedFrame = recorder.frames;
  const giveUp = (): boolean => droppedWithoutTurn(daemon.events.slice(fromEvent));
  const soundFrame = await recorder.waitForSpeaker(fromFrame, ANSWER_RMS, Date.now() + ANSWER_TIMEOUT_MS, giveUp, signal);
  if (soundFrame !== undefined) return { ...base, fromFrame, playedFrame, soundFrame };
  const why = noAnswerReason(daemon.events.slice(fromEvent));
  // A recording that never heard an end of speech still runs: end it, so the next question can start one.
  // Best effort: the answer missing is reported as `why`; a daemon that refuses this too fails the next question's start.
  if (slot.mode.mode === 'turn_based') await daemon.post('/listen/stop').catch(() => undefined);
  return { ...base, fromFrame, playedFrame, why };
}

function droppedWithoutTurn(events: readonly ReceivedEvent[]): boolean {
  const dropped = [...events].reverse().find((e) => e.type === 'voice.transcript' && e.final && e.dropped !== undefined);
  if (!dropped) return false;
  const turnAfter = events.some((e) => e.type === 'turn.started' && e.seq > dropped.seq);
  return !turnAfter && Date.now() - dropped.receivedAtMs > GIVE_UP_AFTER_DROP_MS;
}

/** The previous answer has ended and the daemon is idle (full duplex: idle or listening); else, after a while, its reply is cut off. */
async function readyForQuestion(slot: Slot, signal: AbortSignal | undefined): Promise<void> {
  const idle = slot.mode.mode === 'turn_based' ? ['idle'] : ['idle', 'listening'];
  const ready = (): boolean => slot.daemon.exited !== undefined || (idle.includes(slot.daemon.state) && slot.recorder.speakerQuiet(QUIET_FRAMES, ANSWER_RMS));
  try {
    await until(ready, READY_TIMEOUT_MS, signal);
  } catch {
    signal?.throwIfAborted();
    process.stderr.write(`  ${slot.prefix}: not idle after ${READY_TIMEOUT_MS / 1000} s (state ${slot.daemon.state}): POST /interrupt\n`);
    // Best effort: the next wait for idle says whether it helped.
    await slot.daemon.post('/interrupt').catch(() => undefined);
    await sleep(1000);
  }
}

/** POST /listen/start, again while the voice says it is busy (the previous turn finishing). */
async function startListening(daemon: DaemonProcess, signal: AbortSignal | undefined): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    const { status } = await daemon.post('/listen/start').catch(() => ({ status: 0 }));
    if (status === 200) return true;
    if (daemon.exited) return false;
    await sleep(100);
  }
  return false;
}

async function until(done: () => boolean, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    signal?.throwIfAborted();
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await sleep(10);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

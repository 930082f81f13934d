/**
 * Barge-in in a room: the whole full-duplex voice as the daemon runs it
 * (WebRTC APM with the double-talk path, Silero, the resident pocketsphinx
 * decoder, espeak-ng, the conversation with a scripted LLM) on the real
 * PortAudio devices of a private PulseAudio, whose echo room
 * (bench/echo-room.ts) carries the assistant's voice back into the
 * microphone: exactly (the loopback), or through a loudspeaker that
 * distorts a little, a reverberator (0.3 s, 0.6 s), a gain drawn from
 * 0.5-1.5 per reply and steady noise (a fan's, louder, in the `_fan`
 * rooms; music too in room_0.9s_music). One benchmark per room, each its
 * own row: `npm run bench -- barge-in` runs them all. In each room every
 * echo canceller (`[duplex] canceller`) runs in turn on a fresh PulseAudio
 * and host, with the same seed (the same gains, clips and delays), and the
 * figures are keyed `<canceller>.<figure>`; a table of the two side by side
 * goes to stderr at the room's end.
 *
 *   BARGE_IN_ROOMS=loopback,room_0.9s_music   the rooms (default: all, test/support/echo-room.ts)
 *   BARGE_IN_CANCELLERS=legacy,aec3           the cancellers, in that order (default: both)
 *
 * Per room: the first reply warms the echo canceller up (not a trial);
 * every clip said once to the idle assistant (the no-echo baseline of its
 * recognition); echo-only replies (any interruption, transcript or turn is
 * false); replies talked over 1-3 s in by a recorded clip (LibriVox, cards)
 * at a gain of 0.5-1.5: detections, latency from the clip's true voiced
 * onset at the microphone to playback stopped (the output queue cleared;
 * what the device already holds, about 75 ms here, still plays), word error
 * rate of the interrupting words against the baseline's, replies resumed
 * over the user, words heard that started no turn; and the canceller's
 * CPU per 10 ms frame on the room's own audio, timed after the room closed
 * (bench/lib/barge-in-canceller-cpu.ts). Skipped, with the reason, where
 * PulseAudio, PortAudio or the LADSPA plugins cannot run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../src/config/index.js';
import { messageOf } from '../src/errors/index.js';
import type { AssistantEvent } from '../src/events/index.js';
import { ECHO_CANCELLERS, type EchoCanceller } from '../src/voice/apm/index.js';
import { noConfirmationChannel } from '../src/host/router/index.js';
import { startHost } from '../src/host/runtime.js';
import { seededRandom } from '../test/support/seeded-random.js';
import { loadPortAudio, PortAudioInput } from '../src/voice/devices/index.js';
import { startLiveDuplex } from '../src/voice/live-duplex.js';
import { wordErrors } from '../test/support/wer.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { BargeInTrials, RecordingInput, type TalkOverResult } from './lib/barge-in-trials.js';
import { cancellerCpu, HeardFrames } from './lib/barge-in-canceller-cpu.js';
import { roomSummary } from './lib/barge-in-summary.js';
import { buildEchoRoom, ROOM_VARIANTS, type RoomVariant } from '../test/support/echo-room.js';
import { ASSISTANT_SENTENCES } from '../test/support/echo-scenes.js';
import { startPulse } from '../test/support/pulse-server.js';
import { MonitorRecording } from '../test/support/room-monitor.js';
import { startBenchLlm } from './lib/scripted-llm.js';
import { cardsClips, librivoxClips, type SpeechClip } from '../test/support/speech-clips.js';
import { RunRecording, type RecordedTrial } from './lib/run-recording.js';
import { percentile, round } from '../test/support/stats.js';

/** Trials of each kind per room: 50 (BARGE_IN_TRIALS=N for a quick look; the figures in BENCHMARKS.md use 50). */
const TRIALS = Number(process.env.BARGE_IN_TRIALS ?? 50);
const RATE = 16_000;
const REPLY = ASSISTANT_SENTENCES.slice(0, 3).join(' ');

/** BARGE_IN_ROOMS=a,b: those rooms only, by their names in ROOM_VARIANTS. */
const ROOMS: readonly RoomVariant[] = process.env.BARGE_IN_ROOMS
  ? process.env.BARGE_IN_ROOMS.split(',').map((name) => ROOM_VARIANTS.find((v) => v.name === name.trim()) ?? unknownChoice('BARGE_IN_ROOMS', 'room', name, ROOM_VARIANTS.map((v) => v.name)))
  : ROOM_VARIANTS;
/** BARGE_IN_CANCELLERS=a,b: the echo cancellers each room runs, in that order. */
const CANCELLERS: readonly EchoCanceller[] = (process.env.BARGE_IN_CANCELLERS ?? 'legacy,aec3')
  .split(',')
  .map((name) => ECHO_CANCELLERS.find((c) => c === name.trim()) ?? unknownChoice('BARGE_IN_CANCELLERS', 'echo canceller', name, ECHO_CANCELLERS));

function unknownChoice(env: string, what: string, name: string, known: readonly string[]): never {
  throw new Error(`${env}: no ${what} "${name}" (known: ${known.join(', ')})`);
}

/** One benchmark per room: barge-in-loopback, barge-in-room-0.3s, ..., barge-in-room-0.9s-music. */
export const bargeInRooms: readonly Benchmark[] = ROOMS.map((variant) => ({
  name: `barge-in-${variant.name.replaceAll('_', '-')}`,
  description: `full duplex in the ${variant.name} echo room with each echo canceller (${CANCELLERS.join(', ')}): false interruptions on ${TRIALS} echo-only replies; detections, onset-to-stop latency and word errors on ${TRIALS} replies talked over; the canceller's CPU per frame`,
  run: (options?: BenchmarkRunOptions) => runRoomPerCanceller(variant, options),
}));

/** The room once per canceller; figures keyed `<canceller>.<figure>`. Fails only if every canceller failed. */
async function runRoomPerCanceller(variant: RoomVariant, options: BenchmarkRunOptions = {}): Promise<Figures> {
  const figures: Figures = { room: variant.name, cancellers: CANCELLERS.join(','), trials_per_kind: TRIALS };
  const rows: Array<{ canceller: string; figures?: Figures; failed?: string }> = [];
  for (const canceller of CANCELLERS) {
    options.signal?.throwIfAborted();
    const startedMs = performance.now();
    try {
      const run = await runRoom(variant, canceller, options);
      if ('skipped' in run) return { skipped: run.skipped };
      const own: Figures = { ...run.figures, ...cancellerCpu(canceller, run.config, run.heard), minutes: round((performance.now() - startedMs) / 60_000, 1) };
      for (const [key, value] of Object.entries(own)) figures[`${canceller}.${key}`] = value;
      rows.push({ canceller, figures: own });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      figures[`${canceller}.failed`] = messageOf(error);
      rows.push({ canceller, failed: messageOf(error) });
      process.stderr.write(`  ${variant.name} with ${canceller}: failed: ${messageOf(error)}\n`);
    }
  }
  process.stderr.write(`${roomSummary(variant.name, rows)}\n`);
  if (rows.every((r) => r.failed !== undefined)) throw new Error(`every echo canceller failed in ${variant.name}: ${rows.map((r) => `${r.canceller}: ${r.failed}`).join('; ')}`);
  return figures;
}

type RoomRun = { figures: Figures; config: Config; heard: HeardFrames } | { skipped: string };

async function runRoom(variant: RoomVariant, canceller: EchoCanceller, options: BenchmarkRunOptions = {}): Promise<RoomRun> {
  try {
    loadPortAudio();
  } catch (error) {
    return { skipped: `PortAudio (naudiodon) does not load: ${String(error)}` };
  }
  const pulse = await startPulse();
  if (!pulse.ok) return { skipped: pulse.reason };
  const root = await mkdtemp(join(tmpdir(), 'bench-barge-in-'));
  const cleanups: Array<() => Promise<unknown> | unknown> = [() => rm(root, { recursive: true, force: true }), () => pulse.server.stop()];
  try {
    const room = await buildEchoRoom(pulse.server, variant, root);
    cleanups.unshift(() => room.stop());
    const monitor = await MonitorRecording.start(pulse.server, room.monitor, RATE);
    cleanups.unshift(() => monitor.stop());
    const restoreEnv = pulse.server.useIn(process.env);
    cleanups.unshift(restoreEnv);
    const llm = await startBenchLlm(REPLY);
    cleanups.unshift(() => llm.close());
    const configDir = join(root, 'config');
    await mkdir(join(configDir, 'tools'), { recursive: true });
    await writeFile(
      join(configDir, 'config.toml'),
      `mode = "full_duplex_agent"\nllm = "${llm.url}"\n[duplex]\ncanceller = "${canceller}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n`,
    );
    const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') } });
    cleanups.unshift(() => host.close());
    const mic = new RecordingInput(PortAudioInput.open({ device: 'default' }));
    // BARGE_IN_DELAY_HINT=1: the echo cancellers get the start-up measurement's delay as their hint.
    const delayHintFromRoom = process.env.BARGE_IN_DELAY_HINT === '1';
    // BARGE_IN_RECORD=folder: every frame the detector got and each trial's span, for bench/barge-in-replay.ts.
    const recording = process.env.BARGE_IN_RECORD ? new RunRecording(process.env.BARGE_IN_RECORD, `${variant.name}.${canceller}`) : undefined;
    if (recording) cleanups.unshift(() => recording.close());
    // The frames the canceller's CPU is timed on afterwards (the echo-only replies').
    const heard = new HeardFrames();
    const duplex = await startLiveDuplex({
      config: host.config,
      bus: host.bus,
      conversation: host.newConversation(),
      confirmation: noConfirmationChannel('bench'),
      input: mic,
      delayHintFromRoom,
      // BARGE_IN_METER=whole_band: the double-talk path's meter before the band one (for side-by-side runs).
      ...(process.env.BARGE_IN_METER === 'whole_band' ? { doubleTalkMeter: 'whole_band' as const } : {}),
      onHeard: (frame, render) => {
        heard.heard(frame, render);
        recording?.heard(frame, render);
      },
    });
    const measuredRoom = duplex.control.room;
    process.stderr.write(`  ${variant.name} with ${canceller}, room at start-up: ${JSON.stringify(measuredRoom ?? 'not measured')}${delayHintFromRoom ? ' (delay hint given to the echo cancellers)' : ''}\n`);
    cleanups.unshift(() => duplex.close());
    const events: AssistantEvent[] = [];
    host.bus.subscribe((e) => events.push(e));
    // BARGE_IN_DEBUG=1: the voice's events as they come, for finding out why a trial went wrong.
    if (process.env.BARGE_IN_DEBUG) host.bus.subscribe((e) => e.type.startsWith('voice.') || e.type === 'state.changed' ? process.stderr.write(`    ${JSON.stringify(e)}\n`) : undefined);
    const trials = new BargeInTrials(events, duplex.voice, { pulse: pulse.server, room, monitor, mic, scratch: root }, options.signal);
    const next = seededRandom(9001);
    const echoGain = (): number => variant.echoGain[0] + next() * (variant.echoGain[1] - variant.echoGain[0]);
    const figures = await measure(`${variant.name} ${canceller}`, trials, () => room.setEchoGain(echoGain()), next, heard, recording);
    const roomFigures: Figures = {
      ...figures,
      delay_hint: delayHintFromRoom ? 'measured' : 'none',
      double_talk_meter: process.env.BARGE_IN_METER === 'whole_band' ? 'whole_band' : 'bands',
      ...(measuredRoom ? { room_heard: String(measuredRoom.heard), room_delay_ms: round(measuredRoom.delayMs ?? -1), room_echo_db: round(measuredRoom.echoDb ?? 0), room_noise_dbfs: round(measuredRoom.noiseDbfs) } : {}),
    };
    return { figures: roomFigures, config: host.config, heard };
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

async function measure(name: string, trials: BargeInTrials, newGain: () => Promise<void>, next: () => number, heard: HeardFrames, recording?: RunRecording): Promise<Figures> {
  const log = (line: string): boolean => process.stderr.write(`  ${name} ${line}\n`);
  let trialFromMs = performance.now();
  const recorded = (trial: Omit<RecordedTrial, 'fromMs' | 'toMs'>): void => {
    const toMs = performance.now();
    recording?.trial({ ...trial, fromMs: trialFromMs, toMs });
    trialFromMs = toMs;
  };
  const clips: SpeechClip[] = [...(await librivoxClips()), ...(await cardsClips())];
  // The echo canceller's first reply is its warm-up; not a trial.
  await newGain();
  await trials.reply();
  recorded({ kind: 'warm_up' });

  let baselineErrors = 0;
  let referenceWords = 0;
  for (const clip of clips) {
    const heard = await trials.sayToIdle(clip.samples, 1);
    const errors = wordErrors(clip.transcript, heard);
    baselineErrors += errors.errors;
    referenceWords += errors.referenceWords;
    log(`baseline ${clip.name}: "${heard}" (${errors.errors} errors)`);
    recorded({ kind: 'baseline', clip: clip.name });
  }

  let falseInterruptions = 0;
  let falseTranscripts = 0;
  let falseTurns = 0;
  let echoTrialsWithFalse = 0;
  heard.keeping = true;
  for (let i = 0; i < TRIALS; i++) {
    await newGain();
    const seen = await trials.reply();
    falseInterruptions += seen.interruptions;
    falseTranscripts += seen.transcripts;
    falseTurns += seen.falseTurns;
    if (seen.interruptions + seen.transcripts > 0) echoTrialsWithFalse++;
    log(`echo-only ${i + 1}/${TRIALS}: ${seen.interruptions} interruptions, ${seen.transcripts} transcripts${seen.texts.length > 0 ? ` ${JSON.stringify(seen.texts)}` : ''}, ${seen.falseTurns} turns`);
    recorded({ kind: 'echo_only', live: { interruptions: seen.interruptions, transcripts: seen.transcripts } });
  }
  heard.keeping = false;

  const results: TalkOverResult[] = [];
  let interruptingErrors = 0;
  let interruptingWords = 0;
  for (let i = 0; i < TRIALS; i++) {
    const clip = clips[i % clips.length]!;
    await newGain();
    const result = await trials.talkOver(clip.samples, 0.5 + next(), 1000 + next() * 2000);
    results.push(result);
    if (result.latencyMs !== undefined) {
      const errors = wordErrors(clip.transcript, result.heard);
      interruptingErrors += errors.errors;
      interruptingWords += errors.referenceWords;
    }
    const outcome = result.latencyMs === undefined ? `missed (${result.why})` : `${Math.round(result.latencyMs)} ms (${result.rule})`;
    log(`speech ${i + 1}/${TRIALS} ${clip.name}: ${outcome}, heard "${result.heard}"${result.resumedOverUser ? ', resumed over the user' : ''}${result.wordsLost ? ', words lost' : ''}`);
    recorded({
      kind: 'talk_over',
      clip: clip.name,
      ...(result.onsetAtMs !== undefined ? { onsetMs: result.onsetAtMs } : {}),
      live: { latencyMs: result.latencyMs, vadLatencyMs: result.vadLatencyMs, why: result.why, rule: result.rule },
    });
  }
  const caught = results.filter((r) => r.latencyMs !== undefined);
  const spoiled = results.filter((r) => r.falseBefore).length;
  const notFound = results.filter((r) => r.onsetNotFound).length;
  const latencies = caught.map((r) => r.latencyMs!);
  return {
    echo_trials: TRIALS,
    false_interruptions: falseInterruptions,
    false_transcripts: falseTranscripts,
    false_turns: falseTurns,
    echo_trials_with_false: echoTrialsWithFalse,
    speech_trials: TRIALS,
    speech_trials_spoiled_by_false_interruption: spoiled,
    speech_trials_clip_onset_not_found: notFound,
    detections: caught.length,
    detection_rate: round(caught.length / Math.max(1, TRIALS - spoiled - notFound), 3),
    detections_by_double_talk: caught.filter((r) => r.rule === 'double_talk').length,
    ...spread('latency', latencies),
    latency_max_ms: latencies.length > 0 ? round(Math.max(...latencies)) : Number.NaN,
    ...spread('vad_start_to_stop', caught.map((r) => r.vadLatencyMs!)),
    resumed_over_user: results.filter((r) => r.resumedOverUser).length,
    interrupting_words_lost: results.filter((r) => r.wordsLost).length,
    // NaN where nothing was caught: no interrupting words were recognized to score.
    wer_interrupting: interruptingWords > 0 ? round(interruptingErrors / interruptingWords, 3) : Number.NaN,
    wer_no_echo_baseline: round(baselineErrors / Math.max(1, referenceWords), 3),
    wer_gap: interruptingWords > 0 ? round(interruptingErrors / interruptingWords - baselineErrors / Math.max(1, referenceWords), 3) : Number.NaN,
  };
}

/** `<name>_p50_ms` and `<name>_p95_ms`; NaN when nothing was caught (a short run can catch nothing). */
function spread(name: string, samples: readonly number[]): Figures {
  const at = (p: number): number => (samples.length > 0 ? round(percentile(samples, p)) : Number.NaN);
  return { [`${name}_p50_ms`]: at(50), [`${name}_p95_ms`]: at(95) };
}

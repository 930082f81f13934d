/**
 * Barge-in through a real loopback: a private PulseAudio null sink is both
 * the speaker and (its monitor) the microphone, so the assistant's voice
 * truly comes back into what it hears, through PortAudio at 48 kHz, with
 * the device queues and resampling of a desktop. The full-duplex voice runs
 * as the daemon runs it (WebRTC APM with the double-talk path, Silero,
 * pocketsphinx, espeak-ng, the conversation with a scripted LLM).
 *
 * Echo-only trials: a question is asked (typed), the reply plays to its end;
 * any interruption or transcript is false. Speech trials: 1-3 s into the
 * reply a recorded clip (LibriVox, cards) is played into the sink, as a
 * user talking over the assistant; the latency runs from the clip's first
 * voiced audio as it reached the microphone (found in the captured signal by
 * cross-correlation) to the moment playback was stopped (the output queue
 * cleared; what the device already holds, about 75 ms on this path, still
 * plays). Skipped, with the reason, where PulseAudio or PortAudio cannot run.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AssistantEvent } from '../src/events/index.js';
import { noConfirmationChannel } from '../src/host/router/index.js';
import { startHost } from '../src/host/runtime.js';
import { seededRandom, writeWav } from '../src/voice/audio/index.js';
import { loadPortAudio, PortAudioInput } from '../src/voice/devices/index.js';
import { startLiveDuplex } from '../src/voice/live-duplex.js';
import type { AudioFrame, AudioInput } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './benchmark.js';
import { userClips } from './echo.js';
import { ASSISTANT_SENTENCES, voicedOnset } from './echo-scenes.js';
import { startPulse } from './pulse-server.js';
import { startBenchLlm } from './scripted-llm.js';
import { distribution, round } from './stats.js';

const run = promisify(execFile);
/** Trials of each kind: 50 (BARGE_IN_TRIALS=N for a quick look; the figures in BENCHMARKS.md use 50). */
const TRIALS = Number(process.env.BARGE_IN_TRIALS ?? 50);
const ECHO_TRIALS = TRIALS;
const SPEECH_TRIALS = TRIALS;
const RATE = 16_000;
/** A user clip is cut to this: long LibriVox readings would only lengthen the run. */
const CLIP_MAX_MS = 4000;
const REPLY = ASSISTANT_SENTENCES.slice(0, 3).join(' ');
const CLIP_NOT_FOUND = 'the clip was not found in the captured audio';

export const bargeIn: Benchmark = {
  name: 'barge-in',
  description: 'full duplex on a PulseAudio loopback: false interruptions on 50 echo-only replies, detections and speech-to-playback-stopped latency on 50 replies talked over',
  run: runBargeIn,
};

async function runBargeIn(options: BenchmarkRunOptions = {}): Promise<Figures> {
  try {
    loadPortAudio();
  } catch (error) {
    return { skipped: `PortAudio (naudiodon) does not load: ${String(error)}` };
  }
  const pulse = await startPulse();
  if (!pulse.ok) return { skipped: pulse.reason };
  const restoreEnv = pulse.server.useIn(process.env);
  const llm = await startBenchLlm(REPLY);
  const root = await mkdtemp(join(tmpdir(), 'bench-barge-in-'));
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  await writeFile(
    join(configDir, 'config.toml'),
    `mode = "full_duplex_agent"\nllm = "${llm.url}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n`,
  );
  const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') } });
  const mic = new RecordingInput(PortAudioInput.open({ device: 'default' }));
  const duplex = await startLiveDuplex({ config: host.config, bus: host.bus, conversation: host.newConversation(), confirmation: noConfirmationChannel('bench'), input: mic });
  const events: AssistantEvent[] = [];
  host.bus.subscribe((e) => events.push(e));
  const trial = new TrialRunner(events, duplex.voice, options.signal);
  try {
    // The echo canceller's first reply is its warm-up; not a trial.
    await trial.reply();
    let falseInterruptions = 0;
    let falseTranscripts = 0;
    let echoTrialsWithFalse = 0;
    for (let i = 0; i < ECHO_TRIALS; i++) {
      const seen = await trial.reply();
      falseInterruptions += seen.interruptions;
      falseTranscripts += seen.transcripts;
      if (seen.interruptions + seen.transcripts > 0) echoTrialsWithFalse++;
      process.stderr.write(`  echo-only ${i + 1}/${ECHO_TRIALS}: ${seen.interruptions} interruptions, ${seen.transcripts} transcripts\n`);
    }

    const clips = (await userClips()).map((c) => c.subarray(0, (CLIP_MAX_MS * RATE) / 1000));
    const next = seededRandom(9001);
    const latencies: number[] = [];
    const vadLatencies: number[] = [];
    let detected = 0;
    let spoiled = 0;
    let notFound = 0;
    for (let i = 0; i < SPEECH_TRIALS; i++) {
      const clip = clips[i % clips.length]!;
      const gain = 0.5 + next();
      const afterMs = 1000 + next() * 2000;
      const wav = join(root, `clip-${i}.wav`);
      await writeWav(wav, { samples: scaled(clip, gain), sampleRate: RATE, channels: 1 });
      const result = await trial.talkOver(wav, clip, gain, afterMs, mic, pulse.server.env);
      if (result.falseBefore) spoiled++;
      if (result.why === CLIP_NOT_FOUND) notFound++;
      if (result.latencyMs !== undefined) {
        detected++;
        latencies.push(result.latencyMs);
        if (result.vadLatencyMs !== undefined) vadLatencies.push(result.vadLatencyMs);
      }
      process.stderr.write(`  speech ${i + 1}/${SPEECH_TRIALS}: ${result.latencyMs === undefined ? `missed (${result.why})` : `${Math.round(result.latencyMs)} ms`}\n`);
    }
    return {
      echo_trials: ECHO_TRIALS,
      false_interruptions: falseInterruptions,
      false_transcripts: falseTranscripts,
      echo_trials_with_false: echoTrialsWithFalse,
      speech_trials: SPEECH_TRIALS,
      speech_trials_spoiled_by_false_interruption: spoiled,
      speech_trials_clip_onset_not_found: notFound,
      detections: detected,
      detection_rate: round(detected / (SPEECH_TRIALS - spoiled - notFound), 3),
      ...distribution('latency', latencies),
      latency_max_ms: latencies.length > 0 ? round(Math.max(...latencies)) : Number.NaN,
      ...distribution('vad_start_to_stop', vadLatencies),
    };
  } finally {
    await duplex.close();
    await host.close();
    await llm.close();
    restoreEnv();
    await pulse.server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

interface TalkOverResult {
  latencyMs?: number;
  vadLatencyMs?: number;
  why?: string;
  /** The reply was interrupted by its own echo before the clip played. */
  falseBefore?: boolean;
}

class TrialRunner {
  constructor(
    private readonly events: AssistantEvent[],
    private readonly voice: { ask(text: string): void; interrupt(source: 'api' | 'key'): boolean; readonly activity: string },
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Asks, lets the whole reply play; what the assistant heard meanwhile. */
  async reply(): Promise<{ interruptions: number; transcripts: number }> {
    const from = this.events.length;
    this.voice.ask('tell me the weather');
    await this.until(() => this.since(from).some((e) => e.type === 'voice.playback' && e.phase === 'ended'), 60_000);
    // The echo tail and a late transcript get their chance to show.
    await sleep(800);
    const seen = this.since(from);
    await this.quiet();
    return {
      interruptions: seen.filter((e) => e.type === 'voice.interrupted').length,
      transcripts: seen.filter((e) => e.type === 'voice.transcript' && e.final).length,
    };
  }

  async talkOver(wav: string, clip: Int16Array, gain: number, afterMs: number, mic: RecordingInput, pulseEnv: Record<string, string>): Promise<TalkOverResult> {
    await this.quiet();
    const from = this.events.length;
    this.voice.ask('tell me the weather');
    await this.until(() => this.since(from).some((e) => e.type === 'voice.playback' && e.phase === 'started'), 30_000);
    await sleep(afterMs);
    // An interruption before the user spoke is a false one, and leaves nothing to measure.
    const early = this.since(from).some((e) => e.type === 'voice.interrupted');
    const playedAt = performance.now();
    const playing = run('paplay', [wav], { env: { ...process.env, ...pulseEnv } });
    const clipMs = (clip.length / RATE) * 1000;
    const fromClip = this.events.length;
    let interrupted: Extract<AssistantEvent, { type: 'voice.interrupted' }> | undefined;
    if (!early) {
      await this.until(() => {
        interrupted = this.since(fromClip).find((e): e is Extract<AssistantEvent, { type: 'voice.interrupted' }> => e.type === 'voice.interrupted');
        return interrupted !== undefined;
      }, clipMs + 1500).catch(() => undefined);
    }
    await playing;
    const onsetAtMs = findClipOnset(mic, clip, gain, playedAt);
    // The clip's words start a new reply: stop it, and wait for quiet.
    await sleep(1500);
    this.voice.interrupt('api');
    await this.until(() => this.voice.activity === 'idle', 30_000);
    await sleep(500);
    if (early) return { why: 'a false interruption before the user spoke', falseBefore: true };
    if (!interrupted) return { why: 'no interruption' };
    if (onsetAtMs === undefined) return { why: CLIP_NOT_FOUND };
    const stoppedAtMs = interrupted.speechStartedAtMs + interrupted.latencyMs;
    return { latencyMs: stoppedAtMs - onsetAtMs, vadLatencyMs: interrupted.latencyMs };
  }

  /** A false transcript started a reply of its own: cut it off, so the next trial starts idle. */
  private async quiet(): Promise<void> {
    if (this.voice.activity === 'idle') return;
    this.voice.interrupt('api');
    await this.until(() => this.voice.activity === 'idle', 30_000);
    await sleep(500);
  }

  private since(from: number): AssistantEvent[] {
    return this.events.slice(from);
  }

  private async until(done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      this.signal?.throwIfAborted();
      if (performance.now() > deadline) throw new Error(`barge-in bench: timed out after ${timeoutMs} ms`);
      await sleep(10);
    }
  }
}

/**
 * Where the clip's first voiced audio reached the microphone, on the capture
 * clock: 0.8 s of clip from its voiced onset, slid over the 2 s of captured
 * audio from when paplay started, by normalized correlation (the echo of the
 * assistant is in the same signal, at full level: the loopback is exact).
 */
function findClipOnset(mic: RecordingInput, clip: Int16Array, gain: number, fromMs: number): number | undefined {
  const onset = voicedOnset(clip);
  const template = scaled(clip.subarray(onset, onset + 0.8 * RATE), gain);
  const { samples, startMs } = mic.since(fromMs);
  const lags = Math.min(samples.length - template.length, 2 * RATE);
  let templateEnergy = 0;
  for (const t of template) templateEnergy += t * t;
  let best = -1;
  let bestAt = -1;
  for (let lag = 0; lag <= lags; lag++) {
    let dot = 0;
    let energy = 0;
    for (let i = 0; i < template.length; i++) {
      const m = samples[lag + i]!;
      dot += m * template[i]!;
      energy += m * m;
    }
    const score = dot / Math.sqrt(energy * templateEnergy + 1);
    if (score > best) {
      best = score;
      bestAt = lag;
    }
  }
  // The clip is in the microphone signal with the echo over it; below this the match is not to be trusted.
  if (best < 0.3) return undefined;
  return startMs + (bestAt / RATE) * 1000;
}

/** An input that keeps the frames it hands on (the last 60 s), for finding what the microphone heard when. */
class RecordingInput implements AudioInput {
  readonly name: string;
  private readonly frames60: AudioFrame[] = [];

  constructor(private readonly inner: AudioInput) {
    this.name = inner.name;
  }

  async *frames(options?: { signal?: AbortSignal }): AsyncIterable<AudioFrame> {
    for await (const frame of this.inner.frames(options)) {
      this.frames60.push(frame);
      if (this.frames60.length > 3000) this.frames60.shift();
      yield frame;
    }
  }

  /** The audio captured from `fromMs` on, joined, and the capture time of its first sample. */
  since(fromMs: number): { samples: Int16Array; startMs: number } {
    const kept = this.frames60.filter((f) => f.atMs >= fromMs);
    const samples = new Int16Array(kept.reduce((n, f) => n + f.samples.length, 0));
    let at = 0;
    for (const f of kept) {
      samples.set(f.samples, at);
      at += f.samples.length;
    }
    return { samples, startMs: kept[0]?.atMs ?? fromMs };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function scaled(samples: Int16Array, gain: number): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * gain)));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

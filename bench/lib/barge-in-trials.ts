/**
 * The trials of the barge-in bench, on a live full-duplex voice in an echo
 * room: a reply nobody talks over, a reply talked over by a recorded clip,
 * and a clip said to the idle assistant (the no-echo baseline of its
 * recognition). Each reports what the bus showed; the latency of a caught
 * barge-in runs from the clip's true voiced onset as it reached the
 * microphone (found on the room's marker channel, then placed on the
 * capture clock by matching the microphone audio around it) to the moment
 * playback was stopped.
 */
import { join } from 'node:path';
import type { AssistantEvent } from '../../src/events/index.js';
import { bestMatch, concatSamples } from '../../src/voice/audio/index.js';
import type { AudioFrame, AudioInput } from '../../src/voice/types.js';
import { voicedOnset } from '../../test/support/echo-scenes.js';
import type { EchoRoom } from '../../test/support/echo-room.js';
import type { PulseServer } from '../../test/support/pulse-server.js';
import { interleave, playSamples, type MonitorRecording } from '../../test/support/room-monitor.js';

const RATE = 16_000;
type Interrupted = Extract<AssistantEvent, { type: 'voice.interrupted' }>;

export interface ReplyResult {
  interruptions: number;
  /** Final transcripts with words heard during the reply or its echo tail. */
  transcripts: number;
  /** Replies started by what was heard (echo answered as a question). */
  falseTurns: number;
  texts: string[];
}

export interface TalkOverResult {
  /** From the clip's voiced onset at the microphone to playback stopped, ms. */
  latencyMs?: number;
  /** From the detector's speech start to playback stopped, ms. */
  vadLatencyMs?: number;
  why?: string;
  /** The reply was interrupted by its own echo before the clip played. */
  falseBefore?: boolean;
  onsetNotFound?: boolean;
  /** What recognition made of the interrupting clip: its final transcripts, joined. */
  heard: string;
  /** The clip's voiced onset on the capture clock, ms (absent: not found). */
  onsetAtMs?: number;
  /** The interrupted reply went on while the clip was still playing. */
  resumedOverUser: boolean;
  /** The clip's words were recognized but started no turn. */
  wordsLost: boolean;
  rule?: string;
}

export interface VoiceUnderTest {
  ask(text: string): void;
  interrupt(source: 'api' | 'key'): boolean;
  readonly activity: string;
}

export class BargeInTrials {
  constructor(
    private readonly events: AssistantEvent[],
    private readonly voice: VoiceUnderTest,
    private readonly room: { pulse: PulseServer; room: EchoRoom; monitor: MonitorRecording; mic: RecordingInput; scratch: string },
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Asks, lets the whole reply play; what the assistant heard meanwhile. */
  async reply(): Promise<ReplyResult> {
    await this.quiet();
    const from = this.events.length;
    this.voice.ask('tell me the weather');
    await this.until(() => this.since(from).some((e) => e.type === 'voice.playback' && e.phase === 'ended'), 60_000);
    // The echo tail and a late transcript get their chance to show.
    await sleep(800);
    const seen = this.since(from);
    const turns = new Set(seen.filter((e) => e.type === 'state.changed' && e.state === 'thinking').map((e) => e.turnId));
    const texts = finalTexts(seen);
    return {
      interruptions: seen.filter((e) => e.type === 'voice.interrupted' && e.source === 'barge_in').length,
      transcripts: texts.length,
      falseTurns: Math.max(0, turns.size - 1),
      texts,
    };
  }

  /** The clip said to the idle assistant, no echo: what recognition made of it. */
  async sayToIdle(clip: Int16Array, gain: number): Promise<string> {
    await this.quiet();
    const from = this.events.length;
    await this.playClip(clip, gain);
    await sleep(1500);
    const heard = finalTexts(this.since(from)).join(' ');
    await this.quiet();
    return heard;
  }

  async talkOver(clip: Int16Array, gain: number, afterMs: number): Promise<TalkOverResult> {
    await this.quiet();
    const from = this.events.length;
    this.voice.ask('tell me the weather');
    await this.until(() => this.since(from).some((e) => e.type === 'voice.playback' && e.phase === 'started'), 30_000);
    await sleep(afterMs);
    // An interruption before the user spoke is a false one, and leaves nothing to measure.
    const early = this.since(from).some((e) => e.type === 'voice.interrupted' && e.source === 'barge_in');
    const replyTurn = this.since(from).find((e) => e.type === 'state.changed' && e.state === 'thinking')?.turnId;
    const fromSample = this.room.monitor.length;
    const fromClip = this.events.length;
    const clipMs = (clip.length / RATE) * 1000;
    const playing = this.playClip(clip, gain);
    let interrupted: Interrupted | undefined;
    if (!early) {
      // Capped, not required: a trial with no barge-in keeps `interrupted` undefined and is counted so.
      await this.until(() => {
        interrupted = this.since(fromClip).find((e): e is Interrupted => e.type === 'voice.interrupted' && e.source === 'barge_in');
        return interrupted !== undefined;
      }, clipMs + 1500).catch(() => undefined);
    }
    await playing;
    const clipEndedAt = Date.now();
    // The clip's words start a new reply: give them time to, then stop it and wait for quiet.
    await sleep(1500);
    const after = this.since(fromClip);
    const heard = finalTexts(after).join(' ');
    const newTurn = after.some((e) => e.type === 'state.changed' && e.state === 'thinking' && e.turnId !== replyTurn);
    const resumedOverUser = after.some((e) => e.type === 'voice.resumed' && e.atMs < clipEndedAt);
    const speech = after.find((e) => e.type === 'voice.speech' && e.phase === 'start');
    const rule = speech?.type === 'voice.speech' ? speech.rule : undefined;
    const onsetAtMs = this.locateOnset(fromSample);
    await this.quiet();
    const base = { heard, resumedOverUser, wordsLost: heard.trim() !== '' && !newTurn, ...(rule ? { rule } : {}), ...(onsetAtMs !== undefined ? { onsetAtMs } : {}) };
    if (early) return { ...base, why: 'a false interruption before the user spoke', falseBefore: true };
    if (!interrupted) return { ...base, why: 'no interruption' };
    if (onsetAtMs === undefined) return { ...base, why: 'the clip was not found in the captured audio', onsetNotFound: true };
    const stoppedAtMs = interrupted.speechStartedAtMs + interrupted.latencyMs;
    return { ...base, latencyMs: stoppedAtMs - onsetAtMs, vadLatencyMs: interrupted.latencyMs };
  }

  /** Plays the clip as the user: at `gain` into the microphone, and alone on the marker channel. */
  private playClip(clip: Int16Array, gain: number): Promise<void> {
    const stereo = interleave(scaled(clip, gain), clip);
    return playSamples(this.room.pulse, this.room.room.userSink, stereo, { rate: RATE, channels: 2, file: join(this.room.scratch, 'clip.raw') });
  }

  /**
   * The clip's voiced onset on the capture clock: found on the marker
   * channel from `fromSample`, then the microphone channel around it (1 s)
   * is matched against what the voice captured, within 300 ms of where the
   * recorder's clock puts it. The two are one signal, so the match is
   * near-perfect; below 0.9 it is not trusted.
   */
  private locateOnset(fromSample: number): number | undefined {
    const { monitor, mic } = this.room;
    const marker = monitor.slice('right', fromSample);
    if (!marker.some((s) => s !== 0)) return undefined;
    const onset = fromSample + voicedOnset(marker);
    const before = 0.25 * RATE;
    const template = monitor.slice('left', onset - before, onset + 0.75 * RATE);
    const expectedMs = monitor.perfMsOf(onset - before);
    const { samples, startMs } = mic.since(expectedMs - 300, expectedMs + 1300);
    const lag = bestMatch(samples, template);
    if (!lag || lag.score < 0.9) return undefined;
    return startMs + ((lag.at + before) / RATE) * 1000;
  }

  /** A reply under way (a false turn, a clip's answer): cut it off, so the next trial starts idle. */
  private async quiet(): Promise<void> {
    // A false turn's reply can be interrupted by its own echo into another false turn: cut each one off.
    for (let attempt = 0; this.voice.activity !== 'idle'; attempt++) {
      if (attempt === 10) throw new Error(`barge-in bench: the voice stayed ${this.voice.activity} through 10 interruptions`);
      this.voice.interrupt('api');
      // Capped: the loop checks idle again, and gives up after 10 tries.
      await this.until(() => this.voice.activity === 'idle', 6000).catch(() => undefined);
    }
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

function finalTexts(events: AssistantEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'voice.transcript' && e.final && !e.dropped && /[\p{L}\p{N}]/u.test(e.text) ? [e.text] : []));
}

/** An input that keeps the frames it hands on (the last 60 s), for finding what the microphone heard when. */
export class RecordingInput implements AudioInput {
  readonly name: string;
  private readonly kept: AudioFrame[] = [];

  constructor(private readonly inner: AudioInput) {
    this.name = inner.name;
  }

  async *frames(options?: { signal?: AbortSignal }): AsyncIterable<AudioFrame> {
    for await (const frame of this.inner.frames(options)) {
      this.kept.push(frame);
      if (this.kept.length > 3000) this.kept.shift();
      yield frame;
    }
  }

  /** The audio captured in [fromMs, toMs), joined, and the capture time of its first sample. */
  since(fromMs: number, toMs = Number.POSITIVE_INFINITY): { samples: Int16Array; startMs: number } {
    const frames = this.kept.filter((f) => f.atMs >= fromMs && f.atMs < toMs);
    return { samples: concatSamples(frames.map((f) => f.samples)), startMs: frames[0]?.atMs ?? fromMs };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export function scaled(samples: Int16Array, gain: number): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * gain)));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

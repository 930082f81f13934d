/**
 * The soak's spoken turns: a recorded question played into the room's
 * microphone every few seconds, its answer's first sound found on the
 * room's speaker channel (one clock: bench/lib/room.ts). Turn n is planned
 * as a tool call when n % 4 == 0, a memory save when n % 10 == 9, a plain
 * reply otherwise; every fifth reply (n % 5 == 2) is talked over a second
 * after it begins, by the next question, which the daemon must take as a
 * barge-in and then answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DaemonProcess, ReceivedEvent } from './daemon-process.js';
import { playInto, type Room, type RoomRecorder } from './room.js';
import type { SoakLlm, SoakTurnKind } from './soak-llm.js';
import { ANSWER_RMS, measure, noAnswerReason, type Trial } from './turn-daemon-trials.js';
import type { PulseServer } from '../../test/support/pulse-server.js';

export interface SoakQuestion {
  name: string;
  /** 16 kHz mono s16le, for pacat. */
  rawFile: string;
}

export interface SoakTurnResult {
  index: number;
  kind: SoakTurnKind;
  clip: string;
  /** Played over the previous reply. */
  bargeIn: boolean;
  /** For a barge-in: whether the daemon said it stopped its reply for the user's voice. */
  interrupted?: boolean;
  /** End of speech to the first sound of the answer, ms; absent without an answer. */
  latencyMs?: number;
  /** Seconds since the soak began when the answer began (or the turn gave up). */
  atS: number;
  why?: string;
}

export interface SoakTurnContext {
  pulse: PulseServer;
  room: Room;
  recorder: RoomRecorder;
  daemon: DaemonProcess;
  llm: SoakLlm;
  questions: readonly SoakQuestion[];
  /** Date.now() when the soak began. */
  startedAtMs: number;
  signal?: AbortSignal;
}

/** Silence between one answer's end and the next question: a turn every few seconds. */
const GAP_MS = 1500;
/** Into a reply before the next question talks over it. */
const BARGE_IN_AFTER_MS = 1000;
const ANSWER_TIMEOUT_MS = 10_000;
/** A dropped transcript with no turn for this long: no answer is coming. */
const GIVE_UP_AFTER_DROP_MS = 1500;
/** The speaker channel silent this long (10 ms frames) counts as the end of an answer. */
const QUIET_FRAMES = 30;
const READY_TIMEOUT_MS = 30_000;

export function turnKind(n: number): SoakTurnKind {
  if (n % 10 === 9) return 'memory';
  if (n % 4 === 0) return 'tool';
  return 'plain';
}

/** Whether turn n's reply is talked over by turn n + 1. */
export function talkedOver(n: number): boolean {
  return n % 5 === 2;
}

export class SoakTurns {
  private n = 0;
  /** Set when the previous reply is to be talked over: the frame its first sound came. */
  private overReplyFrom: number | undefined;

  constructor(private readonly ctx: SoakTurnContext) {}

  /** Whether the next question is to be played over the reply now beginning. */
  get bargeInPending(): boolean {
    return this.overReplyFrom !== undefined;
  }

  /** Plays the next question and waits for its answer to begin (not to end: a barge-in needs it playing). */
  async next(): Promise<SoakTurnResult> {
    const { daemon, recorder, llm, questions, signal } = this.ctx;
    const index = this.n++;
    const kind = turnKind(index);
    const question = questions[index % questions.length]!;
    const bargeIn = this.overReplyFrom !== undefined;
    if (this.overReplyFrom !== undefined) await this.untilFrame(this.overReplyFrom + BARGE_IN_AFTER_MS / 10);
    else {
      await this.quiet();
      await sleep(GAP_MS, undefined, { signal });
    }
    this.overReplyFrom = undefined;
    llm.kind = kind;
    const fromEvent = daemon.events.length;
    const fromFrame = recorder.frames;
    await playInto(this.ctx.pulse, this.ctx.room.questionSink, question.rawFile);
    const playedFrame = recorder.frames;
    const result: SoakTurnResult = { index, kind, clip: question.name, bargeIn, atS: this.nowS() };
    let searchFrom: number | undefined = fromFrame;
    if (bargeIn) {
      // Over a reply, the answer is the first sound after the reply, cut where the daemon says it stopped it, has gone quiet.
      const cut = daemon.events.slice(fromEvent).find((e) => e.type === 'voice.interrupted' && e.source === 'barge_in');
      result.interrupted = cut !== undefined;
      searchFrom = cut === undefined ? undefined : await this.quietFrame(Math.max(fromFrame, Math.floor(recorder.frameAtWall(cut.atMs))));
    }
    const giveUp = (): boolean => droppedWithoutTurn(daemon.events.slice(fromEvent));
    const soundFrame = searchFrom === undefined ? undefined : await recorder.waitForSpeaker(searchFrom, ANSWER_RMS, Date.now() + ANSWER_TIMEOUT_MS, giveUp, signal);
    result.atS = this.nowS();
    const trial: Trial = { clip: question.name, fromFrame, playedFrame, fromEvent, ...(soundFrame === undefined ? {} : { soundFrame }) };
    const { latencyMs } = measure(trial, recorder, daemon.events);
    if (latencyMs !== undefined) result.latencyMs = latencyMs;
    else if (bargeIn && !result.interrupted) result.why = 'the reply talked over was not interrupted';
    else result.why = soundFrame === undefined ? noAnswerReason(daemon.events.slice(fromEvent)) : 'the question was not found on the microphone channel';
    if (talkedOver(index) && soundFrame !== undefined) this.overReplyFrom = soundFrame;
    return result;
  }

  /** The daemon idle (or listening) and its speaker quiet; after a long wait, its reply is cut off with POST /interrupt. */
  async quiet(): Promise<void> {
    const { daemon, recorder, signal } = this.ctx;
    const ready = (): boolean => daemon.exited !== undefined || (['idle', 'listening'].includes(daemon.state) && recorder.speakerQuiet(QUIET_FRAMES, ANSWER_RMS));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!ready()) {
      if (Date.now() > deadline) {
        process.stderr.write(`  soak: not idle after ${READY_TIMEOUT_MS / 1000} s (state ${daemon.state}): POST /interrupt\n`);
        // Best effort: the next turn's wait for idle says whether it helped.
        await daemon.post('/interrupt').catch(() => undefined);
        await sleep(1000, undefined, { signal });
        return;
      }
      await sleep(20, undefined, { signal });
    }
  }

  /** The first frame from `from` that starts QUIET_FRAMES of silence on the speaker, waiting up to 3 s for it. */
  private async quietFrame(from: number): Promise<number | undefined> {
    const { recorder, signal } = this.ctx;
    const deadline = Date.now() + 3000;
    for (;;) {
      let run = 0;
      for (let f = from; f < recorder.speaker.length; f++) {
        run = recorder.speaker[f]! < ANSWER_RMS ? run + 1 : 0;
        if (run >= QUIET_FRAMES) return f - QUIET_FRAMES + 1;
      }
      if (Date.now() > deadline) return undefined;
      await sleep(20, undefined, { signal });
    }
  }

  private async untilFrame(frame: number): Promise<void> {
    while (this.ctx.recorder.frames < frame) await sleep(10, undefined, { signal: this.ctx.signal });
  }

  private nowS(): number {
    return (Date.now() - this.ctx.startedAtMs) / 1000;
  }
}

function droppedWithoutTurn(events: readonly ReceivedEvent[]): boolean {
  const dropped = [...events].reverse().find((e) => e.type === 'voice.transcript' && e.final && e.dropped !== undefined);
  if (!dropped) return false;
  const turnAfter = events.some((e) => e.type === 'turn.started' && e.seq > dropped.seq);
  return !turnAfter && Date.now() - dropped.receivedAtMs > GIVE_UP_AFTER_DROP_MS;
}

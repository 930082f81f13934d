/**
 * The full-duplex voice: the microphone is always open, the assistant's
 * own voice is cancelled out of it, and the user can talk over a reply.
 * The state machine (a pure reducer) decides; this runtime feeds it what
 * the microphone, the player, the conversation and the tools report, and
 * carries out its effects: one AbortController per turn (LLM, TTS and
 * cancellable tools), playback stopped at a chunk boundary, only what was
 * played committed to the conversation's history.
 */
import { isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus, type AssistantEvent } from '../../events/index.js';
import type { ConfirmationChannel, VoiceConversation } from '../host-ports.js';
import type { Apm } from '../apm/index.js';
import { overrunEvent, type OverrunReport } from '../buffers/index.js';
import type { TranscriptCheck } from '../session/index.js';
import { FRAME_SAMPLES, type AudioFrame, type AudioInput, type AudioOutput, type StreamingStt, type Tts, type Vad } from '../types.js';
import { Endpointer, type EndpointerConfig } from '../vad/index.js';
import { isBackchannel } from './backchannel.js';
import { BargeInDetector } from './barge-in-detector.js';
import type { EchoExcessMeter } from './double-talk-meter.js';
import { CaptureQueue } from './capture-queue.js';
import { EchoReference } from './echo-reference.js';
import { FrameTimers } from './frame-timers.js';
import { resolveDuplexConfig, type DuplexConfig } from './config.js';
import { ListeningPipeline } from './listening-pipeline.js';
import { DuplexPlayer } from './player.js';
import { reduce } from './reducer.js';
import { ReplyTurns } from './reply-turns.js';
import { ScoreReplayVad } from './score-replay-vad.js';
import { initialDuplexState, type ActivityState, type DuplexEffect, type DuplexInput, type DuplexState, type DuplexTimer, type InterruptionSource } from './states.js';

/** Not settings: measured on the PulseAudio loopback (see the options below for why). */
const RENDER_DELAY_MS = 0;
const ECHO_TAIL_MS = 300;
const ECHO_WARMUP_MS = 1500;

export interface DuplexVoiceOptions {
  input: AudioInput;
  output: AudioOutput;
  apm: Apm;
  /** The VAD model; the detector and the endpointer share its scores. */
  vad: Vad;
  /** Speech over loud echo: a less suppressing echo canceller and a VAD of its own (see BargeInDetector). */
  doubleTalk?: { apm: Apm; vad: Vad; meter?: EchoExcessMeter };
  /** Recognition of confirmed speech; its partial interval is the engine's. */
  stt: StreamingStt;
  tts: Tts;
  conversation: VoiceConversation;
  bus: AssistantBus;
  confirmation: ConfirmationChannel;
  checkTranscript: TranscriptCheck;
  sanitize: (text: string) => string;
  sentenceLanguage: (sentence: string, fallback: string) => string;
  languages: readonly string[];
  defaultLanguage: string;
  /** The state machine's settings: `duplexConfigFrom(config)` (checked again here). */
  config: DuplexConfig;
  endpointer?: Partial<EndpointerConfig>;
  /** Speaker audio kept as the echo canceller's reference (`[duplex] render_buffer_ms`). */
  renderBufferMs: number;
  /** Microphone audio held for a loop that falls behind (`[duplex] capture_buffer_ms`); beyond it the oldest is dropped with an overrun event. */
  captureBufferMs: number;
  /**
   * Shifts the render reference later by this many ms (default 0). The echo
   * canceller needs the reference before its echo, and finds the delay
   * itself: on the PulseAudio loopback, 0 let it cancel the assistant's voice
   * while 40 (of a ~75 ms path) let echo through as false interruptions.
   */
  renderDelayMs?: number;
  /** `[duplex] drift_tolerance_ppm`. */
  driftTolerancePpm: number;
  /** Render audio counts as playing this long after it was written: the room's echo tail (default 300). */
  echoTailMs?: number;
  /**
   * Until this much of the assistant's voice has gone through the echo
   * canceller since the start, speech over it does not interrupt (default
   * 1500): an echo canceller that has not yet learned the room lets its
   * first echoes through.
   */
  echoWarmupMs?: number;
  /**
   * Each microphone frame and the render paired with it (null: nothing
   * playing, nor its echo tail), as the barge-in detector gets them: a tap
   * for recording a run to replay (bench/barge-in.ts, BARGE_IN_RECORD).
   */
  onHeard?: (frame: AudioFrame, render: Int16Array | null) => void;
  /** Milliseconds on the clock the input's frame times are on (default performance.now, as PortAudio's). */
  clock?: () => number;
  /** Time stamps of bus events (default Date.now, as every other stage's). */
  eventClock?: () => number;
}

export class DuplexVoice {
  readonly config: DuplexConfig;
  private state: DuplexState = initialDuplexState();
  private readonly clock: () => number;
  private readonly eventClock: () => number;
  private readonly player: DuplexPlayer;
  private readonly echo: EchoReference;
  private readonly capture: CaptureQueue;
  private readonly pipeline: ListeningPipeline;
  private readonly turns: ReplyTurns;
  /** Every timer of the voice, the state machine's and the partial decodes', on the audio clock. */
  private readonly frameTimers: FrameTimers;
  /** The state machine's named timers: setting one replaces it. */
  private readonly machineTimers = new Map<DuplexTimer, number>();
  private readonly stopper = new AbortController();
  private readonly unsubscribe: () => void;
  private queue: DuplexInput[] = [];
  private dispatching = false;
  /** The interruption whose playback stop comes next: its speech start (for the latency) and what it was. */
  private pendingInterruption: { speechStartedAtMs: number; source: InterruptionSource } | undefined;
  private muted = false;
  private audioFailed = false;
  private language: string;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: DuplexVoiceOptions) {
    this.config = resolveDuplexConfig(options.config);
    this.clock = options.clock ?? (() => performance.now());
    this.eventClock = options.eventClock ?? Date.now;
    this.language = options.defaultLanguage;
    this.frameTimers = new FrameTimers(this.clock);
    const { bus } = options;
    const overrun = (report: OverrunReport): void => bus.emit(overrunEvent(report, this.eventClock()));
    this.capture = new CaptureQueue(options.captureBufferMs, overrun);
    this.echo = new EchoReference({
      bus,
      clock: this.clock,
      eventClock: this.eventClock,
      capacityMs: options.renderBufferMs,
      delayMs: options.renderDelayMs ?? RENDER_DELAY_MS,
      driftTolerancePpm: options.driftTolerancePpm,
      echoTailMs: options.echoTailMs ?? ECHO_TAIL_MS,
      onOverrun: overrun,
    });
    this.player = new DuplexPlayer({
      output: options.output,
      tts: options.tts,
      sanitize: options.sanitize,
      onRendered: (chunk) => this.echo.written(chunk),
      onHandedOff: (samples) => this.echo.handedOff(samples),
      listener: {
        sentenceStarted: (turnId, sentence) => {
          this.dispatch({ type: 'sentence_started', turnId, sentence });
          this.turns.playbackStarted(turnId);
        },
        sentencePlayed: (turnId, sentence) => this.dispatch({ type: 'sentence_played', turnId, sentence }),
        failed: (turnId, error) => {
          bus.emit({ type: 'error', stage: 'tts', turnId, code: error.code, message: error.message, recoverable: true, atMs: this.eventClock() });
          this.dispatch({ type: 'error', code: error.code, recoverable: true, turnId });
        },
      },
    });
    const scores = new ScoreReplayVad(options.vad.frameSamples);
    const endpointer = new Endpointer(scores, { threshold: this.config.speechThreshold, ...options.endpointer });
    this.pipeline = new ListeningPipeline({
      detector: new BargeInDetector({ apm: options.apm, vad: options.vad, config: this.config, ...(options.doubleTalk ? { doubleTalk: options.doubleTalk } : {}) }),
      endpointer,
      scores,
      stt: options.stt,
      checkTranscript: options.checkTranscript,
      // The conversation recalls memories for the words while the user is still speaking.
      onPartial: (partial) => options.conversation.anticipate(partial.text),
      setTimer: (fire, ms) => this.frameTimers.set(fire, ms),
      clearTimer: (handle) => this.frameTimers.clear(handle),
      bus,
      clock: this.clock,
      eventClock: this.eventClock,
      dispatch: (input) => this.dispatch(input),
      confidenceScale: (duringPlayback) => this.echo.confidenceScale(duringPlayback, options.echoWarmupMs ?? ECHO_WARMUP_MS),
      heldBackchannel: (words) => this.state.activity === 'interrupted' && isBackchannel(words, this.config.backchannels),
      onLanguage: (language) => {
        this.language = language && options.languages.includes(language) ? language : options.defaultLanguage;
      },
      signal: this.stopper.signal,
    });
    this.turns = new ReplyTurns({
      conversation: options.conversation,
      confirmation: options.confirmation,
      sentenceLanguage: options.sentenceLanguage,
      player: this.player,
      bus,
      eventClock: this.eventClock,
      dispatch: (input) => this.dispatch(input),
    });
    this.unsubscribe = bus.subscribe((event) => this.followTools(event));
  }

  get activity(): ActivityState {
    return this.state.activity;
  }

  get listening(): boolean {
    return this.loop !== undefined && !this.muted && !this.stopper.signal.aborted;
  }

  /** Opens the microphone: from here on everything heard is considered. */
  start(): void {
    this.loop ??= this.listen();
  }

  /** The microphone stays open but what it hears is ignored (a reply under way plays on). */
  mute(): boolean {
    if (this.muted) return false;
    this.muted = true;
    return true;
  }

  unmute(): boolean {
    if (!this.muted) return false;
    this.muted = false;
    return true;
  }

  /** A question typed rather than spoken (a benchmark, a test): taken as a final transcript would be. */
  ask(text: string): void {
    this.dispatch({ type: 'transcript_final', text });
  }

  /** An interruption from a key or the API: the reply stops at once, no false-interruption wait; false when no reply was under way. */
  interrupt(source: 'api' | 'key'): boolean {
    const replying = this.state.turn !== null;
    this.dispatch({ type: 'interrupt_requested', source });
    return replying;
  }

  /** Resolves when the listening loop has ended (input over, closed, or a fatal error). */
  async done(): Promise<void> {
    await this.loop;
  }

  /** Waits for pending final transcripts and the reply being played; for tests and file runs. */
  async settled(): Promise<void> {
    await this.pipeline.settled();
    await this.turns.settled();
    await this.player.finished();
  }

  async close(): Promise<void> {
    this.stopper.abort();
    this.unsubscribe();
    this.turns.abortAll();
    this.player.abort();
    this.pipeline.close();
    await this.loop;
    await this.turns.settled();
  }

  private async listen(): Promise<void> {
    const filling = this.capture.fill(this.options.input, this.stopper.signal);
    try {
      for await (const frame of this.capture.frames()) {
        this.frameTimers.tick();
        if (this.muted || this.state.halted) continue;
        await this.hear(frame);
      }
    } catch (error) {
      if (this.stopper.signal.aborted) return;
      const code = isAppError(error) ? error.code : 'AUDIO_INPUT_FAILED';
      this.options.bus.emit({ type: 'error', stage: 'audio', code, message: messageOf(error), recoverable: false, atMs: this.eventClock() });
      this.dispatch({ type: 'error', code, recoverable: false });
    } finally {
      await filling;
    }
  }

  private async hear(frame: AudioFrame): Promise<void> {
    const render = this.echo.forCapture(frame);
    const samples = frame.samples.length === FRAME_SAMPLES ? frame.samples : padded(frame.samples);
    this.options.onHeard?.({ ...frame, samples }, render);
    try {
      await this.pipeline.frame({ ...frame, samples }, render);
    } catch (error) {
      if (this.audioFailed) return;
      // The echo canceller or the VAD failed: the utterance is lost, the conversation is not.
      this.audioFailed = true;
      const code = isAppError(error) ? error.code : 'AUDIO_PROCESSING_FAILED';
      this.options.bus.emit({ type: 'error', stage: 'audio', code, message: messageOf(error), recoverable: true, atMs: this.eventClock() });
      this.dispatch({ type: 'error', code, recoverable: true });
      this.pipeline.reset();
      return;
    }
    if (this.audioFailed) {
      this.audioFailed = false;
      this.dispatch({ type: 'recovery_done' });
    }
  }


  /** Feeds the state machine; inputs that arrive while effects run wait their turn. */
  private dispatch(input: DuplexInput): void {
    this.queue.push(input);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        const step = reduce(this.state, next, this.clock(), this.config);
        this.state = step.state;
        for (const effect of step.effects) this.apply(effect);
      }
    } finally {
      this.dispatching = false;
    }
  }

  private apply(effect: DuplexEffect): void {
    const { bus } = this.options;
    switch (effect.type) {
      case 'state_changed':
        // The machine runs on the audio clock; the bus on the wall clock, like every other stage.
        return bus.emit({ ...effect.event, atMs: this.eventClock() });
      case 'start_turn':
        return this.turns.start(effect.turnId, effect.text, this.language);
      case 'interrupt_detected':
        this.pendingInterruption = { speechStartedAtMs: effect.speechStartedAtMs, source: effect.source };
        return;
      case 'stop_playback': {
        this.player.stop(effect.turnId);
        this.echo.stopped();
        const interruption = this.pendingInterruption;
        this.pendingInterruption = undefined;
        if (interruption) {
          const { speechStartedAtMs, source } = interruption;
          const latencyMs = this.clock() - speechStartedAtMs;
          bus.emit({ type: 'voice.interrupted', stage: 'voice', turnId: effect.turnId, source, speechStartedAtMs, latencyMs, atMs: this.eventClock() });
        }
        return;
      }
      case 'resume_from_sentence':
        this.player.resumeFrom(effect.turnId, effect.sentence);
        return bus.emit({ type: 'voice.resumed', stage: 'voice', turnId: effect.turnId, sentence: effect.sentence, atMs: this.eventClock() });
      case 'continue_playback':
        this.player.continueFrom(effect.turnId);
        return bus.emit({ type: 'voice.resumed', stage: 'voice', turnId: effect.turnId, sentence: effect.sentence, backchannel: clip(effect.words), atMs: this.eventClock() });
      case 'abort_turn':
        return this.turns.abort(effect.turnId, effect.reason);
      case 'commit_played':
        return this.turns.commit(effect.turnId, effect.sentences, effect.complete);
      case 'discard_tool_result':
        // The aborted turn's conversation drops a tool result that comes after its abort; nothing is spoken.
        return;
      case 'set_timer': {
        const { timer } = effect;
        this.frameTimers.clear(this.machineTimers.get(timer));
        this.machineTimers.set(
          timer,
          this.frameTimers.setAt(() => {
            this.machineTimers.delete(timer);
            this.dispatch({ type: 'timer_fired', timer });
          }, effect.atMs),
        );
        return;
      }
      case 'fatal':
        bus.emit({ type: 'error', stage: 'voice', code: effect.code, message: 'the full-duplex voice stopped', recoverable: false, atMs: this.eventClock() });
        this.stopper.abort();
        return;
    }
  }

  private followTools(event: AssistantEvent): void {
    if (event.turnId === undefined || !this.turns.has(event.turnId)) return;
    if (event.type === 'tool.started') this.dispatch({ type: 'tool_started', turnId: event.turnId, callId: event.callId, cancellable: event.cancellable });
    else if (event.type === 'tool.ended') this.dispatch({ type: 'tool_ended', turnId: event.turnId, callId: event.callId, status: event.status });
  }
}

function padded(samples: Int16Array): Int16Array {
  const out = new Int16Array(FRAME_SAMPLES);
  out.set(samples.subarray(0, FRAME_SAMPLES));
  return out;
}

/**
 * The barge-in decision on VAD windows, apart from the audio that made
 * them: given each window's score on the cleaned path and, with a
 * double-talk path, that path's score and the mic's excess over the
 * predicted echo, says when speech has started. Pure and in audio time, so
 * a recorded run can be replayed through other settings
 * (bench/barge-in-replay.ts) and tests need no audio.
 *
 * During playback: windows at or above `bargeInThreshold` adding up to
 * `minBargeInSpeechMs` in a row on the cleaned path, or a double-talk run
 * (windows at `doubleTalkThreshold`, started on one where the mic stands
 * `echoExcessDb` above the echo, with `doubleTalkExcessWindows` such
 * windows in all) of `doubleTalkMinSpeechMs`; but not in the first
 * `replyStartGuardMs` of a reply that follows `replyPauseMs` of silence. Outside
 * playback, one window at or above `speechThreshold`. After an onset,
 * quiet until both paths fall below `speechThreshold`. This is the one
 * place the decision is made: the state machine takes an onset as given
 * (during a reply it stops playback at once).
 */
import type { DuplexConfig } from './config.js';
import type { OnsetRule } from './states.js';

export interface DoubleTalkWindow {
  /** The second path's VAD probability for the window. */
  probability: number;
  /** The largest excess of the mic over the predicted echo in the 10 ms frames the window overlaps, dB. */
  excessDb: number;
}

/** The onset, shaped as the duplex reducer's `speech_started` input plus the audio time of the decision. */
export interface BargeInSpeechStarted {
  type: 'speech_started';
  /** The confirming window's speech probability on the path of the rule that confirmed it (for the record: nothing checks it again). */
  confidence: number;
  /** Which rule confirmed it. */
  rule: OnsetRule;
  /** Audio time of the first window of the qualifying run, ms. */
  startedAtMs: number;
  /** Audio time at which the speech was confirmed (end of the confirming window), ms. */
  atMs: number;
  duringPlayback: boolean;
}

export class BargeInRule {
  /** The current run of qualifying windows on the cleaned path: its start and length, ms. */
  private runStartMs = 0;
  private runMs = 0;
  /** The double-talk rule's run, like the one above. */
  private doubleTalkRunStartMs = 0;
  private doubleTalkRunMs = 0;
  /** Windows of the double-talk run where the mic stood `echoExcessDb` above the echo. */
  private doubleTalkExcessWindows = 0;
  /** After a speech_started, quiet until a window falls below speechThreshold. */
  private inSpeech = false;
  /** Where the current stretch without playback began (audio time; undefined while playing), and until when a reply begun after a pause is not interrupted. */
  private idleSinceMs: number | undefined = 0;
  private guardUntilMs = -Infinity;

  constructor(
    private readonly config: DuplexConfig,
    /** One VAD window, ms. */
    private readonly windowMs: number,
  ) {}

  /**
   * The next window (starting at `startMs`, audio time); an onset when this window confirms one.
   * `trust` (0..1] scales the probabilities heard over playback against the thresholds: below 1
   * while capture and playback clocks drift apart, so a barge-in must be surer.
   */
  score(startMs: number, probability: number, playing: boolean, doubleTalk?: DoubleTalkWindow, trust = 1): BargeInSpeechStarted | undefined {
    const { speechThreshold } = this.config;
    if (this.inSpeech) {
      // Re-armed only when neither path still hears the utterance, so one utterance gives one onset.
      if (probability < speechThreshold && (doubleTalk === undefined || doubleTalk.probability < speechThreshold)) this.inSpeech = false;
      return undefined;
    }
    this.followPlayback(startMs, playing);
    if (playing && startMs < this.guardUntilMs) {
      // The first moments of a reply after a pause: the echo path may have changed since the last one, and both echo
      // cancellers and the meter are learning it. No run starts here.
      this.runMs = 0;
      this.doubleTalkRunMs = 0;
      return undefined;
    }
    const cleaned = this.scoreCleaned(startMs, probability, playing, trust);
    const overEcho = playing && doubleTalk ? this.scoreDoubleTalk(startMs, doubleTalk, trust) : undefined;
    if (!playing) this.doubleTalkRunMs = 0;
    const event = cleaned ?? overEcho;
    if (event) {
      this.inSpeech = true;
      this.runMs = 0;
      this.doubleTalkRunMs = 0;
    }
    return event;
  }

  /** A reply that starts after `replyPauseMs` without playback is guarded for its first `replyStartGuardMs`. */
  private followPlayback(startMs: number, playing: boolean): void {
    if (!playing) {
      this.idleSinceMs ??= startMs;
      return;
    }
    if (this.idleSinceMs === undefined) return;
    if (startMs - this.idleSinceMs >= this.config.replyPauseMs) this.guardUntilMs = startMs + this.config.replyStartGuardMs;
    this.idleSinceMs = undefined;
  }

  reset(): void {
    this.runMs = 0;
    this.doubleTalkRunMs = 0;
    this.inSpeech = false;
  }

  /** The rule on the strongly suppressed path: a run of windows at the threshold for the mode. */
  private scoreCleaned(startMs: number, probability: number, playing: boolean, trust: number): BargeInSpeechStarted | undefined {
    const { bargeInThreshold, speechThreshold, minBargeInSpeechMs } = this.config;
    const threshold = playing ? bargeInThreshold : speechThreshold;
    if ((playing ? probability * trust : probability) < threshold) {
      this.runMs = 0;
      return undefined;
    }
    if (this.runMs === 0) this.runStartMs = startMs;
    this.runMs += this.windowMs;
    const neededMs = playing ? minBargeInSpeechMs : 0;
    if (this.runMs < neededMs) return undefined;
    return this.started(this.runStartMs, startMs, probability, playing, 'cleaned');
  }

  /** The rule on the less suppressed path: a run that starts where the mic is louder than echo can be, carried by the VAD. */
  private scoreDoubleTalk(startMs: number, window: DoubleTalkWindow, trust: number): BargeInSpeechStarted | undefined {
    const { doubleTalkThreshold, echoExcessDb, doubleTalkMinSpeechMs, doubleTalkExcessWindows } = this.config;
    const voiced = window.probability * trust >= doubleTalkThreshold;
    if (!voiced) {
      this.doubleTalkRunMs = 0;
      return undefined;
    }
    const aboveEcho = window.excessDb >= echoExcessDb;
    if (this.doubleTalkRunMs === 0) {
      if (!aboveEcho) return undefined;
      this.doubleTalkRunStartMs = startMs;
      this.doubleTalkExcessWindows = 0;
    }
    this.doubleTalkRunMs += this.windowMs;
    if (aboveEcho) this.doubleTalkExcessWindows++;
    if (this.doubleTalkRunMs < doubleTalkMinSpeechMs || this.doubleTalkExcessWindows < doubleTalkExcessWindows) return undefined;
    return this.started(this.doubleTalkRunStartMs, startMs, window.probability, true, 'double_talk');
  }

  private started(runStartMs: number, windowStartMs: number, confidence: number, duringPlayback: boolean, rule: BargeInSpeechStarted['rule']): BargeInSpeechStarted {
    return { type: 'speech_started', confidence, rule, startedAtMs: runStartMs, atMs: windowStartMs + this.windowMs, duringPlayback };
  }
}

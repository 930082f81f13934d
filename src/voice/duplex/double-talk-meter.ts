/**
 * How far the microphone rises above the echo that the speaker audio
 * predicts, per 10 ms frame, in dB: near 0 or below while only the echo is
 * heard, well above it once someone talks over the playback (double talk).
 * It works on frame energies, not waveforms, so it needs no converged echo
 * canceller: the echo level is the render's energy around the estimated
 * speaker-to-microphone delay, plus the level difference that echo-only
 * frames have shown (the 90th percentile of mic minus render, in dB). A
 * room keeps ringing after the render stops: the prediction decays from
 * its last level at the room's rate rather than dropping at once, and the
 * rate is learnt from how fast the microphone falls silent after loud
 * render stops (in a 0.6 s room the tail of a word stays above the next
 * quiet syllable's echo for a quarter of a second, and was taken for a
 * voice).
 */

import { REPLY_PAUSE_MS } from './config.js';

/** Lags tried for the delay, in 10 ms frames: 0..300 ms covers the AEC's own range of interest. */
export const MAX_LAG_FRAMES = 30;
/** Per-frame weight of the running correlation: about a second of memory. */
const CORRELATION_ALPHA = 0.02;
/** Active render frames before the delay estimate is trusted (0.5 s); until then the loudest render of the last 250 ms stands in. */
const DELAY_WARMUP_FRAMES = 50;
const FALLBACK_SPAN_FRAMES = 25;
/** The echo is taken as the loudest render within this many frames either side of the delay (sampling jitter, short smear). */
const DELAY_SPREAD_FRAMES = 2;
/** Mic-minus-render levels kept (2 s of active render) and the percentile that stands for the echo path's gain. */
const LEVEL_HISTORY_FRAMES = 200;
const LEVEL_PERCENTILE = 0.9;
const MIN_LEVEL_HISTORY_FRAMES = 30;
/** Frames this far above the echo are double talk: they neither teach the delay nor the level. */
const FREEZE_EXCESS_DB = 3;
/** 10 log10 of int16 mean square: below 45 dB (RMS ~180) render is too quiet to echo and mic too quiet to count. */
const ACTIVE_LEVEL_DB = 45;
/** The echo's decay before any is measured, dB per 10 ms frame: a reverberant room's (RT60 0.8 s), so the first replies err towards echo. */
const INITIAL_DECAY_DB_PER_FRAME = 0.75;
/** Decay rates believed: RT60 2.4 s down to 0.1 s. */
const MIN_DECAY_DB_PER_FRAME = 0.25;
const MAX_DECAY_DB_PER_FRAME = 6;
/** A render offset: the direct echo this far under the ringing tail. The mic's fall over the next frames is the room's decay. */
const OFFSET_DROP_DB = 20;
const DECAY_MEASURE_FRAMES = 8;
/** Frames after an offset that still hold the direct sound's fall (the delay estimate's spread). */
const DIRECT_FRAMES = 2;
/** The mic must start this far above the active level for its fall to be measured (not into the noise). */
const DECAY_MEASURE_HEADROOM_DB = 15;
const DECAY_LEARNING_RATE = 0.2;
/**
 * A reply that starts after this long without render (0.5 s, the rule's replyPauseMs) may meet another
 * echo path (the volume turned, the laptop moved, the bench's gain drawn
 * anew): the echo level is learnt afresh from its first frames. Without
 * this, an echo more than FREEZE_EXCESS_DB louder than the last reply's
 * was never learnt (every frame of it looked like double talk), and the
 * first syllables of replies were taken for the user (BENCHMARKS.md).
 */
const NEW_REPLY_GAP_FRAMES = REPLY_PAUSE_MS / 10;

/** How far the mic stands above the echo the render predicts, per 10 ms frame, in dB (see push below). */
export interface EchoExcessMeter {
  /** `cancelled`: the double-talk path's echo-cancelled output for the same frame (a meter may look at it too). */
  push(mic: Int16Array, render: Int16Array | null, cancelled?: Int16Array): number;
}

export class DoubleTalkMeter implements EchoExcessMeter {
  private readonly farDb = new Float64Array(MAX_LAG_FRAMES + 1);
  private readonly farAmp = new Float64Array(MAX_LAG_FRAMES + 1);
  private readonly covariance = new Float64Array(MAX_LAG_FRAMES + 1);
  private readonly farVariance = new Float64Array(MAX_LAG_FRAMES + 1);
  private micVariance = 0;
  private micMean = 0;
  private farMean = 0;
  private activeFrames = 0;
  private readonly levels = new Float64Array(LEVEL_HISTORY_FRAMES);
  private levelCount = 0;
  private levelNext = 0;
  /** The predicted echo's level with the room's ringing, dB (as levelDb). */
  private tailDb = 0;
  private decayDbPerFrame = INITIAL_DECAY_DB_PER_FRAME;
  /** The mic since the last render offset, while its fall is being measured. */
  private offset: { beforeDb: number; frames: number; tailDb?: number } | undefined;
  private readonly recentMicDb = new Float64Array(2 * DELAY_SPREAD_FRAMES + 1);
  private framesWithoutRender = 0;
  private replies = 0;

  /** The echo's decay the meter has learnt, as a reverberation time (s): for reports. */
  get reverberationTimeS(): number {
    return 60 / this.decayDbPerFrame / 100;
  }

  /**
   * One 10 ms frame of microphone and the render played with it (null:
   * nothing playing). Returns the mic's excess over the predicted echo, dB;
   * +Infinity when loud mic meets no render, -Infinity when there is no
   * evidence (a quiet mic, or too little history to know the echo level).
   */
  push(mic: Int16Array, render: Int16Array | null): number {
    this.farDb.copyWithin(1, 0, MAX_LAG_FRAMES);
    this.farAmp.copyWithin(1, 0, MAX_LAG_FRAMES);
    this.farDb[0] = render ? levelDb(render) : 0;
    this.farAmp[0] = 10 ** (this.farDb[0] / 20);
    const micDb = levelDb(mic);
    if (this.farDb[0] < ACTIVE_LEVEL_DB) this.framesWithoutRender++;
    else {
      if (this.framesWithoutRender >= NEW_REPLY_GAP_FRAMES) {
        this.levelCount = 0;
        this.levelNext = 0;
        this.replies++;
      }
      this.framesWithoutRender = 0;
    }

    const directDb = this.predictedRenderDb();
    this.tailDb = Math.max(directDb, this.tailDb - this.decayDbPerFrame);
    const echoDb = this.tailDb;
    let excess = -Infinity;
    if (echoDb < ACTIVE_LEVEL_DB) {
      if (micDb >= ACTIVE_LEVEL_DB) excess = Infinity;
    } else {
      const level = micDb - echoDb;
      if (this.levelCount >= MIN_LEVEL_HISTORY_FRAMES) excess = level - this.levelPercentile();
      if (excess < FREEZE_EXCESS_DB) this.rememberLevel(level);
    }
    if (excess < FREEZE_EXCESS_DB && Math.max(...this.farDb) >= ACTIVE_LEVEL_DB) this.learnDelay(10 ** (micDb / 20));
    this.learnDecay(directDb, micDb, excess);
    return excess;
  }

  /**
   * After the render stops, how fast the mic falls is how fast the room dies
   * away: from two frames after the offset (past the direct sound's drop)
   * over the next eight; a mic already quiet two frames after is a dry room.
   */
  private learnDecay(directDb: number, micDb: number, excess: number): void {
    // The direct prediction spans the delay +-DELAY_SPREAD_FRAMES, so it falls that many frames after the mic's echo did.
    const before = Math.max(...this.recentMicDb);
    this.recentMicDb.copyWithin(1, 0);
    this.recentMicDb[0] = micDb;
    if (excess >= FREEZE_EXCESS_DB || directDb >= this.tailDb - OFFSET_DROP_DB) {
      this.offset = undefined; // someone talks, or the render goes on: not the room alone
      return;
    }
    if (!this.offset) {
      if (before >= ACTIVE_LEVEL_DB + DECAY_MEASURE_HEADROOM_DB) this.offset = { beforeDb: before, frames: 0 };
      return;
    }
    const offset = this.offset;
    offset.frames++;
    if (offset.frames === DIRECT_FRAMES) {
      if (micDb >= ACTIVE_LEVEL_DB) offset.tailDb = micDb;
      else {
        this.learnRate((offset.beforeDb - micDb) / DIRECT_FRAMES);
        this.offset = undefined;
      }
    } else if (offset.tailDb !== undefined && offset.frames === DIRECT_FRAMES + DECAY_MEASURE_FRAMES) {
      this.learnRate((offset.tailDb - micDb) / DECAY_MEASURE_FRAMES);
      this.offset = undefined;
    }
  }

  private learnRate(rate: number): void {
    const clamped = Math.min(MAX_DECAY_DB_PER_FRAME, Math.max(MIN_DECAY_DB_PER_FRAME, rate));
    this.decayDbPerFrame += DECAY_LEARNING_RATE * (clamped - this.decayDbPerFrame);
  }

  /** Counts the replies the echo level was learnt afresh for (each starts after a second without render). */
  get replyCount(): number {
    return this.replies;
  }

  /** The echo's decay the meter has learnt, dB per 10 ms frame. */
  get decayPerFrameDb(): number {
    return this.decayDbPerFrame;
  }

  /** The render frames (lags, 0 = this frame, inclusive) the echo in this frame is predicted from: the delay's spread, or the last 250 ms until the delay is known. */
  echoLags(): [number, number] {
    if (this.activeFrames < DELAY_WARMUP_FRAMES) return [0, FALLBACK_SPAN_FRAMES];
    const lag = this.delayFrames();
    return [Math.max(0, lag - DELAY_SPREAD_FRAMES), Math.min(MAX_LAG_FRAMES, lag + DELAY_SPREAD_FRAMES)];
  }

  /** The render level the echo in this frame came from, dB. */
  private predictedRenderDb(): number {
    const [from, to] = this.echoLags();
    return max(this.farDb, from, to);
  }

  /** The lag whose render envelope correlates best with the mic's. */
  private delayFrames(): number {
    let best = 0;
    let bestScore = -Infinity;
    for (let lag = 0; lag <= MAX_LAG_FRAMES; lag++) {
      const score = this.covariance[lag]! / Math.sqrt(this.farVariance[lag]! * this.micVariance + 1e-9);
      if (score > bestScore) [best, bestScore] = [lag, score];
    }
    return best;
  }

  /** Running (exponentially weighted) covariance of the mic's amplitude envelope with each lag of the render's. */
  private learnDelay(micAmp: number): void {
    const a = CORRELATION_ALPHA;
    this.activeFrames++;
    this.micMean += a * (micAmp - this.micMean);
    this.farMean += a * (this.farAmp[0]! - this.farMean);
    const dm = micAmp - this.micMean;
    this.micVariance += a * (dm * dm - this.micVariance);
    for (let lag = 0; lag <= MAX_LAG_FRAMES; lag++) {
      const df = this.farAmp[lag]! - this.farMean;
      this.covariance[lag]! += a * (dm * df - this.covariance[lag]!);
      this.farVariance[lag]! += a * (df * df - this.farVariance[lag]!);
    }
  }

  private rememberLevel(level: number): void {
    this.levels[this.levelNext] = level;
    this.levelNext = (this.levelNext + 1) % LEVEL_HISTORY_FRAMES;
    this.levelCount = Math.min(this.levelCount + 1, LEVEL_HISTORY_FRAMES);
  }

  /** numpy's linear-interpolated percentile of the kept levels. */
  private levelPercentile(): number {
    const sorted = this.levels.slice(0, this.levelCount).sort();
    const rank = LEVEL_PERCENTILE * (sorted.length - 1);
    const low = Math.floor(rank);
    const high = Math.ceil(rank);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
  }
}

/** 10 log10(mean square + 1) of int16 samples, dB. */
function levelDb(samples: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return 10 * Math.log10(sum / samples.length + 1);
}

function max(values: Float64Array, from: number, to: number): number {
  let m = -Infinity;
  for (let i = from; i <= to; i++) m = Math.max(m, values[i]!);
  return m;
}

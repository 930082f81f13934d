/**
 * How far the microphone rises above the echo that the speaker audio
 * predicts, per 10 ms frame, in dB: near 0 or below while only the echo is
 * heard, well above it once someone talks over the playback (double talk).
 * It works on frame energies, not waveforms, so it needs no converged echo
 * canceller: the echo level is the render's energy around the estimated
 * speaker-to-microphone delay, plus the level difference that echo-only
 * frames have shown (the 90th percentile of mic minus render, in dB).
 */

/** Lags tried for the delay, in 10 ms frames: 0..300 ms covers the AEC's own range of interest. */
const MAX_LAG_FRAMES = 30;
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

export class DoubleTalkMeter {
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

    const echoDb = this.predictedRenderDb();
    let excess = -Infinity;
    if (echoDb < ACTIVE_LEVEL_DB) {
      if (micDb >= ACTIVE_LEVEL_DB) excess = Infinity;
    } else {
      const level = micDb - echoDb;
      if (this.levelCount >= MIN_LEVEL_HISTORY_FRAMES) excess = level - this.levelPercentile();
      if (excess < FREEZE_EXCESS_DB) this.rememberLevel(level);
    }
    if (excess < FREEZE_EXCESS_DB && Math.max(...this.farDb) >= ACTIVE_LEVEL_DB) this.learnDelay(10 ** (micDb / 20));
    return excess;
  }

  /** The render level the echo in this frame came from, dB. */
  private predictedRenderDb(): number {
    if (this.activeFrames < DELAY_WARMUP_FRAMES) return max(this.farDb, 0, FALLBACK_SPAN_FRAMES);
    const lag = this.delayFrames();
    return max(this.farDb, Math.max(0, lag - DELAY_SPREAD_FRAMES), Math.min(MAX_LAG_FRAMES, lag + DELAY_SPREAD_FRAMES));
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

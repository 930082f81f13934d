/**
 * DoubleTalkMeter's question asked per frequency band: how far the mic
 * stands above the echo the speaker audio predicts. A whole-band level is
 * ruled by the echo's loudest band, so a voice over a loud reply shows
 * only in the reply's pauses; two voices seldom fill the same bands at the
 * same moment, and in the bands the reply leaves empty the user stands
 * well above its echo at once. The whole-band meter still finds the delay
 * and the room's decay; here each band's echo is the render's level in
 * that band at that delay, ringing down at the room's rate, plus the
 * band's own echo-path gain (the 90th percentile of mic minus echo over
 * frames the whole-band meter judged echo only). Bands within 10 dB of
 * their noise floor say nothing. The result is the `rank`-th largest band
 * excess (3rd by default: one band alone is often a harmonic of the
 * loudspeaker's distortion).
 */
import { BAND_COUNT, BandLevels } from '../audio/index.js';
import { DoubleTalkMeter, MAX_LAG_FRAMES, type EchoExcessMeter } from './double-talk-meter.js';

/** Frames the whole-band meter puts this far above the echo are double talk: they do not teach the band gains. */
const FREEZE_EXCESS_DB = 3;
const LEVEL_HISTORY_FRAMES = 200;
const LEVEL_PERCENTILE = 0.9;
const MIN_LEVEL_HISTORY_FRAMES = 30;
/** The band gains are re-read from their history this often (frames): sorting twenty histories every 10 ms is waste. */
const PERCENTILE_EVERY_FRAMES = 5;
/** A band counts once the mic is this far above the band's noise floor. */
const ABOVE_NOISE_DB = 10;
/** The noise floor follows a falling level at once and a rising one at this rate (dB per frame: 5 dB/s). */
const NOISE_RISE_DB_PER_FRAME = 0.05;

export interface BandDoubleTalkMeterOptions {
  /** Which band excess is reported, largest first (1 = the largest); default 3. */
  rank?: number;
  /**
   * Whose band levels are compared with the predicted echo: the raw
   * microphone ('mic', the default), or the double-talk path's
   * echo-cancelled output ('cancelled'), where the echo is what the
   * canceller left and a voice keeps its level. The delay and the room's
   * decay are found on the raw mic either way.
   */
  bandsFrom?: 'mic' | 'cancelled';
}

export class BandDoubleTalkMeter implements EchoExcessMeter {
  private readonly broadband = new DoubleTalkMeter();
  private readonly micBands = new BandLevels();
  private readonly renderBands = new BandLevels();
  /** Render band levels per lag (0 = this frame), dB. */
  private readonly renderHistory: Float64Array[] = Array.from({ length: MAX_LAG_FRAMES + 1 }, () => new Float64Array(BAND_COUNT));
  private readonly tailDb = new Float64Array(BAND_COUNT);
  private readonly noiseDb = new Float64Array(BAND_COUNT).fill(Infinity);
  private readonly levels = Array.from({ length: BAND_COUNT }, () => new Float64Array(LEVEL_HISTORY_FRAMES));
  private levelCount = 0;
  private levelNext = 0;
  private readonly gainDb = new Float64Array(BAND_COUNT);
  private framesSincePercentile = PERCENTILE_EVERY_FRAMES;
  private readonly micDb = new Float64Array(BAND_COUNT);
  private readonly excess = new Float64Array(BAND_COUNT);
  private readonly silence = new Int16Array(160);
  private readonly rank: number;
  private readonly bandsFrom: 'mic' | 'cancelled';
  private reply = 0;

  constructor(options: BandDoubleTalkMeterOptions = {}) {
    this.rank = Math.max(1, Math.min(BAND_COUNT, options.rank ?? 3));
    this.bandsFrom = options.bandsFrom ?? 'mic';
  }

  push(mic: Int16Array, render: Int16Array | null, cancelled?: Int16Array): number {
    const broad = this.broadband.push(mic, render);
    if (this.broadband.replyCount !== this.reply) {
      // A new reply: its band gains are learnt afresh with the whole-band level.
      this.reply = this.broadband.replyCount;
      this.levelCount = 0;
      this.levelNext = 0;
    }
    this.micBands.push(this.bandsFrom === 'cancelled' && cancelled ? cancelled : mic, this.micDb);
    const oldest = this.renderHistory.pop()!;
    this.renderHistory.unshift(this.renderBands.push(render ?? this.silence, oldest));
    for (let b = 0; b < BAND_COUNT; b++) {
      const noise = this.noiseDb[b]!;
      this.noiseDb[b] = Math.min(this.micDb[b]!, noise === Infinity ? this.micDb[b]! : noise + NOISE_RISE_DB_PER_FRAME);
    }
    const [from, to] = this.broadband.echoLags();
    const decay = this.broadband.decayPerFrameDb;
    for (let b = 0; b < BAND_COUNT; b++) {
      let direct = 0;
      for (let lag = from; lag <= to; lag++) direct = Math.max(direct, this.renderHistory[lag]![b]!);
      this.tailDb[b] = Math.max(direct, this.tailDb[b]! - decay);
    }
    // No render to predict from, or no evidence yet: the whole-band answer stands.
    if (!Number.isFinite(broad)) return broad;
    if (broad < FREEZE_EXCESS_DB) this.rememberLevels();
    if (this.levelCount < MIN_LEVEL_HISTORY_FRAMES) return broad;
    if (++this.framesSincePercentile >= PERCENTILE_EVERY_FRAMES) this.readGains();
    for (let b = 0; b < BAND_COUNT; b++) {
      const heard = this.micDb[b]! >= this.noiseDb[b]! + ABOVE_NOISE_DB;
      this.excess[b] = heard ? this.micDb[b]! - this.tailDb[b]! - this.gainDb[b]! : -Infinity;
    }
    // Sorted in place (the excesses are rebuilt every frame): no allocation in the 10 ms loop.
    return this.excess.sort()[BAND_COUNT - this.rank]!;
  }

  private rememberLevels(): void {
    for (let b = 0; b < BAND_COUNT; b++) this.levels[b]![this.levelNext] = this.micDb[b]! - this.tailDb[b]!;
    this.levelNext = (this.levelNext + 1) % LEVEL_HISTORY_FRAMES;
    this.levelCount = Math.min(this.levelCount + 1, LEVEL_HISTORY_FRAMES);
  }

  private readGains(): void {
    this.framesSincePercentile = 0;
    const rank = LEVEL_PERCENTILE * (this.levelCount - 1);
    const low = Math.floor(rank);
    const high = Math.ceil(rank);
    for (let b = 0; b < BAND_COUNT; b++) {
      const sorted = this.levels[b]!.slice(0, this.levelCount).sort();
      this.gainDb[b] = sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
    }
  }
}

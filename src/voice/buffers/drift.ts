/**
 * Capture-versus-render clock drift. Each side reports how many samples its
 * device delivered (capture) or consumed (render) and when, on one shared
 * clock; a least-squares slope over a sliding window gives each side's real
 * rate, and their ratio the drift. Beyond a tolerance the echo canceller's
 * reference slides away from the echo, so leftover echo can pass for a user
 * barge-in: the tracker then says to lower interruption confidence, until the
 * drift falls back under a lower threshold (hysteresis, so it does not flap).
 */
import { AppError } from '../../errors/index.js';
import { systemClock } from '../audio/index.js';

export type DriftSide = 'capture' | 'render';
export type DriftState = 'aligned' | 'drifting';

export interface DriftReport {
  /** 'detected' when drift passed the tolerance, 'recovered' when it fell back under recoverPpm. */
  phase: 'detected' | 'recovered';
  /** (capture rate / render rate - 1) in parts per million: positive when capture runs fast. */
  driftPpm: number;
  /** The same as ms of capture gained per second of render. */
  driftMsPerS: number;
  tolerancePpm: number;
  /** Wall time the estimate spans, in ms. */
  windowMs: number;
  atMs: number;
  /** True while drifting: interruption decisions should count for less. */
  lowerInterruptionConfidence: boolean;
}

export interface DriftTrackerOptions {
  /** Sliding window per side, in ms (default 5000: long enough that frame-arrival jitter averages out). */
  windowMs?: number;
  /** Drift that starts a 'detected' report, in ppm (default 1000 = 1 ms/s). */
  tolerancePpm?: number;
  /** Drift under which the state returns to aligned (default tolerancePpm / 2). */
  recoverPpm?: number;
  /** Wall time each side must span before drift is judged (default windowMs / 2). */
  minSpanMs?: number;
  /** A longer silence on one side (a stalled device, a stream restart) starts its window afresh (default 500). */
  maxGapMs?: number;
  clock?: { now(): number };
  onDrift?: (report: DriftReport) => void;
}

interface Point {
  atMs: number;
  /** Samples delivered up to and including this observation. */
  total: number;
}

export class DriftTracker {
  readonly windowMs: number;
  readonly tolerancePpm: number;
  readonly recoverPpm: number;
  private readonly minSpanMs: number;
  private readonly maxGapMs: number;
  private readonly clock: { now(): number };
  private readonly onDrift: ((report: DriftReport) => void) | undefined;
  private readonly points: Record<DriftSide, Point[]> = { capture: [], render: [] };
  private current: DriftState = 'aligned';
  private lastPpm: number | undefined;

  constructor(options: DriftTrackerOptions = {}) {
    this.windowMs = options.windowMs ?? 5000;
    this.tolerancePpm = options.tolerancePpm ?? 1000;
    this.recoverPpm = options.recoverPpm ?? this.tolerancePpm / 2;
    this.minSpanMs = options.minSpanMs ?? this.windowMs / 2;
    this.maxGapMs = options.maxGapMs ?? 500;
    const valid =
      this.windowMs > 0 && this.tolerancePpm > 0 && this.recoverPpm >= 0 && this.recoverPpm <= this.tolerancePpm &&
      this.minSpanMs > 0 && this.minSpanMs <= this.windowMs && this.maxGapMs > 0;
    if (!valid) throw new AppError('AUDIO_BUFFER_CONFIG_INVALID', 'drift tracker needs windowMs, tolerancePpm, minSpanMs, maxGapMs > 0, 0 <= recoverPpm <= tolerancePpm, minSpanMs <= windowMs');
    this.clock = options.clock ?? systemClock;
    this.onDrift = options.onDrift;
  }

  get state(): DriftState {
    return this.current;
  }

  /** True while drift is beyond tolerance and has not yet recovered. */
  get lowerInterruptionConfidence(): boolean {
    return this.current === 'drifting';
  }

  /** The latest estimate, or undefined while either side has too little history. */
  get driftPpm(): number | undefined {
    return this.lastPpm;
  }

  /** The capture device delivered `samples` (per channel) at `atMs` (default: now). */
  capture(samples: number, atMs?: number): DriftReport | undefined {
    return this.observe('capture', samples, atMs ?? this.clock.now());
  }

  /** The render device consumed `samples` (per channel) at `atMs` (default: now). */
  render(samples: number, atMs?: number): DriftReport | undefined {
    return this.observe('render', samples, atMs ?? this.clock.now());
  }

  /** Forgets both sides' history and returns to aligned, without a report (a new session, a device change). */
  reset(): void {
    this.points.capture = [];
    this.points.render = [];
    this.current = 'aligned';
    this.lastPpm = undefined;
  }

  private observe(side: DriftSide, samples: number, atMs: number): DriftReport | undefined {
    if (!(samples >= 0) || !Number.isFinite(atMs)) {
      throw new AppError('AUDIO_BUFFER_TIMESTAMP_INVALID', `drift ${side} observation of ${samples} samples at ${atMs} ms is not valid`);
    }
    let points = this.points[side];
    const last = points[points.length - 1];
    if (last && (atMs < last.atMs || atMs - last.atMs > this.maxGapMs)) points = this.points[side] = [];
    points.push({ atMs, total: (points[points.length - 1]?.total ?? 0) + samples });
    const cutoff = atMs - this.windowMs;
    let drop = 0;
    while (drop < points.length - 1 && points[drop]!.atMs < cutoff) drop++;
    if (drop > 0) points.splice(0, drop);
    return this.evaluate(atMs);
  }

  private evaluate(atMs: number): DriftReport | undefined {
    const capture = rateOf(this.points.capture, this.minSpanMs);
    const render = rateOf(this.points.render, this.minSpanMs);
    if (capture === undefined || render === undefined || render.rate <= 0) return undefined;
    const ppm = (capture.rate / render.rate - 1) * 1e6;
    this.lastPpm = ppm;
    const size = Math.abs(ppm);
    let phase: DriftReport['phase'] | undefined;
    if (this.current === 'aligned' && size > this.tolerancePpm) phase = 'detected';
    else if (this.current === 'drifting' && size <= this.recoverPpm) phase = 'recovered';
    if (!phase) return undefined;
    this.current = phase === 'detected' ? 'drifting' : 'aligned';
    const report: DriftReport = {
      phase,
      driftPpm: ppm,
      driftMsPerS: ppm / 1000,
      tolerancePpm: this.tolerancePpm,
      windowMs: Math.min(capture.spanMs, render.spanMs),
      atMs,
      lowerInterruptionConfidence: this.current === 'drifting',
    };
    this.onDrift?.(report);
    return report;
  }
}

/** Least-squares slope of samples over time (samples per ms), once the points span `minSpanMs`. */
function rateOf(points: readonly Point[], minSpanMs: number): { rate: number; spanMs: number } | undefined {
  if (points.length < 3) return undefined;
  const t0 = points[0]!.atMs;
  const spanMs = points[points.length - 1]!.atMs - t0;
  if (spanMs < minSpanMs) return undefined;
  // Centred sums keep the arithmetic exact enough with large timestamps and totals.
  let meanT = 0;
  let meanY = 0;
  for (const p of points) {
    meanT += p.atMs - t0;
    meanY += p.total;
  }
  meanT /= points.length;
  meanY /= points.length;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    const dt = p.atMs - t0 - meanT;
    sxy += dt * (p.total - meanY);
    sxx += dt * dt;
  }
  return sxx > 0 ? { rate: sxy / sxx, spanMs } : undefined;
}

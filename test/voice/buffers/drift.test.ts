import { describe, expect, it } from 'vitest';
import { DriftTracker, type DriftReport } from '../../../src/voice/buffers/index.js';

const FRAME = 320; // 20 ms at 16 kHz

/**
 * Plays both devices on one wall clock: each delivers 320-sample frames, every
 * 20 ms of its own clock; a device whose clock is `ratio` fast delivers them
 * every 20 / ratio ms of wall time. `jitterMs` shifts each arrival (not the
 * schedule) by a deterministic amount in [-jitter, +jitter].
 */
class Devices {
  captureAt = 0;
  renderAt = 0;
  private seed = 1;
  constructor(private readonly tracker: DriftTracker) {}

  run(untilMs: number, captureRatio: number, renderRatio = 1, jitterMs = 0): void {
    while (this.captureAt < untilMs || this.renderAt < untilMs) {
      if (this.captureAt <= this.renderAt) {
        this.tracker.capture(FRAME, this.captureAt + this.jitter(jitterMs));
        this.captureAt += 20 / captureRatio;
      } else {
        this.tracker.render(FRAME, this.renderAt + this.jitter(jitterMs));
        this.renderAt += 20 / renderRatio;
      }
    }
  }

  private jitter(ms: number): number {
    this.seed = (this.seed * 16807) % 2147483647;
    return ms === 0 ? 0 : ((this.seed / 2147483647) * 2 - 1) * ms;
  }
}

function tracker(reports: DriftReport[], options: ConstructorParameters<typeof DriftTracker>[0] = {}): DriftTracker {
  return new DriftTracker({ windowMs: 2000, tolerancePpm: 1000, clock: { now: () => 0 }, onDrift: (r) => reports.push(r), ...options });
}

describe('DriftTracker', () => {
  it('detects a capture clock running 1% fast and says to lower interruption confidence', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports);
    new Devices(drift).run(3000, 1.01);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.phase).toBe('detected');
    expect(reports[0]!.driftPpm).toBeCloseTo(10_000, -1);
    expect(reports[0]!.driftMsPerS).toBeCloseTo(10, 1);
    expect(reports[0]!.lowerInterruptionConfidence).toBe(true);
    expect(drift.state).toBe('drifting');
    expect(drift.lowerInterruptionConfidence).toBe(true);
    // not before each side spans minSpanMs (windowMs / 2)
    expect(reports[0]!.atMs).toBeGreaterThanOrEqual(1000);
  });

  it('sees a slow capture clock as negative drift', () => {
    const reports: DriftReport[] = [];
    new Devices(tracker(reports)).run(3000, 0.99);
    expect(reports[0]?.driftPpm).toBeCloseTo(-10_000, -2);
  });

  it('stays aligned when the clocks agree, even with arrival jitter', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports, { windowMs: 5000 });
    new Devices(drift).run(20_000, 1, 1, 2);
    expect(reports).toEqual([]);
    expect(drift.state).toBe('aligned');
    expect(drift.lowerInterruptionConfidence).toBe(false);
    expect(Math.abs(drift.driftPpm!)).toBeLessThan(300);
  });

  it('judges nothing while either side has too little history', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports);
    new Devices(drift).run(900, 1.05);
    expect(drift.driftPpm).toBeUndefined();
    expect(reports).toEqual([]);
    for (let t = 0; t < 5000; t += 20) drift.capture(FRAME * 1.05, t); // capture alone
    expect(reports).toEqual([]);
  });

  it('keeps lowering confidence until drift falls under the recovery threshold (hysteresis)', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports); // tolerance 1000 ppm, recovers at 500
    const devices = new Devices(drift);
    devices.run(3000, 1.01);
    expect(drift.state).toBe('drifting');
    devices.run(10_000, 1.0007); // 700 ppm: under tolerance, over recovery
    expect(reports.map((r) => r.phase)).toEqual(['detected']);
    expect(drift.driftPpm).toBeCloseTo(700, -2);
    expect(drift.lowerInterruptionConfidence).toBe(true);
    devices.run(15_000, 1);
    expect(reports.map((r) => r.phase)).toEqual(['detected', 'recovered']);
    expect(Math.abs(reports[1]!.driftPpm)).toBeLessThanOrEqual(500);
    expect(reports[1]!.lowerInterruptionConfidence).toBe(false);
    expect(drift.lowerInterruptionConfidence).toBe(false);
  });

  it('does not trigger on drift between the two thresholds when aligned', () => {
    const reports: DriftReport[] = [];
    new Devices(tracker(reports)).run(10_000, 1.0007);
    expect(reports).toEqual([]);
  });

  it('starts a side afresh after a gap instead of reading the stall as drift', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports);
    const devices = new Devices(drift);
    devices.run(3000, 1);
    devices.captureAt += 1000; // the microphone stalled for a second
    devices.run(6000, 1);
    expect(reports).toEqual([]);
  });

  it('forgets history and returns to aligned on reset', () => {
    const reports: DriftReport[] = [];
    const drift = tracker(reports);
    new Devices(drift).run(3000, 1.01);
    drift.reset();
    expect(drift.state).toBe('aligned');
    expect(drift.driftPpm).toBeUndefined();
  });

  it('takes the time from the injected clock when none is given', () => {
    let now = 0;
    const reports: DriftReport[] = [];
    const drift = tracker(reports, { clock: { now: () => now } });
    for (; now <= 3000; now += 20) {
      drift.capture(FRAME * 1.01);
      drift.render(FRAME);
    }
    expect(reports.map((r) => r.phase)).toEqual(['detected']);
  });

  it('rejects settings where recovery is above tolerance', () => {
    expect(() => new DriftTracker({ tolerancePpm: 100, recoverPpm: 200 })).toThrow(expect.objectContaining({ code: 'AUDIO_BUFFER_CONFIG_INVALID' }));
  });
});

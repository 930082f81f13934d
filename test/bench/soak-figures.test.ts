import { describe, expect, it } from 'vitest';
import { createAssistantBus } from '../../src/events/index.js';
import { Metrics } from '../../src/host/http/index.js';
import { growthPct, latencyP95, slopePerHour, parseDaemonInside, sampleTable, soakFigures, soakPlan, type SoakCensus, type SoakSample } from '../support/soak-figures.js';

const MIB = 2 ** 20;

/** A sample every 10 s over `minutes`, RSS and heap from the given functions of the time in s. */
function samples(minutes: number, rss: (s: number) => number, heap: (s: number) => number = rss): SoakSample[] {
  return Array.from({ length: (minutes * 60) / 10 }, (_, i) => {
    const atS = (i + 1) * 10;
    return { atS, rssBytes: rss(atS), heapUsedBytes: heap(atS), fds: 40, children: 3, loopDelayP99Ms: 2, loopDelayMaxMs: 5, turns: 1, turnLatencyP50Ms: 700 };
  });
}

const census = (fds: number, children: number): SoakCensus => ({ atS: 0, fds, children, childNames: 'node x3', fdNames: 'socket x40' });

describe('soak plan', () => {
  it('is the issue\'s for 60 minutes and the same proportions for a short run', () => {
    expect(soakPlan(60)).toEqual({ durationS: 3600, warmUpS: 300, windowS: 600, edgeS: 60 });
    expect(soakPlan(4)).toEqual({ durationS: 240, warmUpS: 20, windowS: 60, edgeS: 30 });
    expect(soakPlan(12).windowS).toBe(120);
  });

  it('refuses a duration that is not a positive number, naming the variable', () => {
    expect(() => soakPlan(Number('ten'))).toThrow(/SOAK_MINUTES/);
    expect(() => soakPlan(0)).toThrow(/SOAK_MINUTES/);
  });
});

describe('soak growth and latency', () => {
  it('measures growth from the medians of the first and last minute after the warm-up', () => {
    const plan = soakPlan(60);
    // Flat at 100 MiB except during the warm-up, which the figure leaves out.
    expect(growthPct(samples(60, (s) => (s < 300 ? 50 * MIB : 100 * MIB)), (x) => x.rssBytes, plan)).toBe(0);
    // 100 MiB just after the warm-up, 110 MiB in the last minute: 10%.
    const stepped = samples(60, (s) => (s >= 3540 ? 110 * MIB : 100 * MIB));
    expect(growthPct(stepped, (x) => x.rssBytes, plan)).toBeCloseTo(10, 6);
    // A single spike does not move a median.
    const spiked = samples(60, (s) => (s === 3600 ? 300 * MIB : 100 * MIB));
    expect(growthPct(spiked, (x) => x.rssBytes, plan)).toBe(0);
  });

  it('can measure by the floor of each stretch, where a heap saws between collections', () => {
    const plan = soakPlan(60);
    // 30 MiB live, up to 40 between collections, at every phase of the saw: no growth by the floor.
    const saw = samples(60, (s) => (30 + ((s / 10) % 4) * 3) * MIB);
    expect(growthPct(saw, (x) => x.rssBytes, plan, 'floor')).toBe(0);
    const leaking = samples(60, (s) => (30 + ((s / 10) % 4) * 3 + (s >= 3540 ? 3 : 0)) * MIB);
    expect(growthPct(leaking, (x) => x.rssBytes, plan, 'floor')).toBeCloseTo(10, 6);
  });

  it('extrapolates growth after the warm-up to an hour by its least-squares slope', () => {
    const plan = soakPlan(4);
    // 1 MiB a minute after the warm-up, 50 MiB more during it (left out).
    const rising = samples(4, (s) => (s < 20 ? 50 * MIB : 100 * MIB + (s / 60) * MIB));
    expect(slopePerHour(rising, (x) => x.rssBytes / MIB, plan)).toBeCloseTo(60, 6);
    expect(slopePerHour(samples(4, () => MIB), (x) => x.rssBytes, plan)).toBe(0);
  });

  it('takes p95 over the turns inside a window only', () => {
    const turns = [10, 20, 30, 40].flatMap((atS) => [{ atS, latencyMs: atS * 10 }]);
    expect(latencyP95(turns, 20, 40)).toBeCloseTo(295, 6);
    expect(latencyP95(turns, 100, 200)).toBeNaN();
  });

  it('meets every goal for a flat run and names each goal a run misses', () => {
    const plan = soakPlan(60);
    const turns = Array.from({ length: 360 }, (_, i) => ({ atS: i * 10, latencyMs: 700 + (i % 7) }));
    const flat = soakFigures({ plan, samples: samples(60, () => 100 * MIB), turns, warmUpCensus: census(40, 3), endCensus: census(40, 3) });
    expect(flat).toMatchObject({ rss_growth_pct: 0, heap_growth_pct: 0, fds_warm_up: 40, fds_end: 40, children_end: 3, loop_delay_p99_max_ms: 2, goals_missed: 'none' });

    const slower = turns.map((t) => ({ ...t, latencyMs: t.atS >= 3000 ? 900 : t.latencyMs }));
    const bad = soakFigures({
      plan,
      samples: samples(60, (s) => (s >= 3540 ? 106 * MIB : 100 * MIB), () => 100 * MIB).map((s) => (s.atS === 1200 ? { ...s, loopDelayP99Ms: 12 } : s)),
      turns: slower,
      warmUpCensus: census(40, 3),
      endCensus: census(41, 4),
    });
    expect(bad.turn_latency_p95_first_window_ms).toBe(706);
    expect(bad.turn_latency_p95_last_window_ms).toBe(900);
    expect(String(bad.goals_missed).split(', ')).toEqual(['rss_growth', 'fds_flat', 'children_flat', 'loop_delay_p99', 'turn_latency_drift']);
  });

  it('counts a run without its censuses as missing the flat goals, not meeting them', () => {
    const figures = soakFigures({ plan: soakPlan(4), samples: samples(4, () => MIB), turns: [] });
    expect(String(figures.goals_missed)).toContain('fds_flat');
    expect(String(figures.goals_missed)).toContain('turn_latency_drift');
  });
});

describe('soak sample table', () => {
  it('has a header and one right-aligned row a sample, with dashes where no turn was answered', () => {
    const rows = sampleTable([{ atS: 70, rssBytes: 150 * MIB, heapUsedBytes: 40.25 * MIB, fds: 52, children: 4, loopDelayP99Ms: 3.14, loopDelayMaxMs: 20, turns: 0 }]).split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]!.trim().split(/\s{2,}/)).toEqual(['time', 'rss MiB', 'heap MiB', 'fds', 'children', 'loop p99 ms', 'loop max ms', 'turns', 'latency p50 ms']);
    expect(rows[1]!.trim().split(/\s+/)).toEqual(['1:10', '150.0', '40.3', '52', '4', '3.1', '20.0', '0', '-']);
    expect(rows[0]!.length).toBe(rows[1]!.length);
  });

  it('thins a long run to at most the rows asked for, keeping the last sample', () => {
    const rows = sampleTable(samples(60, () => MIB), 40).split('\n').slice(1);
    expect(rows.length).toBeLessThanOrEqual(41);
    expect(rows[0]!.trim().startsWith('0:10')).toBe(true);
    expect(rows.at(-1)!.trim().startsWith('60:00')).toBe(true);
  });
});

describe('the daemon\'s /metrics for the soak', () => {
  it('reads the event-loop delay and heap that Metrics renders', () => {
    const metrics = new Metrics(createAssistantBus());
    try {
      const inside = parseDaemonInside(metrics.render());
      expect(inside.heapUsedBytes).toBeGreaterThan(MIB);
      expect(inside.loopDelayP99Ms).toBeGreaterThanOrEqual(0);
      expect(inside.loopDelayMaxMs).toBeGreaterThanOrEqual(inside.loopDelayP99Ms);
    } finally {
      metrics.close();
    }
  });

  it('names the value a daemon without them lacks', () => {
    expect(() => parseDaemonInside('desktop_assistant_heap_used_bytes 5\n')).toThrow(/desktop_assistant_event_loop_delay_ms\{quantile="0.99"\}/);
  });
});

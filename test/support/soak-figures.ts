/**
 * The soak's arithmetic (bench/soak.ts), kept pure and here for its unit test: the run's phases for a
 * duration, the figures issue 25 holds it to (growth after the warm-up,
 * descriptors and children flat, event-loop delay, turn latency early and
 * late) and the sample table.
 */
import { percentile, round } from './stats.js';

/** Flat figures, as a benchmark reports them (bench/lib/benchmark.ts; tests do not import bench/). */
type Figures = Record<string, number | string>;

/** One sample of the daemon, every 10 s. */
export interface SoakSample {
  /** Seconds since the soak began. */
  atS: number;
  rssBytes: number;
  heapUsedBytes: number;
  fds: number;
  children: number;
  /** The daemon's event-loop delay over the interval since the previous sample. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Turns answered in the interval, and their latencies (end of speech to the answer's first sound). */
  turns: number;
  turnLatencyP50Ms?: number;
  turnLatencyMaxMs?: number;
}

/** Descriptors and descendants counted at a quiet moment: no turn, no reply playing, no page client connected. */
export interface SoakCensus {
  atS: number;
  fds: number;
  children: number;
  /** The descendants by name (`node x3`). */
  childNames: string;
  /** The descriptors by kind (`socket x20, pipe x8, /dev/null x2, ...`). */
  fdNames: string;
}

/** One answered turn: when it was answered and its latency. */
export interface SoakTurn {
  atS: number;
  latencyMs: number;
}

export interface SoakPlan {
  durationS: number;
  /** Left out of the growth figures: 5 minutes of 60, the same twelfth of a shorter run. */
  warmUpS: number;
  /** The early and late stretches whose turn latencies are compared: 10 minutes of 60, a sixth of a shorter run, at least a minute (6 turns or so). */
  windowS: number;
  /** The stretch at each end of the rest whose median is a growth figure's start and end: a minute of 60, at least 30 s. */
  edgeS: number;
}

/** The goals. */
export const SOAK_GOALS = { rssGrowthPct: 5, heapGrowthPct: 5, loopDelayP99Ms: 10, latencyDriftPct: 10 } as const;

export function soakPlan(minutes: number): SoakPlan {
  if (!(Number.isFinite(minutes) && minutes > 0)) throw new Error(`SOAK_MINUTES must be a number of minutes > 0, not ${minutes}`);
  const durationS = minutes * 60;
  return { durationS, warmUpS: Math.min(300, durationS / 12), windowS: Math.max(60, Math.min(600, durationS / 6)), edgeS: Math.max(30, Math.min(60, durationS / 60)) };
}

/**
 * (end - start) / start in %, from the first and last `edgeS` after the warm-up; NaN without samples there.
 * Each stretch counts by its median, or by its least value with `floor`: the V8 heap's used size saws up
 * and down between collections, and its floor is what stays live.
 */
export function growthPct(samples: readonly SoakSample[], pick: (s: SoakSample) => number, plan: SoakPlan, by: 'median' | 'floor' = 'median'): number {
  const rest = samples.filter((s) => s.atS >= plan.warmUpS);
  if (rest.length === 0) return Number.NaN;
  const firstAt = rest[0]!.atS;
  const lastAt = rest.at(-1)!.atS;
  const reduce = (values: number[]): number => (by === 'floor' ? Math.min(...values) : percentile(values, 50));
  const from = reduce(rest.filter((s) => s.atS <= firstAt + plan.edgeS).map(pick));
  const to = reduce(rest.filter((s) => s.atS >= lastAt - plan.edgeS).map(pick));
  return ((to - from) / from) * 100;
}

/** The least-squares slope of `pick` after the warm-up, per hour: a short run's growth extrapolated, where the medians see only noise. */
export function slopePerHour(samples: readonly SoakSample[], pick: (s: SoakSample) => number, plan: SoakPlan): number {
  const rest = samples.filter((s) => s.atS >= plan.warmUpS);
  if (rest.length < 2) return Number.NaN;
  const meanX = rest.reduce((sum, s) => sum + s.atS, 0) / rest.length;
  const meanY = rest.reduce((sum, s) => sum + pick(s), 0) / rest.length;
  const covariance = rest.reduce((sum, s) => sum + (s.atS - meanX) * (pick(s) - meanY), 0);
  const variance = rest.reduce((sum, s) => sum + (s.atS - meanX) ** 2, 0);
  return (covariance / variance) * 3600;
}

/** p95 of the latencies of the turns answered in [fromS, toS); NaN when none were. */
export function latencyP95(turns: readonly SoakTurn[], fromS: number, toS: number): number {
  const inside = turns.filter((t) => t.atS >= fromS && t.atS < toS).map((t) => t.latencyMs);
  return inside.length === 0 ? Number.NaN : percentile(inside, 95);
}

export interface SoakRecord {
  plan: SoakPlan;
  samples: readonly SoakSample[];
  turns: readonly SoakTurn[];
  warmUpCensus?: SoakCensus;
  endCensus?: SoakCensus;
}

/** The figures of a run, and which goals it missed (`goals_missed`: none, or their names). */
export function soakFigures(record: SoakRecord): Figures {
  const { plan, samples, turns } = record;
  const rest = samples.filter((s) => s.atS >= plan.warmUpS);
  const lastS = samples.at(-1)?.atS ?? plan.durationS;
  const earlyP95 = latencyP95(turns, plan.warmUpS, plan.warmUpS + plan.windowS);
  const lateP95 = latencyP95(turns, lastS - plan.windowS, Number.POSITIVE_INFINITY);
  const figures = {
    rss_growth_pct: round(growthPct(samples, (s) => s.rssBytes, plan), 2),
    heap_growth_pct: round(growthPct(samples, (s) => s.heapUsedBytes, plan, 'floor'), 2),
    rss_slope_mib_per_hour: round(slopePerHour(samples, (s) => s.rssBytes / 2 ** 20, plan), 1),
    rss_end_mib: rest.length > 0 ? round(rest.at(-1)!.rssBytes / 2 ** 20, 1) : Number.NaN,
    loop_delay_p99_max_ms: rest.length > 0 ? round(Math.max(...rest.map((s) => s.loopDelayP99Ms)), 2) : Number.NaN,
    loop_delay_max_ms: rest.length > 0 ? round(Math.max(...rest.map((s) => s.loopDelayMaxMs)), 2) : Number.NaN,
    fds_warm_up: record.warmUpCensus?.fds ?? Number.NaN,
    fds_end: record.endCensus?.fds ?? Number.NaN,
    children_warm_up: record.warmUpCensus?.children ?? Number.NaN,
    children_end: record.endCensus?.children ?? Number.NaN,
    turn_latency_p95_first_window_ms: round(earlyP95, 1),
    turn_latency_p95_last_window_ms: round(lateP95, 1),
    turn_latency_drift_pct: round(((lateP95 - earlyP95) / earlyP95) * 100, 1),
  };
  const missed = [
    !(figures.rss_growth_pct <= SOAK_GOALS.rssGrowthPct) && 'rss_growth',
    !(figures.heap_growth_pct <= SOAK_GOALS.heapGrowthPct) && 'heap_growth',
    !(figures.fds_end === figures.fds_warm_up) && 'fds_flat',
    !(figures.children_end === figures.children_warm_up) && 'children_flat',
    !(figures.loop_delay_p99_max_ms <= SOAK_GOALS.loopDelayP99Ms) && 'loop_delay_p99',
    !(Math.abs(figures.turn_latency_drift_pct) <= SOAK_GOALS.latencyDriftPct) && 'turn_latency_drift',
  ].filter((m): m is string => m !== false);
  return { ...figures, goals_missed: missed.length === 0 ? 'none' : missed.join(', ') };
}

const COLUMNS = ['time', 'rss MiB', 'heap MiB', 'fds', 'children', 'loop p99 ms', 'loop max ms', 'turns', 'latency p50 ms'] as const;

/** One sample as the table's cells. */
export function sampleRow(s: SoakSample): string[] {
  const minutes = Math.floor(s.atS / 60);
  const seconds = String(Math.round(s.atS % 60)).padStart(2, '0');
  const ms = (v: number | undefined, digits = 0): string => (v === undefined ? '-' : v.toFixed(digits));
  return [`${minutes}:${seconds}`, (s.rssBytes / 2 ** 20).toFixed(1), (s.heapUsedBytes / 2 ** 20).toFixed(1), String(s.fds), String(s.children), ms(s.loopDelayP99Ms, 1), ms(s.loopDelayMaxMs, 1), String(s.turns), ms(s.turnLatencyP50Ms)];
}

/** The samples as a text table, right-aligned; at most `maxRows` rows (every k-th sample, and always the last). */
export function sampleTable(samples: readonly SoakSample[], maxRows = 40): string {
  const step = Math.max(1, Math.ceil(samples.length / maxRows));
  const shown = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
  const rows = [[...COLUMNS], ...shown.map(sampleRow)];
  const widths = COLUMNS.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padStart(widths[c]!)).join('  ')).join('\n');
}

/** The daemon's own figures, from its GET /metrics text: the event-loop delay since the previous scrape and the V8 heap. */
export interface DaemonInside {
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  heapUsedBytes: number;
}

/** The three values from the Prometheus text; an error that names the one missing. */
export function parseDaemonInside(text: string): DaemonInside {
  const value = (name: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    const parsed = line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
    if (!Number.isFinite(parsed)) throw new Error(`GET /metrics has no ${name} (a daemon built before the event-loop figures? run npm run build)`);
    return parsed;
  };
  return {
    loopDelayP99Ms: value('desktop_assistant_event_loop_delay_ms{quantile="0.99"}'),
    loopDelayMaxMs: value('desktop_assistant_event_loop_delay_ms_max'),
    heapUsedBytes: value('desktop_assistant_heap_used_bytes'),
  };
}

/** A monotonic timestamp in nanoseconds; see `elapsedMs`. */
export function now(): bigint {
  return process.hrtime.bigint();
}

/** Milliseconds since a `now()` timestamp, with sub-microsecond resolution. */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` once and returns how long it took, in milliseconds. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = now();
  await fn();
  return elapsedMs(start);
}

/**
 * The p-th percentile (0..100) by linear interpolation between the two
 * nearest ranks (numpy's default), so p50 of an even count is the mean of
 * the middle two. Throws on an empty sample: a figure from nothing is a bug.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError('percentile of an empty sample');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile out of range: ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const low = sorted[lower] as number;
  const high = sorted[upper] as number;
  return low + (high - low) * (rank - lower);
}

export function p50(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function p95(samples: readonly number[]): number {
  return percentile(samples, 95);
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError('mean of an empty sample');
  return samples.reduce((sum, x) => sum + x, 0) / samples.length;
}

/** Rounds a figure for the report; microseconds are plenty for process spawns. */
export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** `{name}_p50_ms`, `{name}_p95_ms` (and `{name}_mean_ms` when asked): the figures of one arm. */
export function distribution(name: string, samples: readonly number[], withMean = false): Record<string, number> {
  return {
    [`${name}_p50_ms`]: round(p50(samples)),
    [`${name}_p95_ms`]: round(p95(samples)),
    ...(withMean ? { [`${name}_mean_ms`]: round(mean(samples)) } : {}),
  };
}

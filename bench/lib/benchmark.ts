/** What a benchmark reports: flat figures, so one JSON line holds them all. */
export type Figures = Record<string, number | string>;

export interface BenchmarkRunOptions {
  /** Aborted on Ctrl-C: stop measuring, clean up, and throw. */
  signal?: AbortSignal;
}

/**
 * One benchmark: `bench/<name>.ts` exports one of these and `bench/run.ts`
 * lists it. `run()` may write progress to stderr, never to stdout: the
 * runner owns stdout and prints the figures there as one JSON line.
 */
export interface Benchmark {
  name: string;
  description: string;
  run(options?: BenchmarkRunOptions): Promise<Figures>;
}

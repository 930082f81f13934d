/**
 * Every 10 s, one sample of the daemon: from /proc its resident memory,
 * descriptors and descendants; from its GET /metrics its V8 heap and its
 * event-loop delay since the previous sample; from the soak's turns those
 * answered in the interval.
 */
import { percentile } from '../../test/support/stats.js';
import type { SoakCensus, SoakSample, SoakTurn } from '../../test/support/soak-figures.js';
import { scrapeDaemonInside } from './soak-metrics.js';
import { describeDescendants, describeDescriptors, descendants, openDescriptors, rssBytes, type KnownPorts } from './soak-proc.js';

export const SAMPLE_EVERY_MS = 10_000;

export interface SamplerTarget {
  pid: number;
  ports: KnownPorts;
  url: string;
  token: string;
  /** Date.now() when the soak began. */
  startedAtMs: number;
  /** The answered turns so far, appended to as they come. */
  turns: readonly SoakTurn[];
}

export class SoakSampler {
  readonly samples: SoakSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private taking: Promise<void> = Promise.resolve();
  private turnsSeen = 0;
  /** The first sample that failed (the daemon gone, /metrics refused), for the report. */
  failure: string | undefined;

  constructor(
    private readonly target: SamplerTarget,
    private readonly onSample: (sample: SoakSample) => void,
  ) {}

  async start(): Promise<void> {
    // The first scrape resets the daemon's loop-delay histogram, so the first sample covers 10 s like the rest.
    await scrapeDaemonInside(this.target.url, this.target.token);
    // take() catches its own failures (they become `failure`); stop() awaits the last one.
    this.timer = setInterval(() => {
      this.taking = this.take();
    }, SAMPLE_EVERY_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.taking;
  }

  /** Descriptors and descendants now, by name. */
  census(): SoakCensus {
    const { pid, startedAtMs } = this.target;
    const children = descendants(pid);
    return { atS: (Date.now() - startedAtMs) / 1000, fds: openDescriptors(pid), children: children.length, childNames: describeDescendants(children), fdNames: describeDescriptors(pid, this.target.ports) };
  }

  private async take(): Promise<void> {
    const { pid, url, token, startedAtMs, turns } = this.target;
    try {
      const inside = await scrapeDaemonInside(url, token);
      const fresh = turns.slice(this.turnsSeen).map((t) => t.latencyMs);
      this.turnsSeen = turns.length;
      const sample: SoakSample = {
        atS: Math.round((Date.now() - startedAtMs) / 100) / 10,
        rssBytes: rssBytes(pid),
        heapUsedBytes: inside.heapUsedBytes,
        fds: openDescriptors(pid),
        children: descendants(pid).length,
        loopDelayP99Ms: inside.loopDelayP99Ms,
        loopDelayMaxMs: inside.loopDelayMaxMs,
        turns: fresh.length,
        ...(fresh.length > 0 ? { turnLatencyP50Ms: percentile(fresh, 50), turnLatencyMaxMs: Math.max(...fresh) } : {}),
      };
      this.samples.push(sample);
      this.onSample(sample);
    } catch (error) {
      this.failure ??= `sample at ${Math.round((Date.now() - startedAtMs) / 1000)} s: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}

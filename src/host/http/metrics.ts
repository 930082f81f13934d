import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { AssistantBus } from '../../events/index.js';

/** Samples kept per stage for the quantiles: recent behaviour, bounded memory. */
const WINDOW = 1000;
/** How often the event-loop monitor's timer fires, ms: finer than the 10 ms a soak holds the p99 to. */
const LOOP_RESOLUTION_MS = 5;

/**
 * Counts and per-stage latencies from the event bus, rendered in the
 * Prometheus text format for GET /metrics.
 */
export class Metrics {
  private readonly events = new Map<string, number>();
  private readonly toolCalls = new Map<string, number>();
  private readonly latencies = new Map<string, { samples: number[]; sum: number; count: number }>();
  private readonly stop: () => void;
  /** The event loop's delay since the last GET /metrics: a long run's scrapes each see their own interval. */
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

  constructor(bus: AssistantBus) {
    this.loopDelay.enable();
    this.stop = bus.subscribe((event) => {
      bump(this.events, event.type);
      if (event.type === 'llm.first_token') this.observe('llm_first_token', event.latencyMs);
      if (event.type === 'turn.ended') this.observe('turn', event.durationMs);
      if (event.type === 'tool.ended') {
        this.observe('tool_call', event.durationMs);
        bump(this.toolCalls, `${event.tool}\u0000${event.status}`);
      }
    });
  }

  close(): void {
    this.stop();
    this.loopDelay.disable();
  }

  /** The latest figures per stage, for /state and the page. */
  latest(): Record<string, { p50: number; p95: number; count: number }> {
    const out: Record<string, { p50: number; p95: number; count: number }> = {};
    for (const [stage, l] of this.latencies) out[stage] = { p50: quantile(l.samples, 0.5), p95: quantile(l.samples, 0.95), count: l.count };
    return out;
  }

  render(): string {
    const lines: string[] = [];
    lines.push('# HELP desktop_assistant_events_total Events on the bus, by type.', '# TYPE desktop_assistant_events_total counter');
    for (const [type, n] of sorted(this.events)) lines.push(`desktop_assistant_events_total{type="${label(type)}"} ${n}`);
    lines.push('# HELP desktop_assistant_tool_calls_total Tool calls through the router, by tool and status.', '# TYPE desktop_assistant_tool_calls_total counter');
    for (const [key, n] of sorted(this.toolCalls)) {
      const [tool, status] = key.split('\u0000');
      lines.push(`desktop_assistant_tool_calls_total{tool="${label(tool ?? '')}",status="${label(status ?? '')}"} ${n}`);
    }
    lines.push(
      '# HELP desktop_assistant_stage_latency_ms Latency per stage in milliseconds (quantiles over the last 1000).',
      '# TYPE desktop_assistant_stage_latency_ms summary',
    );
    for (const [stage, l] of sorted(this.latencies)) {
      for (const q of [0.5, 0.95]) lines.push(`desktop_assistant_stage_latency_ms{stage="${stage}",quantile="${q}"} ${quantile(l.samples, q)}`);
      lines.push(`desktop_assistant_stage_latency_ms_sum{stage="${stage}"} ${l.sum}`, `desktop_assistant_stage_latency_ms_count{stage="${stage}"} ${l.count}`);
    }
    lines.push(...this.processLines());
    return `${lines.join('\n')}\n`;
  }

  /** The event loop's delay since the previous render (then reset), and the V8 heap in use now. */
  private processLines(): string[] {
    const loop = this.loopDelay;
    // Nanoseconds in the histogram; an interval with no tick yet reads 0 rather than its NaN mean.
    const ms = (ns: number): number => (loop.count === 0 ? 0 : Math.round(ns / 1e3) / 1e3);
    const lines = [
      '# HELP desktop_assistant_event_loop_delay_ms Event-loop delay since the previous scrape of /metrics, in milliseconds.',
      '# TYPE desktop_assistant_event_loop_delay_ms summary',
      ...[0.5, 0.99].map((q) => `desktop_assistant_event_loop_delay_ms{quantile="${q}"} ${ms(loop.percentile(q * 100))}`),
      `desktop_assistant_event_loop_delay_ms_max ${ms(loop.max)}`,
      `desktop_assistant_event_loop_delay_ms_count ${loop.count}`,
      '# HELP desktop_assistant_heap_used_bytes V8 heap in use.',
      '# TYPE desktop_assistant_heap_used_bytes gauge',
      `desktop_assistant_heap_used_bytes ${getHeapStatistics().used_heap_size}`,
    ];
    loop.reset();
    return lines;
  }

  private observe(stage: string, ms: number): void {
    let l = this.latencies.get(stage);
    if (!l) this.latencies.set(stage, (l = { samples: [], sum: 0, count: 0 }));
    l.samples.push(ms);
    if (l.samples.length > WINDOW) l.samples.shift();
    l.sum += ms;
    l.count += 1;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function sorted<V>(map: Map<string, V>): [string, V][] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return 0;
  const ordered = [...samples].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.floor(q * ordered.length))] ?? 0;
}

/** Label values escaped as the text format asks. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * The barge-in bench's figures for one room, each canceller on a row, as a
 * Markdown table (the columns of BENCHMARKS.md's "barge-in in rooms"), for
 * reading the two side by side as the run goes.
 */
import type { Figures } from './benchmark.js';

const HEADER = [
  '| room | canceller | false interruptions, echo-only (false turns) | caught | onset to stop p50 / p95 | WER interrupting / no-echo baseline (gap) | canceller CPU per 10 ms frame, cleaned + double talk | minutes |',
  '|---|---|---|---|---|---|---|---|',
];

/** The table: a row per canceller that ran, or the reason one failed. */
export function roomSummary(room: string, byCanceller: ReadonlyArray<{ canceller: string; figures?: Figures; failed?: string }>): string {
  const rows = byCanceller.map(({ canceller, figures: f, failed }) => {
    if (!f) return `| ${room} | ${canceller} | failed: ${failed ?? 'no figures'} | | | | | |`;
    const cpu = f.cleaned_cpu_ms_per_frame === undefined ? 'n/a' : `${f.cleaned_cpu_ms_per_frame} + ${f.double_talk_cpu_ms_per_frame} ms`;
    return [
      '',
      room,
      canceller,
      `${f.false_interruptions} of ${f.echo_trials} (${f.false_turns})`,
      `${f.detections} of ${f.speech_trials} (${percent(f.detection_rate)})`,
      `${f.latency_p50_ms ?? 'n/a'} / ${f.latency_p95_ms ?? 'n/a'} ms`,
      `${f.wer_interrupting} / ${f.wer_no_echo_baseline} (${signed(f.wer_gap)})`,
      cpu,
      String(f.minutes),
      '',
    ].join(' | ').trim();
  });
  return [...HEADER, ...rows].join('\n');
}

function percent(rate: number | string | undefined): string {
  return typeof rate === 'number' ? `${Math.round(rate * 1000) / 10}%` : 'n/a';
}

function signed(value: number | string | undefined): string {
  return typeof value === 'number' && value > 0 ? `+${value}` : String(value);
}

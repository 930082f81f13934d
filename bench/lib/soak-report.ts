/**
 * The soak's counts beside its growth figures: turns by kind and outcome,
 * barge-ins, tool calls as the daemon ended them, what the LLM stand-in
 * sent, what the pages and the editor saw, and who the daemon's children
 * were at each census.
 */
import { percentile, round } from '../../test/support/stats.js';
import type { Figures } from './benchmark.js';
import type { ReceivedEvent } from './daemon-process.js';
import type { ClientCounts } from './soak-clients.js';
import type { SoakCensus } from '../../test/support/soak-figures.js';
import type { SoakLlmCounts } from './soak-llm.js';
import type { SoakTurnResult } from './soak-turns.js';

export interface SoakRun {
  results: readonly SoakTurnResult[];
  events: readonly ReceivedEvent[];
  llm: SoakLlmCounts;
  clients: ClientCounts;
  censuses: { warmUp?: SoakCensus; end?: SoakCensus };
}

export function soakRunFigures(run: SoakRun): Figures {
  const { results, events, llm, clients, censuses } = run;
  const plain = results.filter((r) => !r.bargeIn);
  const overReply = results.filter((r) => r.bargeIn);
  const latencies = (list: readonly SoakTurnResult[]): number[] => list.flatMap((r) => (r.latencyMs !== undefined && r.latencyMs >= 0 ? [r.latencyMs] : []));
  const p = (list: readonly number[], q: number): number => (list.length === 0 ? Number.NaN : round(percentile(list, q), 1));
  const figures: Figures = {
    turns: results.length,
    turns_answered: latencies(results).length,
    turns_no_answer: results.filter((r) => r.latencyMs === undefined).length,
    no_answer_reasons: tally(results.flatMap((r) => (r.why ? [r.why] : []))) || 'none',
    turns_with_tool_call: results.filter((r) => r.kind === 'tool').length,
    turns_with_memory_save: results.filter((r) => r.kind === 'memory').length,
    barge_ins: overReply.length,
    barge_ins_interrupted: overReply.filter((r) => r.interrupted).length,
    interruptions_by_voice: events.filter((e) => e.type === 'voice.interrupted' && e.source === 'barge_in').length,
    turn_latency_p50_ms: p(latencies(plain), 50),
    turn_latency_p95_ms: p(latencies(plain), 95),
    turn_latency_plain_p50_ms: p(latencies(plain.filter((r) => r.kind === 'plain')), 50),
    turn_latency_tool_p50_ms: p(latencies(plain.filter((r) => r.kind === 'tool')), 50),
    turn_latency_memory_p50_ms: p(latencies(plain.filter((r) => r.kind === 'memory')), 50),
    barge_in_answer_latency_p50_ms: p(latencies(overReply), 50),
    tool_calls_ended: tally(events.flatMap((e) => (e.type === 'tool.ended' ? [`${e.tool} ${e.status}`] : []))) || 'none',
    turn_errors: tally(events.flatMap((e) => (e.type === 'error' ? [e.code] : []))) || 'none',
    llm_requests: llm.requests,
    llm_aborted: llm.aborted,
    llm_tool_calls_sent: llm.toolCallsSent,
    llm_memory_saves_sent: llm.memorySavesSent,
    llm_tool_not_offered: llm.missingTool,
    llm_tools_offered: llm.offered.join(', '),
    page_connects: clients.pageConnects,
    page_events: clients.pageEvents,
    page_errors: clients.pageErrors,
    editor_lists: clients.editorLists,
    editor_calls: clients.editorCalls,
    editor_errors: clients.editorErrors,
    ...(clients.lastError ? { client_last_error: clients.lastError } : {}),
    children_warm_up_names: censuses.warmUp?.childNames ?? '',
    children_end_names: censuses.end?.childNames ?? '',
    fds_warm_up_kinds: censuses.warmUp?.fdNames ?? '',
    fds_end_kinds: censuses.end?.fdNames ?? '',
  };
  return figures;
}

/** `a x3; b x1`, most frequent first. */
function tally(items: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([item, n]) => `${item} x${n}`)
    .join('; ');
}

/** The MCP conformance suite's printed summary, read (the mcp-conformance bench's, tested on its own). */

/** One scenario's line of the suite's summary. */
export interface ScenarioResult {
  name: string;
  passed: number;
  failed: number;
  /** Run, but outside what the revision scores (an extension or a pending scenario): the suite's own "Not scored" list. */
  unscored?: string;
}

/** The summary's `✓ name: N passed, M failed` lines, and the "Not scored" list's `✗ name (why)` lines. */
export function parseSummary(output: string): ScenarioResult[] {
  const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
  const unscored = new Map([...summary.matchAll(/^ {2}[✓✗] (\S+) \((\w+)\)$/gmu)].map((m) => [m[1] as string, m[2] as string]));
  return [...summary.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gmu)].map((m) => {
    const name = m[1] as string;
    const why = unscored.get(name);
    return { name, passed: Number(m[2]), failed: Number(m[3]), ...(why !== undefined ? { unscored: why } : {}) };
  });
}

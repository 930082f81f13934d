import type { AuditRecord } from '../../../src/host/store/index.js';

/** An audit record with plausible values; `overrides` sets what a test cares about. */
export function auditRecord(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    atMs: Date.UTC(2025, 2, 1, 12, 0, 0),
    turnId: 'turn-1',
    entry: 'text',
    tool: 'weather',
    server: 'tools',
    risk: 'read',
    decision: 'allow',
    decidedBy: 'policy',
    status: 'ok',
    durationMs: 412,
    argsHash: 'a'.repeat(64),
    argsSummary: '{"city":"Berlin"}',
    outputChars: 1873,
    truncated: false,
    ...overrides,
  };
}

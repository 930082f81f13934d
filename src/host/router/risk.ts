import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Risk } from '../../events/index.js';

const ORDER: Record<Risk, number> = { read: 0, write: 1, high: 2 };

export function higherRisk(a: Risk, b: Risk): Risk {
  return ORDER[a] >= ORDER[b] ? a : b;
}

export function isRisk(value: unknown): value is Risk {
  return value === 'read' || value === 'write' || value === 'high';
}

/**
 * What MCP annotations claim. No claim at all is `write`: the tool may
 * change something, and nothing says it destroys.
 */
export function riskFromAnnotations(annotations: ToolAnnotations | undefined): Risk {
  if (annotations?.readOnlyHint === true) return 'read';
  if (annotations?.destructiveHint === true) return 'high';
  if (annotations?.destructiveHint === false) return 'write';
  return annotations?.readOnlyHint === false ? 'high' : 'write';
}

export interface RiskInputs {
  annotations?: ToolAnnotations;
  /** The risk a built-in server declares in `_meta` (desktop-assistant/risk). */
  declared?: unknown;
  /** `[mcp.<server>] risk.<tool>` from the user's config. */
  override?: Risk;
  trusted: boolean;
  builtin: boolean;
}

export type RiskSource = 'config' | 'declared' | 'annotations' | 'untrusted-floor';

/**
 * A tool's risk comes from a trusted source: the user's config, a built-in
 * server's declaration, or a trusted server's annotations. A server that is
 * not trusted may only raise it above `write` (the MCP spec: annotations are
 * untrusted unless the server is), never lower it.
 */
export function resolveRisk(inputs: RiskInputs): { risk: Risk; source: RiskSource } {
  if (inputs.override) return { risk: inputs.override, source: 'config' };
  if (inputs.builtin && isRisk(inputs.declared)) return { risk: inputs.declared, source: 'declared' };
  const claimed = riskFromAnnotations(inputs.annotations);
  if (inputs.trusted) return { risk: claimed, source: 'annotations' };
  const risk = higherRisk('write', claimed);
  return { risk, source: risk === claimed && claimed !== 'write' ? 'annotations' : 'untrusted-floor' };
}

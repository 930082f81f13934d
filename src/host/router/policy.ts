import type { RouterConfig } from '../../config/index.js';
import type { Decision, Risk } from '../../events/index.js';

/** The router's answer for a tool before anyone is asked: per tool, else per risk level. */
export function policyDecision(tool: string, risk: Risk, config: RouterConfig): Decision {
  return config.tools[tool] ?? config[risk];
}

import type { RouterConfig } from '../../config/index.js';
import type { Decision, Risk } from '../../events/index.js';

/**
 * The router's answer for a tool before anyone is asked: per tool, else per
 * risk level. `allowUnlessSensitive` (declared by a built-in server) turns a
 * level's `confirm` into `allow`; the router still asks when the call's
 * content is sensitive, and a `deny` stays a deny.
 */
export function policyDecision(tool: string, risk: Risk, config: RouterConfig, allowUnlessSensitive = false): Decision {
  const perTool = config.tools[tool];
  if (perTool !== undefined) return perTool;
  const level = config[risk];
  return level === 'confirm' && allowUnlessSensitive ? 'allow' : level;
}

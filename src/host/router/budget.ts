import type { RouterConfig } from '../../config/index.js';

/** What one turn may still spend on tools. */
export class TurnBudget {
  calls = 0;
  runtimeMs = 0;
  outputChars = 0;

  constructor(private readonly limits: Pick<RouterConfig, 'max_calls' | 'max_tool_seconds' | 'max_turn_output_chars'>) {}

  /** Why no further call may run in this turn, or undefined when one may. */
  exhausted(): string | undefined {
    if (this.calls >= this.limits.max_calls) return `the turn already made ${this.calls} tool calls (limit ${this.limits.max_calls})`;
    if (this.remainingRuntimeMs() <= 0) return `the turn's tool calls already ran ${Math.round(this.runtimeMs)} ms (limit ${this.limits.max_tool_seconds.seconds} s)`;
    if (this.remainingOutputChars() <= 0) return `the turn's tool calls already returned ${this.outputChars} characters (limit ${this.limits.max_turn_output_chars})`;
    return undefined;
  }

  remainingRuntimeMs(): number {
    return this.limits.max_tool_seconds.ms - this.runtimeMs;
  }

  remainingOutputChars(): number {
    return this.limits.max_turn_output_chars - this.outputChars;
  }

  spend(runtimeMs: number, outputChars: number): void {
    this.calls += 1;
    this.runtimeMs += runtimeMs;
    this.outputChars += outputChars;
  }
}

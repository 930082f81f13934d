import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { definitionHash, describeDefinitionChange, type PinStore } from '../store/index.js';

export type PinState = { state: 'trusted-source' } | { state: 'pinned' } | { state: 'changed'; changes: string[] };

/**
 * Tool pinning for servers that are not the project's own: the first
 * definition seen is stored; a later different one (a rug pull, or an
 * update) quarantines the tool until the user approves it again.
 */
export class PinGuard {
  constructor(
    private readonly pins: PinStore,
    private readonly clock: () => number,
  ) {}

  check(server: string, builtin: boolean, definition: Tool, commandLine: string): PinState {
    if (builtin) return { state: 'trusted-source' };
    const { hash, canonical } = definitionHash(definition, commandLine);
    const pin = this.pins.get(server, definition.name);
    if (!pin) {
      this.pins.put({ server, tool: definition.name, hash, definition: canonical, approvedAtMs: this.clock() });
      return { state: 'pinned' };
    }
    if (pin.hash === hash) return { state: 'pinned' };
    return { state: 'changed', changes: describeDefinitionChange(pin.definition, canonical) };
  }

  approve(server: string, definition: Tool, commandLine: string): void {
    const { hash, canonical } = definitionHash(definition, commandLine);
    this.pins.put({ server, tool: definition.name, hash, definition: canonical, approvedAtMs: this.clock() });
  }
}

import type { AssembledToolCall } from './types.js';

/**
 * One streamed `delta.tool_calls[]` entry as OpenAI-compatible servers send it.
 * llama-server puts `id`, `type` and `function.name` in the first fragment of a
 * call and only `function.arguments` pieces in the later ones.
 */
export interface ToolCallFragment {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Puts streamed tool-call fragments back together, per `index`: the id and the
 * name come from the first fragment that has them, the arguments are the
 * concatenation of every piece, in arrival order.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<number, AssembledToolCall>();
  private lastIndex: number | undefined;

  add(fragments: readonly ToolCallFragment[] | null | undefined): void {
    for (const fragment of fragments ?? []) this.addOne(fragment);
  }

  /** The calls so far, in index order. */
  result(): AssembledToolCall[] {
    return [...this.calls.values()].sort((a, b) => a.index - b.index).map((call) => ({ ...call }));
  }

  get size(): number {
    return this.calls.size;
  }

  private addOne(fragment: ToolCallFragment): void {
    const index = this.indexOf(fragment);
    let call = this.calls.get(index);
    if (call === undefined) {
      call = { index, id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (call.id === '' && fragment.id) call.id = fragment.id;
    const fn = fragment.function;
    if (call.name === '' && fn?.name) call.name = fn.name;
    if (fn?.arguments) call.arguments += fn.arguments;
    this.lastIndex = index;
  }

  /**
   * The spec makes `index` required, but some servers leave it out. Then a
   * fragment that starts a call (an id, or a name while the last call already
   * has one) opens the next index; anything else continues the last call.
   */
  private indexOf(fragment: ToolCallFragment): number {
    if (typeof fragment.index === 'number') return fragment.index;
    const last = this.lastIndex === undefined ? undefined : this.calls.get(this.lastIndex);
    if (last === undefined) return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
    const startsCall = (fragment.id && fragment.id !== last.id) || (fragment.function?.name && last.name !== '');
    return startsCall ? Math.max(...this.calls.keys()) + 1 : last.index;
  }
}

import type { ActivityState, AssistantBus, AssistantEvent } from '../../events/index.js';

/**
 * What the assistant is doing, derived from the events of text turns:
 * idle, thinking, tool_running. Each change is itself an event. (The voice
 * issues replace this with the full state machine.)
 */
export class ActivityTracker {
  private current: ActivityState = 'idle';
  private turn: { id: string; startedAtMs: number } | null = null;
  private readonly stop: () => void;

  constructor(
    private readonly bus: AssistantBus,
    private readonly clock: () => number = Date.now,
  ) {
    this.stop = bus.subscribe((event) => this.follow(event));
  }

  get state(): ActivityState {
    return this.current;
  }

  get activeTurn(): { id: string; startedAtMs: number } | null {
    return this.turn;
  }

  close(): void {
    this.stop();
  }

  private follow(event: AssistantEvent): void {
    switch (event.type) {
      case 'turn.started':
        this.turn = { id: event.turnId ?? '', startedAtMs: event.atMs };
        return this.move('thinking', event.turnId);
      case 'tool.started':
        return this.move('tool_running', event.turnId);
      case 'tool.ended':
        return this.turn ? this.move('thinking', event.turnId) : undefined;
      case 'turn.ended':
        this.turn = null;
        return this.move('idle', event.turnId);
      default:
        return undefined;
    }
  }

  private move(state: ActivityState, turnId: string | undefined): void {
    if (state === this.current) return;
    const previous = this.current;
    this.current = state;
    this.bus.emit({ type: 'state.changed', stage: 'conversation', state, previous, atMs: this.clock(), turnId });
  }
}

import type { ActivityState, AssistantBus, AssistantEvent } from '../../events/index.js';

/**
 * What the assistant is doing, derived from events: listening (a recording
 * started), thinking (a turn), tool_running, speaking (from the first audio
 * of a reply until its playback ended), idle: never while a reply's speech
 * is queued but not played yet. Each change is itself an
 * event. (In full duplex the voice's state machine emits them instead.)
 */
export class ActivityTracker {
  private current: ActivityState = 'idle';
  private turn: { id: string; startedAtMs: number } | null = null;
  private playing = false;
  /** Speech of the reply is queued (or playing): the turn's end is not yet idle. */
  private speechDue = false;
  private readonly stop: () => void;

  /**
   * `derive: false`: another part (the full-duplex state machine) emits the
   * state changes; the tracker only remembers the last one.
   */
  constructor(
    private readonly bus: AssistantBus,
    private readonly clock: () => number = Date.now,
    options: { derive?: boolean } = {},
  ) {
    this.stop = bus.subscribe(options.derive === false ? (event) => this.remember(event) : (event) => this.follow(event));
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

  private remember(event: AssistantEvent): void {
    if (event.type === 'turn.started') this.turn = { id: event.turnId ?? '', startedAtMs: event.atMs };
    else if (event.type === 'turn.ended') this.turn = null;
    else if (event.type === 'state.changed') this.current = event.state;
  }

  private follow(event: AssistantEvent): void {
    switch (event.type) {
      case 'voice.listening':
        return this.move('listening', event.turnId);
      case 'voice.transcript':
        // Nothing worth answering was heard: back to idle.
        return event.final && event.dropped !== undefined && !this.turn ? this.move('idle', event.turnId) : undefined;
      case 'turn.started':
        this.turn = { id: event.turnId ?? '', startedAtMs: event.atMs };
        return this.move('thinking', event.turnId);
      case 'tool.started':
        return this.move('tool_running', event.turnId);
      case 'tool.ended':
        return this.turn ? this.move(this.playing ? 'speaking' : 'thinking', event.turnId) : undefined;
      case 'voice.playback':
        if (event.phase === 'queued') {
          this.speechDue = true;
          return undefined;
        }
        this.playing = event.phase === 'started';
        this.speechDue = this.playing;
        if (this.playing) return this.move('speaking', event.turnId);
        return this.move(this.turn ? 'thinking' : 'idle', event.turnId);
      case 'turn.ended':
        this.turn = null;
        // A spoken reply is still to play, or playing: idle comes when it ends.
        return this.speechDue ? undefined : this.move('idle', event.turnId);
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

import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors/index.js';
import type { Conversation, TurnOutcome } from '../conversation/index.js';
import type { ConfirmationChannel } from '../router/index.js';

/**
 * Text turns of the HTTP API, one at a time through the one conversation,
 * each with its own AbortController so POST /interrupt can stop it.
 */
export class TurnRunner {
  private current: { id: string; controller: AbortController } | undefined;

  constructor(
    private readonly conversation: Conversation,
    private readonly confirmation: ConfirmationChannel,
  ) {}

  get activeTurnId(): string | undefined {
    return this.current?.id;
  }

  /** Reserves the turn's id (so its events can be followed) and runs it. */
  start(text: string, turnId: string = randomUUID()): { turnId: string; done: Promise<TurnOutcome> } {
    if (this.current) throw new AppError('TURN_IN_PROGRESS', 'a turn is already running: wait for it or POST /interrupt');
    const controller = new AbortController();
    this.current = { id: turnId, controller };
    const done = this.conversation
      .turn(text, { entry: 'http', turnId, confirmation: this.confirmation, signal: controller.signal })
      .finally(() => {
        if (this.current?.id === turnId) this.current = undefined;
      });
    return { turnId, done };
  }

  /** Stops the running turn; false when none runs. */
  interrupt(): boolean {
    if (!this.current) return false;
    this.current.controller.abort();
    return true;
  }
}

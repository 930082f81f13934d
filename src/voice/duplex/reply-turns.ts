/**
 * The full-duplex voice's replies: each turn the state machine starts runs
 * through the conversation with its own AbortController (the LLM stream,
 * synthesis and cancellable tools stop with it; aborting twice is a no-op),
 * its sentences go to the player as they come, and only what was played
 * goes to the conversation's history.
 */
import { AppError, isAppError } from '../../errors/index.js';
import type { AssistantBus } from '../../events/index.js';
import type { ConfirmationChannel, VoiceConversation } from '../host-ports.js';
import type { DuplexPlayer } from './player.js';
import type { DuplexInput } from './states.js';

export interface ReplyTurnsOptions {
  conversation: VoiceConversation;
  confirmation: ConfirmationChannel;
  sentenceLanguage: (sentence: string, fallback: string) => string;
  player: DuplexPlayer;
  bus: AssistantBus;
  eventClock: () => number;
  /** Tells the state machine what the turn did. */
  dispatch: (input: DuplexInput) => void;
}

interface SpokenItem {
  text: string;
  kind: 'reply' | 'announcement';
}

interface ActiveTurn {
  question: string;
  controller: AbortController;
  /** In the order given to the player: the state machine's sentence numbers. */
  items: SpokenItem[];
  committed: boolean;
  playbackStarted: boolean;
  /** The conversation's turn has returned (or failed). */
  settled: Promise<void>;
}

export class ReplyTurns {
  private readonly turns = new Map<string, ActiveTurn>();

  constructor(private readonly options: ReplyTurnsOptions) {}

  /** A turn of this voice that has not been cleaned up yet (tool events of others are not its business). */
  has(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  start(turnId: string, question: string, language: string): void {
    const { conversation, confirmation, sentenceLanguage, player, dispatch } = this.options;
    const controller = new AbortController();
    const turn: ActiveTurn = { question, controller, items: [], committed: false, playbackStarted: false, settled: Promise.resolve() };
    this.turns.set(turnId, turn);
    player.begin(turnId, controller.signal);
    const speak = (kind: SpokenItem['kind']) => (text: string) => {
      if (controller.signal.aborted) return;
      turn.items.push({ text, kind });
      player.add(turnId, text, sentenceLanguage(text, language));
    };
    turn.settled = conversation
      .turn(question, { entry: 'voice', turnId, language, confirmation, signal: controller.signal, commit: 'by_caller', onSentence: speak('reply'), onAnnouncement: speak('announcement') })
      .then(
        (outcome) => {
          if (controller.signal.aborted) return;
          if (outcome.status !== 'ok') return dispatch({ type: 'error', code: outcome.error?.code ?? 'TURN_FAILED', recoverable: true, turnId });
          player.end(turnId);
          dispatch({ type: 'llm_finished', turnId, sentences: turn.items.length });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) dispatch({ type: 'error', code: isAppError(error) ? error.code : 'TURN_FAILED', recoverable: true, turnId });
        },
      );
  }

  /** Cancels the turn (a second call is a no-op); after an error, recovery ends once its work has settled. */
  abort(turnId: string, reason: 'interrupted' | 'error' | 'fatal'): void {
    const turn = this.turns.get(turnId);
    if (!turn || turn.controller.signal.aborted) return;
    turn.controller.abort(new AppError('TURN_INTERRUPTED', `the turn was ${reason === 'interrupted' ? 'interrupted' : 'stopped by an error'}`));
    this.options.player.abort(turnId);
    // Neither rejects: `settled` handles the turn's failure itself and the player's writes end in `() => undefined`.
    void Promise.all([turn.settled, this.options.player.finished()]).then(() => {
      this.turns.delete(turnId);
      if (reason === 'error') this.options.dispatch({ type: 'recovery_done' });
    });
  }

  /** Only what the user heard goes to history: the first `sentences` of what was spoken, announcements left out. */
  commit(turnId: string, sentences: number, complete: boolean): void {
    const turn = this.turns.get(turnId);
    if (!turn || turn.committed) return;
    turn.committed = true;
    const heard = turn.items.slice(0, sentences).filter((item) => item.kind === 'reply');
    this.options.conversation.commit(turn.question, heard.map((item) => item.text));
    if (turn.playbackStarted) this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'ended', turnId, atMs: this.options.eventClock() });
    // `settled` never rejects: the turn's failure is dispatched where it is made.
    if (complete) void turn.settled.then(() => this.turns.delete(turnId));
  }

  /** The reply's first audio went out. */
  playbackStarted(turnId: string): void {
    const turn = this.turns.get(turnId);
    if (!turn || turn.playbackStarted) return;
    turn.playbackStarted = true;
    this.options.bus.emit({ type: 'voice.playback', stage: 'tts', phase: 'started', turnId, atMs: this.options.eventClock() });
  }

  /** Every turn's conversation has returned. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.turns.values()].map((t) => t.settled));
  }

  /** Shutdown: every turn cancelled. */
  abortAll(): void {
    for (const turn of this.turns.values()) turn.controller.abort();
  }
}

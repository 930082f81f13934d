import type { AssistantBus } from '../../events/index.js';
import { displayUrl, LlmServerWatch, type LlmServerProbe, type MissingLlmServer } from '../llm/index.js';
import type { ProviderHealth } from './api-types.js';

/** Codes that say nothing about the server being there: the user stopped the turn, or the reply hit its cap. */
const NOT_THE_SERVER = new Set(['LLM_CANCELLED', 'LLM_REPLY_CAPPED']);

export interface LlmHealthOptions {
  /** Whether the server serves now (GET /models); without it the health follows the turns only. */
  probe?: LlmServerProbe;
  clock?: () => number;
}

/**
 * The LLM's health for `/state`: ok after a first token, error after an LLM
 * error; and, with a probe, whether the server is missing, kept true until
 * a probe or a reply says it serves again. The change is a `llm.server`
 * event (lost, restored) that the terminal and the page show.
 */
export class LlmHealth {
  /** The server's URL as shown (no credentials). */
  readonly url: string;
  private health: ProviderHealth;
  private readonly stops: (() => void)[] = [];
  private readonly watch: LlmServerWatch | undefined;

  constructor(bus: AssistantBus, url: string, options: LlmHealthOptions = {}) {
    const shown = displayUrl(url);
    this.url = shown;
    this.health = { name: `llm ${shown}`, health: 'unknown' };
    const clock = options.clock ?? Date.now;
    this.watch = options.probe ? new LlmServerWatch({ url: shown, probe: options.probe, clock }) : undefined;
    this.stops.push(
      bus.subscribe((event) => {
        if (event.type === 'llm.first_token') {
          this.health = { name: this.health.name, health: 'ok' };
          this.watch?.served();
        }
        if (event.type === 'error' && event.code.startsWith('LLM_') && !NOT_THE_SERVER.has(event.code)) {
          this.health = { name: this.health.name, health: 'error', detail: event.message };
          this.watch?.check();
        }
      }),
    );
    if (this.watch) {
      this.stops.push(
        this.watch.subscribe((change) => {
          if (change.status === 'lost') {
            this.health = { name: this.health.name, health: 'error', detail: change.missing.message };
            bus.emit({ type: 'llm.server', stage: 'llm', status: 'lost', url: shown, message: change.missing.message, atMs: clock() });
          } else {
            this.health = { name: this.health.name, health: 'ok' };
            bus.emit({ type: 'llm.server', stage: 'llm', status: 'restored', url: shown, message: change.message, missingMs: change.missingMs, atMs: clock() });
          }
        }),
      );
    }
  }

  get current(): ProviderHealth {
    const missing = this.watch?.missing;
    // The words of a missing server follow its latest probe.
    return missing ? { ...this.health, health: 'error', detail: missing.message } : this.health;
  }

  /** The server as it is missing now (what happened, since when), or undefined. */
  get missing(): MissingLlmServer | undefined {
    return this.watch?.missing;
  }

  /** One probe now (at start-up): a server that is not there is missing from the start, not from the first question. */
  check(): void {
    this.watch?.check();
  }

  close(): void {
    for (const stop of this.stops) stop();
    this.watch?.close();
  }
}

import type { AssistantBus } from '../../events/index.js';
import type { ProviderHealth } from './api-types.js';

/** The LLM's health as the last turn saw it: ok after a first token, error after an LLM error. */
export class LlmHealth {
  private health: ProviderHealth;
  private readonly stop: () => void;

  constructor(bus: AssistantBus, url: string) {
    this.health = { name: `llm ${url}`, health: 'unknown' };
    this.stop = bus.subscribe((event) => {
      if (event.type === 'llm.first_token') this.health = { name: this.health.name, health: 'ok' };
      if (event.type === 'error' && event.code.startsWith('LLM_') && event.code !== 'LLM_CANCELLED') {
        this.health = { name: this.health.name, health: 'error', detail: event.message };
      }
    });
  }

  get current(): ProviderHealth {
    return this.health;
  }

  close(): void {
    this.stop();
  }
}

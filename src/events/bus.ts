/**
 * A typed event bus. `subscribe` returns the function that unsubscribes; a
 * listener that throws is reported to `onListenerError` and never stops
 * delivery to the others.
 */
export type Listener<E> = (event: E) => void;

export class EventBus<E> {
  private readonly listeners = new Set<Listener<E>>();

  constructor(private readonly onListenerError: (error: unknown, event: E) => void = () => undefined) {}

  subscribe(listener: Listener<E>): () => void {
    // A wrapper, so the same function subscribed twice is two subscriptions.
    const entry: Listener<E> = (event) => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(event: E): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

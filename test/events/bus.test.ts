import { describe, expect, it } from 'vitest';
import { clip, createAssistantBus, EventBus, type AssistantEvent } from '../../src/events/index.js';

describe('the event bus', () => {
  it('delivers to every listener until it unsubscribes', () => {
    const bus = new EventBus<number>();
    const a: number[] = [];
    const b: number[] = [];
    const stopA = bus.subscribe((n) => a.push(n));
    bus.subscribe((n) => b.push(n));
    bus.emit(1);
    stopA();
    bus.emit(2);
    expect(a).toEqual([1]);
    expect(b).toEqual([1, 2]);
    expect(bus.listenerCount).toBe(1);
  });

  it('keeps delivering when a listener throws, and reports the error', () => {
    const errors: unknown[] = [];
    const bus = new EventBus<string>((error) => errors.push(error));
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('listener broke');
    });
    bus.subscribe((e) => seen.push(e));
    bus.emit('x');
    expect(seen).toEqual(['x']);
    expect(errors).toHaveLength(1);
  });

  it('counts the same function subscribed twice as two subscriptions', () => {
    const bus = new EventBus<number>();
    const seen: number[] = [];
    const listener = (n: number) => seen.push(n);
    const stop = bus.subscribe(listener);
    bus.subscribe(listener);
    bus.emit(1);
    stop();
    bus.emit(2);
    expect(seen).toEqual([1, 1, 2]);
  });

  it('lets a listener unsubscribe while an event is delivered', () => {
    const bus = createAssistantBus();
    const seen: string[] = [];
    const stop = bus.subscribe(() => stop());
    bus.subscribe((e) => seen.push(e.type));
    const event: AssistantEvent = { type: 'tools.changed', stage: 'hub', count: 1, atMs: 0 };
    bus.emit(event);
    bus.emit(event);
    expect(seen).toEqual(['tools.changed', 'tools.changed']);
    expect(bus.listenerCount).toBe(1);
  });
});

describe('clip', () => {
  it('keeps short text and marks what it cuts', () => {
    expect(clip('short')).toBe('short');
    expect(clip('x'.repeat(510))).toBe(`${'x'.repeat(500)}... [10 more]`);
  });
});

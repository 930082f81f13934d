export { EventBus, type Listener } from './bus.js';
export {
  EVENT_TEXT_LIMIT,
  clip,
  type ActivityState,
  type EndOfTurnRule,
  type VoiceTrigger,
  type AssistantEvent,
  type AssistantEventType,
  type DecidedBy,
  type Decision,
  type EntryPoint,
  type Risk,
  type ToolCallStatus,
} from './types.js';

import type { AssistantEvent } from './types.js';
import { EventBus } from './bus.js';

export type AssistantBus = EventBus<AssistantEvent>;

/** An event as its stage builds it, before the emitter stamps the time (and the turn) on it: still checked against its type. */
export type UnstampedEvent<K extends 'atMs' | 'turnId' = 'atMs'> = AssistantEvent extends infer T ? (T extends unknown ? Omit<T, K> : never) : never;

export function createAssistantBus(onListenerError?: (error: unknown, event: AssistantEvent) => void): AssistantBus {
  return new EventBus<AssistantEvent>(onListenerError);
}

/**
 * The microphone switch wired to whatever starts and stops recordings (the
 * voice service): unmute starts, mute stops. Kept apart from MicSwitch so
 * the switch knows nothing of sessions.
 */
import { MicSwitch, type MicSwitchEvent, type MicSwitchOptions } from './mic-switch.js';

/** What a trigger drives; the voice service is one. */
export interface ListeningControl {
  /** False when a recording cannot start now (a reply is being spoken). */
  startListening(trigger: 'switch'): boolean;
  stopListening(): boolean;
}

export interface MicSwitchTriggerOptions extends Omit<MicSwitchOptions, 'card'> {
  /** Errors (the card unplugged, amixer gone); the switch keeps looking for the card meanwhile. */
  onError?: (event: Extract<MicSwitchEvent, { type: 'error' }>) => void;
}

/** Starts watching `card`'s capture switch; resolves to the function that stops it. Rejects when the switch cannot be found. */
export async function micSwitchTrigger(card: string, control: ListeningControl, options: MicSwitchTriggerOptions = {}): Promise<() => Promise<void>> {
  const { onError, ...switchOptions } = options;
  const mic = new MicSwitch({ card, ...switchOptions });
  const unsubscribe = mic.subscribe((event) => {
    if (event.type === 'start') control.startListening('switch');
    else if (event.type === 'stop') control.stopListening();
    else onError?.(event);
  });
  try {
    await mic.start();
  } catch (error) {
    unsubscribe();
    await mic.close();
    throw error;
  }
  return async () => {
    unsubscribe();
    await mic.close();
  };
}

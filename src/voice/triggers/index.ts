export {
  describeControl,
  findCaptureSwitch,
  parseCgetValues,
  parseControlId,
  parseControls,
  parseEventLine,
  switchIsOn,
  type AmixerLine,
  type ControlId,
} from './amixer-output.js';
export { MicSwitch, type MicSwitchEvent, type MicSwitchOptions } from './mic-switch.js';
export { micSwitchTrigger, type ListeningControl, type MicSwitchTriggerOptions } from './mic-switch-trigger.js';

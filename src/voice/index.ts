/**
 * The voice's one door: what the daemon, the command line and the doctor
 * use. The voice needs from the host only what src/voice/host-ports.ts
 * describes, and never imports it.
 */
export { answerWavFile, type AnswerFileOptions } from './answer-file.js';
export { startLiveVoice, type LiveVoice, type LiveVoiceOptions } from './live-voice.js';
export { startLiveDuplex, type LiveDuplex, type LiveDuplexOptions } from './live-duplex.js';
export { micSwitchTrigger } from './triggers/index.js';
export {
  noConfirmationChannel,
  type ConfirmationAnswer,
  type ConfirmationChannel,
  type ConfirmationRequest,
  type SpokenTurnOptions,
  type SpokenTurnOutcome,
  type SpeculativeReply,
  type VoiceControl,
  type RoomReport,
  type MissingDevice,
  type VoiceConversation,
} from './host-ports.js';
export type { VoiceTurnResult } from './session/index.js';
// The doctor's checks: each part the voice needs, loaded as the voice loads it.
export { checkCanceller, type EchoCanceller } from './apm/index.js';
export { chooseDevice, loadPortAudio, PortAudioInput, PortAudioOutput } from './devices/index.js';
export { measureRoomEcho, roomProblems } from './duplex/index.js';
export { loadPocketsphinxAddon } from './stt/index.js';
export { sileroModelPath } from './vad/index.js';

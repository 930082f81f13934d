export { DUPLEX_DEFAULTS, duplexConfigFrom, resolveDuplexConfig, type DuplexConfig } from './config.js';
export {
  BargeInDetector,
  type BargeInDetectorOptions,
  type BargeInFrameResult,
  type BargeInSpeechStarted,
  type VadWindowScore,
} from './barge-in-detector.js';
export { BargeInRule, type DoubleTalkWindow } from './barge-in-rule.js';
export { isBackchannel, mayBeBackchannel, type BackchannelLists } from './backchannel.js';
export { BandDoubleTalkMeter, type BandDoubleTalkMeterOptions } from './band-double-talk-meter.js';
export { DoubleTalkMeter } from './double-talk-meter.js';
export type { EchoExcessMeter } from './double-talk-meter.js';
export { reduce, reduceAll } from './reducer.js';
export {
  initialDuplexState,
  type ActivityState,
  type DuplexEffect,
  type DuplexEffectType,
  type DuplexInput,
  type DuplexInputType,
  type DuplexState,
  type DuplexStep,
  type DuplexTimer,
  type Interruption,
  type Speech,
  type StateChangedEvent,
  type ToolCall,
  type TurnState,
} from './states.js';
export { DuplexVoice, type DuplexVoiceOptions } from './duplex-voice.js';
export { DuplexPlayer, type DuplexPlayerOptions, type PlayerListener } from './player.js';
export { ListeningPipeline, type ListeningPipelineOptions } from './listening-pipeline.js';
export { ScoreReplayVad } from './score-replay-vad.js';
export { measureRoomEcho, roomProblems, type RoomEcho, type RoomEchoOptions } from './room-probe.js';
export { calibrateRoom } from './room-calibration.js';

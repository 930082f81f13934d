/**
 * The turn-based voice: one utterance heard, answered and spoken at a time
 * (VoiceSession), the service that runs it for the daemon, the speaker that
 * plays replies, and the end-of-turn rule the full-duplex voice shares.
 */
export { wordsVerdict } from './end-of-turn.js';
export { Speaker } from './speaker.js';
export { voiceConfirmation } from './voice-confirmation.js';
export { VoiceService } from './voice-service.js';
export { VoiceSession, type DetectorEvent, type TranscriptCheck, type UtteranceDetector, type VoiceTurnResult } from './voice-session.js';

import { voiceLanguages, type Config } from '../config/index.js';
import { messageOf } from '../errors/index.js';
import type { AssistantBus } from '../events/index.js';
import type { VoiceConversation } from './host-ports.js';
import { PortAudioInput, PortAudioOutput } from './devices/index.js';
import { detectorFromConfig, sttFromConfig, transcriptCheck, ttsFromConfig } from './engines.js';
import { Speaker } from './session/speaker.js';
import { voiceConfirmation } from './session/voice-confirmation.js';
import { VoiceService } from './session/voice-service.js';
import { VoiceSession } from './session/voice-session.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from './tts/index.js';
import type { AudioInput, AudioOutput } from './types.js';

export interface LiveVoiceOptions {
  config: Config;
  bus: AssistantBus;
  conversation: VoiceConversation;
  /** The microphone; by default the PortAudio device of `[audio] input`. */
  input?: AudioInput;
  /** The speakers; by default the PortAudio device of `[audio] output`. */
  output?: AudioOutput;
  /** Starts a trigger that calls `start`/`stop` (the microphone switch); returns its stop function. */
  startTrigger?: (service: VoiceService) => Promise<() => Promise<void>>;
}

export interface LiveVoice {
  service: VoiceService;
  close(): Promise<void>;
}

/**
 * The daemon's voice: devices, VAD, recognizer, voice and the session over
 * the same conversation as the HTTP API, with spoken confirmations. A
 * trigger starts each recording (the microphone switch, `POST /listen/start`,
 * a key); engines that cannot start fail here, with their reason.
 */
export async function startLiveVoice(options: LiveVoiceOptions): Promise<LiveVoice> {
  const { config, bus } = options;
  const input = options.input ?? PortAudioInput.open({ device: config.audio.input });
  const output = options.output ?? PortAudioOutput.open({ device: config.audio.output });
  const [stt, tts, detector] = await Promise.all([sttFromConfig(config), ttsFromConfig(config), detectorFromConfig(config)]);
  const languages = Object.keys(voiceLanguages(config));
  const speaker = new Speaker({ tts, output, bus, sanitize: (text) => sanitizeForSpeech(text) });
  let session: VoiceSession | undefined;
  const confirmation = voiceConfirmation({
    speaker,
    listen: (signal) => session?.listenOnce('answer', signal) ?? Promise.resolve(undefined),
    language: () => session?.language ?? 'en',
  });
  session = new VoiceSession({
    input,
    detector,
    stt,
    speaker,
    conversation: options.conversation,
    bus,
    checkTranscript: transcriptCheck(config),
    languages,
    defaultLanguage: languages.includes('en') ? 'en' : (languages[0] ?? 'en'),
    confirmation,
    sentenceLanguage: sentenceLanguagePicker(languages),
    ...(config.turn.preemptive ? { preemptivePauseMs: config.turn.preemptive_pause_ms } : {}),
  });
  const service = new VoiceService(session, bus);
  let stopTrigger: () => Promise<void> = async () => undefined;
  if (options.startTrigger) {
    try {
      stopTrigger = await options.startTrigger(service);
    } catch (error) {
      // The HTTP API and keys still start recordings.
      bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_TRIGGER_UNAVAILABLE', message: messageOf(error), recoverable: true, atMs: Date.now() });
    }
  }
  return {
    service,
    close: async () => {
      await stopTrigger();
      await service.close();
      await Promise.allSettled([input.close(), output.close(), stt.close(), tts.close(), detector.close()]);
    },
  };
}

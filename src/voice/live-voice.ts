import { voiceLanguages, type Config } from '../config/index.js';
import { messageOf } from '../errors/index.js';
import type { AssistantBus } from '../events/index.js';
import type { VoiceConversation } from './host-ports.js';
import { DeviceHealth, outputChunks, PortAudioInput, PortAudioOutput, RecoveringInput, RecoveringOutput, type DeviceChange } from './devices/index.js';
import { detectorFromConfig, sttFromConfig, transcriptCheck, ttsFromConfig } from './engines.js';
import { Speaker, voiceConfirmation, VoiceService, VoiceSession } from './session/index.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from './tts/index.js';
import type { AudioInput, AudioOutput } from './types.js';

/** Turn-based, the speaker's queue: 2 chunks, about 20 ms less before the first sound than 4 (the loopback test: 55 against 75 ms). */
const TURN_BASED_OUTPUT_BUFFER_MS = 20;

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
 * The PortAudio devices are kept across the sound server's restarts
 * (RecoveringInput, RecoveringOutput): what is missing goes on the bus and
 * into `service.missing` while it is, and the voice comes back by itself.
 */
export async function startLiveVoice(options: LiveVoiceOptions): Promise<LiveVoice> {
  const { config, bus } = options;
  const health = new DeviceHealth();
  const stopReporting = health.subscribe((change) => reportDevice(bus, change));
  const input =
    options.input ?? new RecoveringInput({ open: () => PortAudioInput.open({ device: config.audio.input }), health, deviceName: config.audio.input });
  const output =
    options.output ?? new RecoveringOutput({ open: () => PortAudioOutput.open({ device: config.audio.output, queueChunks: outputChunks(config.audio.output_buffer_ms ?? TURN_BASED_OUTPUT_BUFFER_MS) }), health, deviceName: config.audio.output });
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
  const service = new VoiceService(session, bus, Date.now, health);
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
      stopReporting();
    },
  };
}

/** A lost device is an error the terminal and the page already show, and a voice.device event either way. */
function reportDevice(bus: AssistantBus, change: DeviceChange): void {
  const atMs = Date.now();
  if (change.status === 'lost') {
    const { device, message } = change.missing;
    bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_DEVICE_LOST', message, recoverable: true, atMs });
    bus.emit({ type: 'voice.device', stage: 'voice', device, status: 'lost', message, atMs });
  } else {
    bus.emit({ type: 'voice.device', stage: 'voice', device: change.device, status: 'restored', message: change.message, atMs });
  }
}

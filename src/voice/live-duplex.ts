import { voiceLanguages, type Config } from '../config/index.js';
import type { AssistantBus } from '../events/index.js';
import type { ConfirmationChannel, VoiceControl, VoiceConversation } from './host-ports.js';
import { createApm, type Apm, type CancellerOptions, type WebRtcApmOptions } from './apm/index.js';
import { chooseDevice, loadPortAudio, outputChunks, PortAudioInput, PortAudioOutput } from './devices/index.js';
import { calibrateRoom, DoubleTalkMeter, duplexConfigFrom, DuplexVoice, type DuplexVoiceOptions, type EchoExcessMeter } from './duplex/index.js';
import { sttFromConfig, transcriptCheck, ttsFromConfig } from './engines.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from './tts/index.js';
import type { AudioInput, AudioOutput } from './types.js';
import { SileroVad } from './vad/index.js';

export interface LiveDuplexOptions {
  config: Config;
  bus: AssistantBus;
  conversation: VoiceConversation;
  /** How a tool call is confirmed: in full duplex the microphone is the conversation, so the web page or API answers. */
  confirmation: ConfirmationChannel;
  input?: AudioInput;
  output?: AudioOutput;
  /** Where the echo-cancellation addon is (tests); default the one the set-up builds. */
  apmAddonPath?: string;
  /** Where AEC3's FFI library is (tests); default the installed npm package. */
  aec3LibraryPath?: string;
  /**
   * Give the echo cancellers the delay the start-up measurement found as
   * their delay hint (default: none, 0; they find the delay themselves).
   * For measuring (bench/barge-in.ts, BARGE_IN_DELAY_HINT=1): see BENCHMARKS.md.
   */
  delayHintFromRoom?: boolean;
  /**
   * How the double-talk path measures the mic's excess over the predicted
   * echo: per frequency band (default) or over the whole band (the meter
   * before 2026-12-02; for measuring, bench/barge-in.ts BARGE_IN_METER).
   */
  doubleTalkMeter?: 'bands' | 'whole_band';
  /** Each microphone frame and its render, as the barge-in detector gets them (DuplexVoiceOptions.onHeard): for recording a run. */
  onHeard?: DuplexVoiceOptions['onHeard'];
}

export interface LiveDuplex {
  voice: DuplexVoice;
  control: VoiceControl;
  close(): Promise<void>;
}

/** `[duplex]` as the echo canceller's options. */
export function apmOptionsFromConfig(config: Config): WebRtcApmOptions {
  const { echo_suppression, noise_suppression, gain_control } = config.duplex;
  return {
    echoSuppression: echo_suppression,
    noiseSuppression: noise_suppression === 'off' ? false : noise_suppression === 'very_high' ? 'veryHigh' : noise_suppression,
    gainControl: gain_control ? {} : false,
  };
}

/**
 * The daemon's full-duplex voice (`mode = "full_duplex_agent"`): echo
 * canceller, VAD, recognizer, voice and devices, all started before the
 * microphone opens. Any of them missing fails the start with its reason
 * (AUDIO_APM_UNAVAILABLE for the addon): there is no full duplex without
 * echo cancellation, and no quiet fall-back to turn-based.
 */
export async function startLiveDuplex(options: LiveDuplexOptions): Promise<LiveDuplex> {
  const { config, bus } = options;
  // The devices are chosen before the models load, so a missing one is said at once: the
  // microphone's capture starts with frames(), the speaker's stream opens with it, once the rest is ready.
  const input = options.input ?? PortAudioInput.open({ device: config.audio.input });
  const speaker = options.output ? undefined : chooseDevice(loadPortAudio(), config.audio.output, 'output');
  const libraries: CancellerOptions = {
    ...(options.apmAddonPath ? { addonPath: options.apmAddonPath } : {}),
    ...(options.aec3LibraryPath ? { aec3LibraryPath: options.aec3LibraryPath } : {}),
  };
  const canceller = (overrides: WebRtcApmOptions = {}): Apm => createApm(config.duplex.canceller, { ...apmOptionsFromConfig(config), ...overrides, ...libraries });
  const apm = canceller();
  // The double-talk path: low suppression keeps the onset of speech over loud echo (bench/echo.ts).
  const opened: Array<{ close(): unknown }> = [input, { close: () => apm.close() }];
  try {
    const vad = await SileroVad.load();
    opened.push(vad);
    let doubleTalk: { apm: Apm; vad: SileroVad; meter?: EchoExcessMeter } | undefined;
    if (config.duplex.double_talk) {
      const doubleTalkApm = canceller({ echoSuppression: 'low', gainControl: false });
      opened.push({ close: () => doubleTalkApm.close() });
      const doubleTalkVad = await SileroVad.load();
      opened.push(doubleTalkVad);
      doubleTalk = { apm: doubleTalkApm, vad: doubleTalkVad, ...(options.doubleTalkMeter === 'whole_band' ? { meter: new DoubleTalkMeter() } : {}) };
    }
    const [stt, tts] = await Promise.all([sttFromConfig(config, 'full_duplex_agent'), ttsFromConfig(config)]);
    opened.push(stt, tts);
    const output = options.output ?? PortAudioOutput.open({ device: speaker ?? config.audio.output, ...(config.audio.output_buffer_ms === undefined ? {} : { queueChunks: outputChunks(config.audio.output_buffer_ms) }) });
    opened.push(output);
    const languages = Object.keys(voiceLanguages(config));
    const d = config.duplex;
    const voice = new DuplexVoice({
      input,
      output,
      apm,
      vad,
      ...(doubleTalk ? { doubleTalk } : {}),
      stt,
      tts,
      conversation: options.conversation,
      bus,
      confirmation: options.confirmation,
      checkTranscript: transcriptCheck(config),
      sanitize: (text) => sanitizeForSpeech(text),
      sentenceLanguage: sentenceLanguagePicker(languages),
      languages,
      defaultLanguage: languages.includes('en') ? 'en' : (languages[0] ?? 'en'),
      config: duplexConfigFrom(config),
      endpointer: {
        minSpeechMs: config.vad.min_speech_ms,
        endSilenceMs: config.vad.silence_ms,
        sentenceEndSilenceMs: config.vad.sentence_end_silence_ms,
        unfinishedSilenceMs: config.vad.unfinished_silence_ms,
        prefixPaddingMs: config.vad.prefix_ms,
      },
      renderBufferMs: d.render_buffer_ms,
      captureBufferMs: d.capture_buffer_ms,
      driftTolerancePpm: d.drift_tolerance_ppm,
      ...(options.onHeard ? { onHeard: options.onHeard } : {}),
    });
    // Before the microphone is listened to: the chirp must not reach the voice as speech.
    const room = config.duplex.calibrate ? await calibrateRoom(input, output, bus) : undefined;
    if (options.delayHintFromRoom && room?.delayMs !== undefined) {
      apm.setStreamDelayMs(room.delayMs);
      doubleTalk?.apm.setStreamDelayMs(room.delayMs);
    }
    voice.start();
    const control: VoiceControl = {
      get listening() {
        return voice.listening;
      },
      mode: 'full_duplex_agent',
      // Always listening: start and stop unmute and mute the microphone.
      startListening: () => voice.unmute(),
      stopListening: () => voice.mute(),
      interrupt: () => voice.interrupt('api'),
      ...(room ? { room } : {}),
    };
    return {
      voice,
      control,
      close: async () => {
        await voice.close();
        await Promise.allSettled(opened.map(async (part) => part.close()));
      },
    };
  } catch (error) {
    await Promise.allSettled(opened.map(async (part) => part.close()));
    throw error;
  }
}

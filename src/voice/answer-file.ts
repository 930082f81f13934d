import { voiceLanguages, type Config } from '../config/index.js';
import type { AssistantBus } from '../events/index.js';
import { noConfirmationChannel, type VoiceConversation } from './host-ports.js';
import { WavFileInput, WavFileOutput } from './audio/index.js';
import { detectorFromConfig, sttFromConfig, transcriptCheck, ttsFromConfig } from './engines.js';
import { Speaker, VoiceSession, type VoiceTurnResult } from './session/index.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from './tts/index.js';

export interface AnswerFileOptions {
  config: Config;
  bus: AssistantBus;
  conversation: VoiceConversation;
  /** A WAV of speech (any rate and channels). */
  input: string;
  /** Where the spoken replies go, as one 16 kHz mono WAV. */
  output: string;
  signal?: AbortSignal;
}

/**
 * `run --input IN.wav --output OUT.wav`: every utterance the VAD finds in
 * the file is a voice turn, through the configured recognizer, the
 * conversation and its tools, and the configured voice, into the output
 * file. Nobody can answer a spoken confirmation here: tools that need one
 * are refused, saying why.
 */
export async function answerWavFile(options: AnswerFileOptions): Promise<VoiceTurnResult[]> {
  const { config } = options;
  const input = await WavFileInput.open(options.input);
  const output = new WavFileOutput(options.output);
  const [stt, tts, detector] = await Promise.all([sttFromConfig(config), ttsFromConfig(config), detectorFromConfig(config)]);
  try {
    const languages = Object.keys(voiceLanguages(config));
    const session = new VoiceSession({
      input,
      detector,
      stt,
      speaker: new Speaker({ tts, output, bus: options.bus, sanitize: (text) => sanitizeForSpeech(text) }),
      conversation: options.conversation,
      bus: options.bus,
      checkTranscript: transcriptCheck(config),
      languages,
      // pocketsphinx detects no language and hears English; whisper says which.
      defaultLanguage: languages.includes('en') ? 'en' : (languages[0] ?? 'en'),
      confirmation: noConfirmationChannel('a voice turn from a file has nobody to answer a spoken question'),
      sentenceLanguage: sentenceLanguagePicker(languages),
    });
    return await session.answerAll('file', options.signal);
  } finally {
    await output.close();
    await Promise.allSettled([stt.close(), tts.close(), detector.close(), input.close()]);
  }
}

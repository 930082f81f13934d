/**
 * The sound libraries' own prints, kept off the user's terminal
 * (native/audio-quiet): PortAudio's probe makes ALSA print dozens of
 * "ALSA lib ..." lines on a machine without a sound card, the JACK plugin
 * prints that no JACK server runs, and naudiodon printf()s every stream's
 * options. What of it matters (no sound card, a busy device) is read back
 * here and said once, as a log line or in the error that needs it.
 */
import { logEvent, type LogSink } from '../../log/index.js';
import { AppError, messageOf } from '../../errors/index.js';
import { loadNativeAddon, nativeAddonPath } from '../../native-addon/index.js';

interface AudioQuietAddon {
  quiet(): { alsa: boolean; jack: boolean; stdout: boolean };
  takeMessages(): string[];
}

/** What the libraries' messages since the last look say that a user needs. */
export interface AudioLibraryNews {
  /** ALSA found no sound card. */
  noSoundCard: boolean;
  /** A device was busy (another program holds it). */
  busy: string | undefined;
  /** How many messages there were. */
  count: number;
  /** How many said the output underflowed (PortAudio played silence: the process did not write in time). */
  underflows: number;
}

let addon: AudioQuietAddon | undefined;
let tried = false;
let logged = false;
let noSoundCardSeen = false;

/** Before PortAudio first loads. A missing addon is one warning naming the fix; the voice still works, noisily. */
export function quietAudioLibraries(log: LogSink = process.stderr): void {
  if (tried) return;
  tried = true;
  try {
    addon = loadNativeAddon<AudioQuietAddon>(nativeAddonPath('audio-quiet', 'audio_quiet.node'), {
      what: 'the addon that keeps the sound libraries quiet',
      code: 'AUDIO_QUIET_UNAVAILABLE',
      fix: 'run `bash scripts/setup.sh` (it builds the addon with scripts/build-audio-quiet.sh)',
      notIt: (module) => (typeof module?.quiet === 'function' && typeof module.takeMessages === 'function' ? undefined : 'no quiet/takeMessages functions'),
    });
    addon.quiet();
  } catch (error) {
    const message = error instanceof AppError ? error.message : messageOf(error);
    logEvent('warn', 'audio_quiet_unavailable', { error: message }, log);
  }
}

let underflowsSeen = 0;

/** Reads (and clears) what ALSA and JACK said since the last call. */
export function takeAudioLibraryNews(): AudioLibraryNews {
  const news = audioLibraryNews(addon?.takeMessages() ?? []);
  if (news.noSoundCard) noSoundCardSeen = true;
  underflowsSeen += news.underflows;
  return news;
}

/**
 * Output underflows naudiodon reported in this process so far (read now): each one a gap the
 * speaker played as silence, a click. Logged as `audio_output_underflow` when the count grew.
 */
export function countOutputUnderflows(log: LogSink = process.stderr): number {
  const before = underflowsSeen;
  takeAudioLibraryNews();
  if (underflowsSeen > before) logEvent('warn', 'audio_output_underflow', { total: underflowsSeen, new: underflowsSeen - before }, log);
  return underflowsSeen;
}

/** ALSA said at some probe of this process that there is no sound card. */
export function noSoundCardSeenByAlsa(): boolean {
  return noSoundCardSeen;
}

/** Pure: the parts of the libraries' messages that matter. */
export function audioLibraryNews(messages: readonly string[]): AudioLibraryNews {
  const busy = messages.find((m) => /busy|EBUSY|unable to open slave/i.test(m));
  return {
    noSoundCard: messages.some((m) => /cannot find card|no soundcards found/i.test(m)),
    busy,
    count: messages.length,
    underflows: messages.filter((m) => /output underflow/i.test(m)).length,
  };
}

/** The probe's news as one log line, once per process, when there is something to say. */
export function logAudioLibraryNews(news: AudioLibraryNews, log: LogSink = process.stderr): void {
  if (logged || (!news.noSoundCard && news.busy === undefined)) return;
  logged = true;
  logEvent('info', 'audio_libraries', { noSoundCard: news.noSoundCard, ...(news.busy ? { busy: news.busy } : {}), messages: news.count }, log);
}

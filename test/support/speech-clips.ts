import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readWav, toVoiceFormat } from '../../src/voice/audio/index.js';

/** Debian's pocketsphinx-testdata: five audiobook clips of real recorded speech, with their transcripts. */
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

export interface SpeechClip {
  name: string;
  path: string;
  /** 16 kHz mono. */
  samples: Int16Array;
  transcript: string;
}

/** The five clips with their reference transcripts (the `transcription` file, without <s> marks). */
export async function librivoxClips(): Promise<SpeechClip[]> {
  return transcribedClips(LIBRIVOX_DIR, 'transcription');
}

/** The WAVs of `dir` named in its transcription file (`<s> words </s> (name)` per line). */
async function transcribedClips(dir: string, transcription: string): Promise<SpeechClip[]> {
  const lines = (await readFile(join(dir, transcription), 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const clips: SpeechClip[] = [];
  for (const line of lines) {
    const match = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)$/.exec(line.trim());
    if (!match) continue;
    const [, transcript = '', name = ''] = match;
    const path = join(dir, `${name}.wav`);
    const wav = await readWav(path);
    clips.push({ name, path, samples: toVoiceFormat(wav.samples, wav.sampleRate, wav.channels), transcript });
  }
  return clips;
}

/** `samples` followed by `ms` of silence: the clips end mid-sentence, and the VAD needs a pause to end one. */
export function withTrailingSilence(samples: Int16Array, ms: number): Int16Array {
  const out = new Int16Array(samples.length + Math.round((ms * 16_000) / 1000));
  out.set(samples);
  return out;
}

/** Debian's pocketsphinx-testdata: five short spoken card names, their transcripts and a JSGF grammar of them. */
export const CARDS_DIR = '/usr/share/pocketsphinx/test/data/cards';
export const CARDS_GRAMMAR = join(CARDS_DIR, 'cards.gram');

export async function cardsClips(): Promise<SpeechClip[]> {
  return transcribedClips(CARDS_DIR, 'cards.transcription');
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readWav, toVoiceFormat } from '../src/voice/audio/index.js';

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
  const lines = (await readFile(join(LIBRIVOX_DIR, 'transcription'), 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const clips: SpeechClip[] = [];
  for (const line of lines) {
    const match = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)$/.exec(line.trim());
    if (!match) continue;
    const [, transcript = '', name = ''] = match;
    const path = join(LIBRIVOX_DIR, `${name}.wav`);
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

import { readWav, toVoiceFormat } from '../../../src/voice/audio/index.js';

/** Real recorded speech from Debian's pocketsphinx-testdata, 16 kHz mono. */
export async function librivox(id: '0870' | '0880' | '0890'): Promise<Int16Array> {
  const wav = await readWav(`/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-${id}.wav`);
  return toVoiceFormat(wav.samples, wav.sampleRate, wav.channels);
}

/** Log energy of each 10 ms frame of [from, to): the loudness contour. */
export function envelope(x: Int16Array, from: number, to: number): number[] {
  const out: number[] = [];
  for (let s = from; s + 160 <= to; s += 160) {
    let sum = 0;
    for (let i = s; i < s + 160; i++) sum += x[i]! * x[i]!;
    out.push(Math.log10(sum / 160 + 1));
  }
  return out;
}

export function pearson(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let ma = 0, mb = 0;
  for (let i = 0; i < n; i++) { ma += a[i]! / n; mb += b[i]! / n; }
  let c = 0, va = 0, vb = 0;
  for (let i = 0; i < n; i++) {
    c += (a[i]! - ma) * (b[i]! - mb);
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
  }
  return c / Math.sqrt(va * vb);
}

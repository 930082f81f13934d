/**
 * Levels of a signal in a few frequency bands, 10 ms at a time: a Hann
 * window over the last 256 samples (16 ms at 16 kHz), a radix-2 FFT, and
 * the power summed in bands about a critical band wide (100 Hz to 7.7 kHz,
 * 20 bands). Used where a whole-band level hides what differs between two
 * voices at the same moment (the double-talk decision).
 */

const SIZE = 256;
const HALF = SIZE / 2;
/** Band edges, Hz (roughly the Bark scale from 100 Hz). */
const EDGES_HZ = [100, 200, 300, 400, 510, 630, 770, 920, 1080, 1270, 1480, 1720, 2000, 2320, 2700, 3150, 3700, 4400, 5300, 6400, 7700];

export const BAND_COUNT = EDGES_HZ.length - 1;

export class BandLevels {
  private readonly history = new Float64Array(SIZE);
  private readonly window = new Float64Array(SIZE);
  private readonly re = new Float64Array(SIZE);
  private readonly im = new Float64Array(SIZE);
  private readonly bandBins: Array<[number, number]>;

  constructor(sampleRate = 16_000) {
    for (let i = 0; i < SIZE; i++) this.window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (SIZE - 1));
    const binHz = sampleRate / SIZE;
    this.bandBins = EDGES_HZ.slice(0, -1).map((low, b) => [Math.max(1, Math.round(low / binHz)), Math.min(HALF, Math.round(EDGES_HZ[b + 1]! / binHz))]);
  }

  /** Takes the next samples (any count up to 256) and returns each band's level over the last 256, dB (10 log10 of power + 1). */
  push(samples: Int16Array, into: Float64Array = new Float64Array(BAND_COUNT)): Float64Array {
    const n = Math.min(samples.length, SIZE);
    this.history.copyWithin(0, n);
    for (let i = 0; i < n; i++) this.history[SIZE - n + i] = samples[samples.length - n + i]!;
    for (let i = 0; i < SIZE; i++) {
      this.re[i] = this.history[i]! * this.window[i]!;
      this.im[i] = 0;
    }
    fft(this.re, this.im);
    for (let b = 0; b < BAND_COUNT; b++) {
      const [from, to] = this.bandBins[b]!;
      let power = 0;
      for (let k = from; k < to; k++) power += this.re[k]! * this.re[k]! + this.im[k]! * this.im[k]!;
      into[b] = 10 * Math.log10(power / SIZE + 1);
    }
    return into;
  }
}

/** In-place iterative radix-2 FFT; the length is a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let start = 0; start < n; start += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = start + k;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        [cr, ci] = [cr * wr - ci * wi, cr * wi + ci * wr];
      }
    }
  }
}

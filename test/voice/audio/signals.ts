/** Test signals and measurements. */

export function sine(frequency: number, sampleRate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
  return out;
}

export function toInt16(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (v) => Math.round(v * 32767));
}

export function rms(samples: ArrayLike<number>, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / (to - from));
}

/** Amplitude of the component at `frequency` (a single-bin DFT over whole periods is exact for a pure tone). */
export function toneAmplitude(samples: ArrayLike<number>, frequency: number, sampleRate: number, from: number, to: number): number {
  let re = 0;
  let im = 0;
  for (let i = from; i < to; i++) {
    const phase = (2 * Math.PI * frequency * i) / sampleRate;
    re += samples[i]! * Math.cos(phase);
    im += samples[i]! * Math.sin(phase);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

/** Frequency from the mean spacing of rising zero crossings (linearly interpolated) in [from, to). */
export function zeroCrossingFrequency(samples: ArrayLike<number>, sampleRate: number, from: number, to: number): number {
  const crossings: number[] = [];
  for (let i = from + 1; i < to; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (a < 0 && b >= 0) crossings.push(i - 1 + -a / (b - a));
  }
  const span = crossings[crossings.length - 1]! - crossings[0]!;
  return (sampleRate * (crossings.length - 1)) / span;
}

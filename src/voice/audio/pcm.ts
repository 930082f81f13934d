/**
 * Sample format conversions. Floats are in [-1, 1); int16 maps by 32768 both
 * ways so a round trip int16 -> float -> int16 is exact.
 */
import { AppError } from '../../errors/index.js';

export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/** Rounds and clips (a resampler's ringing can overshoot full scale). */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * 32768);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}

/**
 * Averages interleaved channels into one, as floats. The mean (not the sum)
 * keeps full-scale stereo from clipping; a channel that is silent halves the
 * other's level, which is what every simple downmix does.
 */
export function mixToMono(interleaved: Int16Array, channels: number): Float32Array {
  if (!Number.isInteger(channels) || channels < 1 || interleaved.length % channels !== 0) {
    throw new AppError('AUDIO_FORMAT_INVALID', `cannot mix ${interleaved.length} samples as whole frames of ${channels} channel(s)`);
  }
  const frames = interleaved.length / channels;
  const out = new Float32Array(frames);
  const scale = 1 / (32768 * channels);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += interleaved[f * channels + c]!;
    out[f] = sum * scale;
  }
  return out;
}

/** The chunks one after another, as one array. */
export function concatSamples(chunks: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

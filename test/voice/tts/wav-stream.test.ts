import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { encodeWav, toVoiceFormat } from '../../../src/voice/audio/index.js';
import { StreamedWavDecoder } from '../../../src/voice/tts/wav-stream.js';
import { concatSamples } from '../../../src/voice/audio/index.js';

function tone(sampleRate: number, channels: number, seconds: number): Int16Array {
  const frames = Math.round(sampleRate * seconds);
  const out = new Int16Array(frames * channels);
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < channels; c++) out[f * channels + c] = Math.round(8000 * Math.sin((2 * Math.PI * (220 + 110 * c) * f) / sampleRate));
  }
  return out;
}

/** Feeds `bytes` in pieces of the given sizes (cycled), as a pipe would hand them over. */
function decode(bytes: Uint8Array, sizes: number[]): Int16Array[] {
  const decoder = new StreamedWavDecoder('test stream');
  const chunks: Int16Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(...decoder.push(bytes.subarray(at, at + size)));
    at += size;
  }
  chunks.push(...decoder.end());
  return chunks;
}

/** espeak-ng's header: the data size is a placeholder, since it does not know it yet. */
function asStreamed(wav: Buffer): Buffer {
  const copy = Buffer.from(wav);
  copy.writeUInt32LE(0x7ffff000, 40);
  return copy;
}

describe('StreamedWavDecoder', () => {
  it.each([
    [22050, 1],
    [24000, 2],
    [16000, 1],
  ])('%i Hz, %i channel(s): the same 16 kHz mono audio however the bytes are split', (sampleRate, channels) => {
    const samples = tone(sampleRate, channels, 0.7);
    const wav = asStreamed(encodeWav({ sampleRate, channels, samples }));
    const expected = toVoiceFormat(samples, sampleRate, channels);
    for (const sizes of [[wav.length], [1], [3, 7, 4096], [45, 1, 2]]) {
      const chunks = decode(wav, sizes);
      for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBe(1600);
      expect(concatSamples(chunks)).toEqual(expected);
    }
  });

  it('a stream that ends inside its header is an invalid WAV', () => {
    const decoder = new StreamedWavDecoder('espeak-ng output');
    decoder.push(new Uint8Array(Buffer.from('RIFF\0\0\0\0WAVEfmt ')));
    try {
      decoder.end();
      expect.unreachable();
    } catch (error) {
      expect(isAppError(error, 'AUDIO_WAV_INVALID')).toBe(true);
      expect((error as Error).message).toContain('espeak-ng output');
    }
  });

  it('a header that is not 16-bit PCM is refused by the WAV parser', () => {
    const wav = asStreamed(encodeWav({ sampleRate: 22050, channels: 1, samples: new Int16Array(10) }));
    wav.writeUInt16LE(8, 34);
    wav.writeUInt16LE(1, 32);
    expect(() => new StreamedWavDecoder('s').push(wav)).toThrowError(expect.objectContaining({ code: 'AUDIO_WAV_UNSUPPORTED' }));
  });
});

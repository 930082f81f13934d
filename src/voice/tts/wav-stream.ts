/**
 * A WAV that arrives in pieces (espeak-ng's stdout) turned into voice-format
 * chunks while it arrives. A streaming writer cannot know the data size, so
 * espeak-ng writes a placeholder (0x7ffff000) that `parseWav` rightly
 * rejects as a truncated file: the header is validated by `parseWav` with
 * the data size set to 0, and the samples are decoded here as they come.
 */
import { AppError } from '../../errors/index.js';
import { Resampler, floatToInt16, mixToMono, parseWav } from '../audio/index.js';
import { SAMPLE_RATE } from '../types.js';
import { ChunkBuffer } from './chunks.js';

/** A header longer than this (it is 44 bytes from espeak-ng) means the stream is not a WAV. */
const MAX_HEADER_BYTES = 64 * 1024;

export class StreamedWavDecoder {
  private header: Uint8Array = new Uint8Array(0);
  private format: { sampleRate: number; channels: number } | undefined;
  private carry: Uint8Array = new Uint8Array(0);
  private resampler: Resampler | undefined;
  private readonly chunks: ChunkBuffer;

  /** `source` names the stream in errors ("espeak-ng output"). */
  constructor(
    private readonly source: string,
    chunkSamples?: number,
  ) {
    this.chunks = new ChunkBuffer(chunkSamples);
  }

  /** Decodes the next bytes; returns the 16 kHz mono chunks now complete. */
  push(bytes: Uint8Array): Int16Array[] {
    let body = bytes;
    if (!this.format) {
      this.header = concat(this.header, bytes);
      const dataStart = this.readHeader();
      if (dataStart === undefined) return [];
      body = this.header.subarray(dataStart);
      this.header = new Uint8Array(0);
    }
    const format = this.format!;
    const all = concat(this.carry, body);
    const frameBytes = format.channels * 2;
    const whole = all.length - (all.length % frameBytes);
    this.carry = all.slice(whole);
    if (whole === 0) return [];
    const view = new DataView(all.buffer, all.byteOffset, whole);
    const samples = new Int16Array(whole / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    const mono = mixToMono(samples, format.channels);
    return this.chunks.push(floatToInt16(this.resampler ? this.resampler.push(mono) : mono));
  }

  /** The stream ended: the resampler's tail and the last, shorter chunk. */
  end(): Int16Array[] {
    if (!this.format) {
      if (this.header.length > 0) throw this.invalid(`ended after ${this.header.length} bytes, before its data chunk`);
      return [];
    }
    const tail = this.resampler ? floatToInt16(this.resampler.flush()) : new Int16Array(0);
    return [...this.chunks.push(tail), ...this.chunks.flush()];
  }

  /** Where the samples start, once the header up to the data chunk is here. */
  private readHeader(): number | undefined {
    const bytes = this.header;
    if (bytes.length < 12) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    let offset = 12;
    while (offset + 8 <= bytes.length) {
      const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
      const size = view.getUint32(offset + 4, true);
      if (id === 'data') {
        const header = bytes.slice(0, offset + 8);
        new DataView(header.buffer).setUint32(offset + 4, 0, true);
        const { sampleRate, channels } = parseWav(header, this.source);
        this.format = { sampleRate, channels };
        if (sampleRate !== SAMPLE_RATE) this.resampler = new Resampler(sampleRate, SAMPLE_RATE);
        return offset + 8;
      }
      offset += 8 + size + (size % 2);
    }
    if (bytes.length > MAX_HEADER_BYTES) throw this.invalid(`no data chunk in the first ${bytes.length} bytes`);
    return undefined;
  }

  private invalid(what: string): AppError {
    return new AppError('AUDIO_WAV_INVALID', `${this.source}: not a valid WAV stream: ${what}`);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * RIFF WAV, PCM 16-bit only, any rate and channel count. Parsing is strict
 * about structure (a file we misread would feed noise to recognition) and
 * names the file and the fault in every error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { AppError } from '../../errors/index.js';

/** Decoded PCM: `samples` interleaved by channel. */
export interface WavAudio {
  sampleRate: number;
  channels: number;
  samples: Int16Array;
}

const FORMAT_PCM = 1;
const FORMAT_EXTENSIBLE = 0xfffe;
/** Streaming writers (sox, ffmpeg to a pipe) leave this as the data size: "until the end". */
const SIZE_UNKNOWN = 0xffffffff;
const HEADER_BYTES = 44;

function invalid(source: string, what: string): AppError {
  return new AppError('AUDIO_WAV_INVALID', `${source}: not a valid WAV file: ${what}`);
}

function unsupported(source: string, what: string): AppError {
  return new AppError('AUDIO_WAV_UNSUPPORTED', `${source}: unsupported WAV encoding: ${what} (only 16-bit integer PCM is read)`);
}

interface Format {
  channels: number;
  sampleRate: number;
}

function parseFormat(view: DataView, offset: number, size: number, source: string): Format {
  if (size < 16) throw invalid(source, `fmt chunk is ${size} bytes, needs at least 16`);
  let format = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bits = view.getUint16(offset + 14, true);
  if (format === FORMAT_EXTENSIBLE) {
    if (size < 40) throw invalid(source, `extensible fmt chunk is ${size} bytes, needs 40`);
    // The sub-format GUID starts with the plain format code.
    format = view.getUint16(offset + 24, true);
  }
  if (format !== FORMAT_PCM) throw unsupported(source, `format code ${format}`);
  if (bits !== 16) throw unsupported(source, `${bits} bits per sample`);
  if (channels === 0) throw invalid(source, 'fmt chunk says 0 channels');
  if (sampleRate === 0) throw invalid(source, 'fmt chunk says a sample rate of 0');
  if (blockAlign !== channels * 2) throw invalid(source, `block align ${blockAlign} does not match ${channels} channel(s) of 16 bits`);
  return { channels, sampleRate };
}

/** Decodes a WAV held in memory; `source` names it in errors (a path, "upload", ...). */
export function parseWav(bytes: Uint8Array, source = 'WAV data'): WavAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.byteLength < 12) throw invalid(source, `only ${bytes.byteLength} bytes, shorter than a RIFF header`);
  if (ascii(0) !== 'RIFF') throw invalid(source, `starts with ${JSON.stringify(ascii(0))}, not "RIFF"`);
  if (ascii(8) !== 'WAVE') throw invalid(source, `RIFF form type is ${JSON.stringify(ascii(8))}, not "WAVE"`);

  let format: Format | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.byteLength) {
    const id = ascii(offset);
    let size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    const remaining = bytes.byteLength - body;
    if (id === 'data' && size === SIZE_UNKNOWN) size = remaining - (remaining % 2);
    if (size > remaining) throw invalid(source, `${JSON.stringify(id)} chunk claims ${size} bytes but only ${remaining} remain (truncated file?)`);
    if (id === 'fmt ') {
      format = parseFormat(view, body, size, source);
    } else if (id === 'data') {
      if (!format) throw invalid(source, 'data chunk comes before any fmt chunk');
      const frameBytes = format.channels * 2;
      if (size % frameBytes !== 0) throw invalid(source, `data chunk of ${size} bytes is not a whole number of ${frameBytes}-byte sample frames`);
      const samples = new Int16Array(size / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + i * 2, true);
      return { sampleRate: format.sampleRate, channels: format.channels, samples };
    }
    // Chunks are padded to an even length.
    offset = body + size + (size % 2);
  }
  throw invalid(source, format ? 'no data chunk' : 'no fmt chunk');
}

/** Reads and decodes a WAV file. */
export async function readWav(path: string): Promise<WavAudio> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new AppError('AUDIO_WAV_UNREADABLE', `${path}: cannot read the WAV file`, { cause: error });
  }
  return parseWav(bytes, path);
}

/** Encodes interleaved 16-bit samples as a canonical 44-byte-header WAV. */
export function encodeWav(audio: WavAudio): Buffer {
  const { sampleRate, channels, samples } = audio;
  if (samples.length % channels !== 0) {
    throw new AppError('AUDIO_WAV_INVALID', `cannot encode ${samples.length} samples as whole frames of ${channels} channel(s)`);
  }
  const dataBytes = samples.length * 2;
  const out = Buffer.alloc(HEADER_BYTES + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels * 2, 28);
  out.writeUInt16LE(channels * 2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, HEADER_BYTES + i * 2);
  return out;
}

export async function writeWav(path: string, audio: WavAudio): Promise<void> {
  try {
    await writeFile(path, encodeWav(audio));
  } catch (error) {
    throw new AppError('AUDIO_WAV_UNWRITABLE', `${path}: cannot write the WAV file`, { cause: error });
  }
}

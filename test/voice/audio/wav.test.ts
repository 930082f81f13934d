import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, parseWav, readWav, writeWav } from '../../../src/voice/audio/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

/** A WAV built chunk by chunk, to make each malformation on purpose. */
function riff(chunks: Array<[string, Buffer]>, form = 'WAVE', magic = 'RIFF'): Buffer {
  const parts = chunks.map(([id, body]) => {
    const header = Buffer.alloc(8);
    header.write(id, 0, 'ascii');
    header.writeUInt32LE(body.length, 4);
    return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
  });
  const head = Buffer.alloc(12);
  head.write(magic, 0, 'ascii');
  head.write(form, 8, 'ascii');
  const out = Buffer.concat([head, ...parts]);
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

function fmt(options: { format?: number; channels?: number; rate?: number; bits?: number; blockAlign?: number; size?: number } = {}): Buffer {
  const { format = 1, channels = 1, rate = 16000, bits = 16 } = options;
  const body = Buffer.alloc(Math.max(16, options.size ?? 16));
  body.writeUInt16LE(format, 0);
  body.writeUInt16LE(channels, 2);
  body.writeUInt32LE(rate, 4);
  body.writeUInt32LE(rate * channels * 2, 8);
  body.writeUInt16LE(options.blockAlign ?? (channels * bits) / 8, 12);
  body.writeUInt16LE(bits, 14);
  return body.subarray(0, options.size ?? 16);
}

function extensibleFmt(subFormat: number, bits = 16): Buffer {
  const body = Buffer.alloc(40);
  fmt({ format: 0xfffe, channels: 2, bits }).copy(body);
  body.writeUInt16LE(22, 16);
  body.writeUInt16LE(subFormat, 24);
  return body;
}

function codeOf(bytes: Buffer): string {
  try {
    parseWav(bytes, 'case.wav');
  } catch (error) {
    expect((error as Error).message).toContain('case.wav');
    return (error as { code: string }).code;
  }
  return 'parsed';
}

describe('WAV', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('da-wav-');
  });
  afterAll(() => dir.remove());

  it('round-trips mono and stereo at any rate, in memory and on disk', async () => {
    const stereo = Int16Array.from([0, 1, -1, 32767, -32768, 1234, 5, -6]);
    const back = parseWav(encodeWav({ sampleRate: 44100, channels: 2, samples: stereo }));
    expect(back).toEqual({ sampleRate: 44100, channels: 2, samples: stereo });

    const file = join(dir.path, 'mono.wav');
    const mono = Int16Array.from({ length: 16000 }, (_, i) => (i * 37) % 65536 - 32768);
    await writeWav(file, { sampleRate: 16000, channels: 1, samples: mono });
    expect(await readWav(file)).toEqual({ sampleRate: 16000, channels: 1, samples: mono });
  });

  it('reads what sox writes, including the extensible header it uses for many channels', async () => {
    const file = join(dir.path, 'sox3.wav');
    execFileSync('sox', ['-n', '-r', '8000', '-c', '3', '-b', '16', file, 'synth', '0.1', 'sine', '440']);
    const wav = await readWav(file);
    expect(wav.sampleRate).toBe(8000);
    expect(wav.channels).toBe(3);
    expect(wav.samples.length).toBe(800 * 3);
  });

  it('skips other chunks (odd sizes padded) and reads a streamed "unknown" data size to the end', () => {
    const data = Buffer.from(Int16Array.from([1, 2, 3]).buffer);
    expect(parseWav(riff([['LIST', Buffer.from('abc')], ['fmt ', fmt()], ['data', data]])).samples).toEqual(Int16Array.from([1, 2, 3]));
    const streamed = riff([['fmt ', fmt()], ['data', data]]);
    streamed.writeUInt32LE(0xffffffff, 40);
    expect(parseWav(streamed).samples).toEqual(Int16Array.from([1, 2, 3]));
    expect(parseWav(riff([['fmt ', extensibleFmt(1)], ['data', Buffer.alloc(8)]])).channels).toBe(2);
  });

  it('names the file and the fault for every malformation', () => {
    const data = Buffer.alloc(4);
    const cases: Array<[string, Buffer, string]> = [
      ['shorter than a header', Buffer.from('RIFF'), 'AUDIO_WAV_INVALID'],
      ['not RIFF', riff([['fmt ', fmt()], ['data', data]], 'WAVE', 'RIFX'), 'AUDIO_WAV_INVALID'],
      ['not WAVE', riff([['fmt ', fmt()], ['data', data]], 'AVI '), 'AUDIO_WAV_INVALID'],
      ['no fmt chunk', riff([['data', data]]), 'AUDIO_WAV_INVALID'],
      ['no data chunk', riff([['fmt ', fmt()]]), 'AUDIO_WAV_INVALID'],
      ['fmt too short', riff([['fmt ', fmt({ size: 14 })], ['data', data]]), 'AUDIO_WAV_INVALID'],
      ['zero channels', riff([['fmt ', fmt({ channels: 0, blockAlign: 0 })], ['data', data]]), 'AUDIO_WAV_INVALID'],
      ['zero rate', riff([['fmt ', fmt({ rate: 0 })], ['data', data]]), 'AUDIO_WAV_INVALID'],
      ['block align wrong', riff([['fmt ', fmt({ blockAlign: 4 })], ['data', data]]), 'AUDIO_WAV_INVALID'],
      ['partial sample frame', riff([['fmt ', fmt({ channels: 2 })], ['data', Buffer.alloc(6)]]), 'AUDIO_WAV_INVALID'],
      ['extensible fmt too short', riff([['fmt ', fmt({ format: 0xfffe, size: 18 })], ['data', data]]), 'AUDIO_WAV_INVALID'],
      ['8-bit', riff([['fmt ', fmt({ bits: 8 })], ['data', data]]), 'AUDIO_WAV_UNSUPPORTED'],
      ['24-bit', riff([['fmt ', fmt({ bits: 24 })], ['data', Buffer.alloc(6)]]), 'AUDIO_WAV_UNSUPPORTED'],
      ['float', riff([['fmt ', fmt({ format: 3, bits: 32 })], ['data', data]]), 'AUDIO_WAV_UNSUPPORTED'],
      ['extensible float', riff([['fmt ', extensibleFmt(3, 32)], ['data', data]]), 'AUDIO_WAV_UNSUPPORTED'],
      ['mu-law', riff([['fmt ', fmt({ format: 7, bits: 8 })], ['data', data]]), 'AUDIO_WAV_UNSUPPORTED'],
    ];
    for (const [what, bytes, code] of cases) expect(codeOf(bytes), what).toBe(code);

    const beforeFmt = riff([['data', data], ['fmt ', fmt()]]);
    expect(() => parseWav(beforeFmt, 'case.wav')).toThrow(/data chunk comes before any fmt chunk/);
    const truncated = riff([['fmt ', fmt()], ['data', Buffer.alloc(100)]]).subarray(0, 60);
    expect(codeOf(truncated)).toBe('AUDIO_WAV_INVALID');
    expect(() => parseWav(truncated, 'case.wav')).toThrow(/claims 100 bytes but only 16 remain/);
  });

  it('reports a missing or unwritable file with its path', async () => {
    const missing = join(dir.path, 'nope.wav');
    await expect(readWav(missing)).rejects.toMatchObject({ code: 'AUDIO_WAV_UNREADABLE', message: expect.stringContaining(missing) });
    const bad = join(dir.path, 'no-such-dir', 'x.wav');
    await expect(writeWav(bad, { sampleRate: 16000, channels: 1, samples: new Int16Array(1) })).rejects.toMatchObject({
      code: 'AUDIO_WAV_UNWRITABLE',
    });
  });
});

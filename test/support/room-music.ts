/**
 * Music for the echo room: a short piece synthesized by sox (Debian's sox,
 * its `synth` plucked strings), looped under the room's noise. Music is the
 * hard background for a barge-in detector: it is voiced, tonal and full of
 * onsets, unlike steady noise. The piece is eight bars in C at 120 bpm
 * (C, Am, F, G, C, Em, F, G): each bar a strummed chord, a bass note on
 * beats one and three, and a plucked melody of quarter notes over the
 * chord's tones, so its level and spectrum change every half second.
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const BAR_SECONDS = 2;
const BEAT_SECONDS = BAR_SECONDS / 4;

/** Each bar: the chord's notes (strummed, low to high), its bass note, and its four melody notes. */
const BARS: ReadonlyArray<{ chord: readonly string[]; bass: string; melody: readonly string[] }> = [
  { chord: ['C3', 'G3', 'C4', 'E4', 'G4'], bass: 'C2', melody: ['E5', 'G5', 'C6', 'G5'] },
  { chord: ['A2', 'E3', 'A3', 'C4', 'E4'], bass: 'A1', melody: ['A5', 'E5', 'C5', 'E5'] },
  { chord: ['F2', 'C3', 'F3', 'A3', 'C4'], bass: 'F1', melody: ['F5', 'A5', 'C6', 'A5'] },
  { chord: ['G2', 'D3', 'G3', 'B3', 'D4'], bass: 'G1', melody: ['D5', 'G5', 'B5', 'D6'] },
  { chord: ['C3', 'G3', 'C4', 'E4', 'G4'], bass: 'C2', melody: ['G5', 'E5', 'C5', 'E5'] },
  { chord: ['E2', 'B2', 'E3', 'G3', 'B3'], bass: 'E1', melody: ['B4', 'E5', 'G5', 'B5'] },
  { chord: ['F2', 'C3', 'F3', 'A3', 'C4'], bass: 'F1', melody: ['C6', 'A5', 'F5', 'C5'] },
  { chord: ['G2', 'D3', 'G3', 'B3', 'D4'], bass: 'G1', melody: ['B4', 'D5', 'F5', 'G5'] },
];

/** The piece's length, s: one pass through the bars. */
export const ROOM_MUSIC_SECONDS = BARS.length * BAR_SECONDS;

/**
 * Writes the piece as raw 16-bit mono samples at `rate`, scaled so that its
 * RMS is `rmsDbfs` (full scale 32768), to `file`; `scratchDir` holds the
 * tracks while they are mixed. Rejects naming sox's complaint if it fails.
 */
export async function writeRoomMusic(file: string, options: { rate: number; rmsDbfs: number; scratchDir: string }): Promise<void> {
  const { rate, scratchDir } = options;
  const raw = ['-r', String(rate), '-c', '1', '-b', '16', '-e', 'signed', '-t', 'raw'];
  const tracks = { chords: join(scratchDir, 'music-chords.raw'), bass: join(scratchDir, 'music-bass.raw'), melody: join(scratchDir, 'music-melody.raw') };
  const chained = (parts: string[][]): string[] => parts.flatMap((part, i) => (i === 0 ? part : [':', ...part]));
  try {
    // A strum: the strings plucked 25 ms apart, mixed down to one channel, faded out at the bar's end.
    const strums = BARS.map((bar) => ['synth', String(BAR_SECONDS), ...bar.chord.flatMap((note) => ['pluck', note]), 'delay', ...bar.chord.map((_, i) => (i * 0.025).toFixed(3)), 'remix', '-', 'fade', '0', String(BAR_SECONDS), '0.2']);
    await sox(['-n', ...raw, tracks.chords, ...chained(strums)]);
    const bassNotes = BARS.flatMap((bar) => [bar.bass, bar.bass]).map((note) => ['synth', String(2 * BEAT_SECONDS), 'pluck', note, 'fade', '0', String(2 * BEAT_SECONDS), '0.1']);
    await sox(['-n', ...raw, tracks.bass, ...chained(bassNotes)]);
    const melodyNotes = BARS.flatMap((bar) => bar.melody).map((note) => ['synth', String(BEAT_SECONDS), 'pluck', note, 'fade', '0', String(BEAT_SECONDS), '0.05']);
    await sox(['-n', ...raw, tracks.melody, ...chained(melodyNotes)]);
    const mixed = join(scratchDir, 'music-mixed.raw');
    await sox(['-m', '-v', '0.5', ...raw, tracks.chords, '-v', '0.4', ...raw, tracks.bass, '-v', '0.35', ...raw, tracks.melody, ...raw, mixed]);
    const bytes = await readFile(mixed);
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
    const scaled = atRms(samples, options.rmsDbfs);
    await writeFile(file, Buffer.from(scaled.buffer, scaled.byteOffset, scaled.byteLength));
  } finally {
    await Promise.all([...Object.values(tracks), join(scratchDir, 'music-mixed.raw')].map((f) => rm(f, { force: true })));
  }
}

/** The samples scaled so that their RMS is `dbfs`; throws on silence or where the peaks would clip. */
export function atRms(samples: Int16Array, dbfs: number): Int16Array {
  let sum = 0;
  let peak = 0;
  for (const s of samples) {
    sum += s * s;
    peak = Math.max(peak, Math.abs(s));
  }
  const rms = Math.sqrt(sum / Math.max(1, samples.length));
  if (rms === 0) throw new Error('room music: the synthesized piece is silent');
  const gain = (32_768 * 10 ** (dbfs / 20)) / rms;
  if (peak * gain > 32_767) throw new Error(`room music: at ${dbfs} dBFS RMS the piece's peaks would clip (peak ${Math.round(peak * gain)})`);
  return Int16Array.from(samples, (s) => Math.round(s * gain));
}

function sox(args: string[]): Promise<void> {
  const child = spawn('sox', ['-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`room music: sox does not run: ${error.message}`)));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`room music: sox exited ${code}: ${stderr.trim()}`))));
  });
}

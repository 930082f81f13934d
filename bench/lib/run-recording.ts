/**
 * A barge-in run kept for replay (BARGE_IN_RECORD=folder): every microphone
 * frame and the render paired with it, as the live detector got them, and
 * each trial's span on the capture clock, so bench/barge-in-replay.ts can
 * run other detector rules over exactly what a room gave.
 *
 *   <room>.mic.s16, <room>.render.s16   16 kHz mono int16 LE, frame after frame (render zeros when none played)
 *   <room>.json                         { rate, frameSamples, frames: [[atMs, playing 0|1], ...], trials: [...] }
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioFrame } from '../../src/voice/types.js';

export interface RecordedTrial {
  kind: 'warm_up' | 'baseline' | 'echo_only' | 'talk_over';
  /** Capture clock, ms. */
  fromMs: number;
  toMs: number;
  /** talk_over: the clip's voiced onset at the microphone, on the capture clock (absent: not found). */
  onsetMs?: number;
  clip?: string;
  /** What the live run did: interruptions (echo_only), its latency or why it missed (talk_over). */
  live?: Record<string, unknown>;
}

export interface RunRecordingFile {
  rate: number;
  frameSamples: number;
  /** Per frame: its capture time (ms) and whether render was paired with it. */
  frames: Array<[number, 0 | 1]>;
  trials: RecordedTrial[];
}

export class RunRecording {
  private readonly mic: WriteStream;
  private readonly render: WriteStream;
  private readonly frames: Array<[number, 0 | 1]> = [];
  private readonly trials: RecordedTrial[] = [];
  private frameSamples = 0;

  constructor(
    private readonly dir: string,
    private readonly room: string,
  ) {
    this.mic = createWriteStream(join(dir, `${room}.mic.s16`));
    this.render = createWriteStream(join(dir, `${room}.render.s16`));
  }

  heard(frame: AudioFrame, render: Int16Array | null): void {
    this.frameSamples = frame.samples.length;
    this.mic.write(Buffer.from(frame.samples.buffer.slice(frame.samples.byteOffset, frame.samples.byteOffset + frame.samples.byteLength)));
    const paired = render ?? new Int16Array(frame.samples.length);
    this.render.write(Buffer.from(paired.buffer.slice(paired.byteOffset, paired.byteOffset + paired.byteLength)));
    this.frames.push([frame.atMs, render ? 1 : 0]);
  }

  trial(trial: RecordedTrial): void {
    this.trials.push(trial);
  }

  async close(): Promise<void> {
    await Promise.all([this.mic, this.render].map((s) => new Promise((resolve) => s.end(resolve))));
    const file: RunRecordingFile = { rate: 16_000, frameSamples: this.frameSamples, frames: this.frames, trials: this.trials };
    await writeFile(join(this.dir, `${this.room}.json`), JSON.stringify(file));
  }
}

/** A recorded room read back: its trials and frames, and the microphone and render audio. */
export interface RecordedRoom {
  name: string;
  recording: RunRecordingFile;
  mic: Int16Array;
  render: Int16Array;
}

/** The rooms a recording folder holds, by name, sorted. */
export async function recordedRoomNames(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)).sort();
}

export async function readRecordedRoom(folder: string, name: string): Promise<RecordedRoom> {
  const recording = JSON.parse(await readFile(join(folder, `${name}.json`), 'utf8')) as RunRecordingFile;
  const [mic, render] = await Promise.all([`${name}.mic.s16`, `${name}.render.s16`].map(async (file) => int16(await readFile(join(folder, file)))));
  return { name, recording, mic: mic!, render: render! };
}

function int16(buffer: Buffer): Int16Array {
  return new Int16Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
}

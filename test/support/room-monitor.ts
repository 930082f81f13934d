/**
 * Recording a room's stereo monitor as it happens (pacat --record), both
 * channels kept as 16-bit samples, and playing raw audio into a sink: the
 * measuring hands of the room benches and their tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import type { PulseServer } from './pulse-server.js';
import { stopChild } from './pulse-server.js';

/** The two channels of a stereo monitor, recorded from its start; the last `keepSeconds` are kept. */
export class MonitorRecording {
  /** Chunks of what was recorded, each with the index of its first sample. */
  private readonly chunks: Array<{ start: number; left: Int16Array; right: Int16Array }> = [];
  private recorded = 0;
  private carry = Buffer.alloc(0);
  /** performance.now() at sample 0, from the least delayed chunk. */
  private zeroMs = Number.POSITIVE_INFINITY;

  private child: ChildProcess | undefined;

  private constructor(
    readonly rate: number,
    private readonly keepSeconds: number,
  ) {}

  static async start(pulse: PulseServer, monitor: string, rate: number, keepSeconds = 120): Promise<MonitorRecording> {
    const recording = new MonitorRecording(rate, keepSeconds);
    recording.child = await recordStereo(pulse, monitor, rate, (chunk) => recording.take(chunk));
    return recording;
  }

  /** Samples recorded so far, per channel; indices count from the recording's start. */
  get length(): number {
    return this.recorded;
  }

  /** Samples [from, to) of one channel (what is still kept of them). */
  slice(channel: 'left' | 'right', from: number, to = this.recorded): Int16Array {
    const out = new Int16Array(Math.max(0, to - from));
    for (const chunk of this.chunks) {
      const samples = chunk[channel];
      const a = Math.max(from, chunk.start);
      const b = Math.min(to, chunk.start + samples.length);
      if (a < b) out.set(samples.subarray(a - chunk.start, b - chunk.start), a - from);
    }
    return out;
  }

  /** performance.now() when sample `index` was recorded, to within the capture's delivery delay (about 10 ms). */
  perfMsOf(index: number): number {
    return this.zeroMs + (index / this.rate) * 1000;
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child);
  }

  private take(chunk: Buffer): void {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const frames = Math.floor(data.length / 4);
    const left = new Int16Array(frames);
    const right = new Int16Array(frames);
    for (let i = 0; i < frames; i++) {
      left[i] = data.readInt16LE(4 * i);
      right[i] = data.readInt16LE(4 * i + 2);
    }
    this.chunks.push({ start: this.recorded, left, right });
    this.recorded += frames;
    this.carry = Buffer.from(data.subarray(frames * 4));
    // The chunk's last sample was recorded no later than now: the smallest offset over chunks is the least delayed one.
    this.zeroMs = Math.min(this.zeroMs, performance.now() - (this.recorded / this.rate) * 1000);
    const keepFrom = this.recorded - this.keepSeconds * this.rate;
    while (this.chunks.length > 0 && this.chunks[0]!.start + this.chunks[0]!.left.length < keepFrom) this.chunks.shift();
  }
}

/**
 * Records `monitor` in stereo s16le at `rate` with pacat (10 ms latency),
 * each chunk handed to `onChunk`; resolves once audio flows, rejects naming
 * why it does not.
 */
export async function recordStereo(pulse: PulseServer, monitor: string, rate: number, onChunk: (chunk: Buffer) => void): Promise<ChildProcess> {
  const args = ['--record', `--device=${monitor}`, `--rate=${rate}`, '--channels=2', '--format=s16le', '--latency-msec=10', '--raw'];
  const child = spawn('pacat', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...pulse.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout?.on('data', onChunk);
  child.stderr?.resume();
  const flowing = await new Promise<string | true>((resolve) => {
    child.once('error', (error) => resolve(`pacat cannot record ${monitor}: ${error.message}`));
    child.once('exit', (code) => resolve(`pacat exited (${code}) before recording ${monitor}`));
    child.stdout?.once('data', () => resolve(true));
    setTimeout(() => resolve(`pacat recorded nothing from ${monitor} within 4 s`), 4000).unref();
  });
  if (flowing !== true) {
    await stopChild(child);
    throw new Error(flowing);
  }
  return child;
}

/**
 * Plays a raw s16le file into a sink in real time (20 ms latency: the
 * default 2 s would lose the tail); resolves once drained. A file, not a
 * pipe: once a piped stdin has ended, pacat spins on it until the stream has
 * drained (about 65% of a core here, for as long as the sound plays).
 */
export function playRaw(pulse: PulseServer, sink: string, rawFile: string, format: { rate: number; channels: 1 | 2 }): Promise<void> {
  const args = ['--playback', `--device=${sink}`, `--rate=${format.rate}`, `--channels=${format.channels}`, '--format=s16le', '--latency-msec=20', '--raw', rawFile];
  const child = spawn('pacat', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...pulse.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pacat into ${sink} exited ${code}: ${stderr.trim()}`))));
  });
}

/** Plays interleaved 16-bit samples into `sink` in real time (through `file`); resolves once played. */
export async function playSamples(pulse: PulseServer, sink: string, samples: Int16Array, options: { rate: number; channels: 1 | 2; file: string }): Promise<void> {
  await writeFile(options.file, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
  await playRaw(pulse, sink, options.file, options);
}

/** Left and right interleaved. */
export function interleave(left: Int16Array, right: Int16Array): Int16Array {
  const out = new Int16Array(Math.max(left.length, right.length) * 2);
  for (let i = 0; i < out.length / 2; i++) {
    out[2 * i] = left[i] ?? 0;
    out[2 * i + 1] = right[i] ?? 0;
  }
  return out;
}

/**
 * A "room" on a private PulseAudio for measuring a daemon from outside: one
 * stereo null sink whose left channel is what the microphone hears and whose
 * right channel is what the speaker plays, so one recording of its monitor
 * holds both on one clock.
 *
 *   question (pacat) -> <room>_q  (remap sink)  -> left  of <room> -> <room>_mic (remap source) -> the daemon's input
 *   the daemon's output           -> <room>_spk (remap sink) -> right of <room>
 *   <room>.monitor, both channels -> one pacat --record -> 10 ms RMS frames
 *
 * The remap sinks and source are filters inside the null sink's own render
 * loop: a sample of either channel reaches the monitor in the same render
 * pass, so frame n of the recording is the same instant for both channels.
 * The daemon hears the question and its answer goes to a different
 * channel: no echo, so full duplex is never interrupted by itself.
 */
import type { ChildProcess } from 'node:child_process';
import type { PulseServer } from '../../test/support/pulse-server.js';
import { stopChild } from '../../test/support/pulse-server.js';
import { playRaw, recordStereo } from '../../test/support/room-monitor.js';

export const ROOM_RATE = 48_000;
/** 10 ms at the room's rate. */
const FRAME = ROOM_RATE / 100;
const BYTES_PER_FRAME = FRAME * 2 * 2;

export interface Room {
  name: string;
  /** Play the question here. */
  questionSink: string;
  /** The daemon's `[audio] output`. */
  speakerSink: string;
  /** The daemon's `[audio] input`. */
  micSource: string;
}

/** Loads the room's modules into the server; they go when it stops. */
export async function addRoom(pulse: PulseServer, name: string): Promise<Room> {
  const room: Room = { name, questionSink: `${name}_q`, speakerSink: `${name}_spk`, micSource: `${name}_mic` };
  const mono = ['channels=1', 'channel_map=mono', 'remix=no'];
  await pulse.pactl('load-module', 'module-null-sink', `sink_name=${name}`, `rate=${ROOM_RATE}`, 'channels=2', 'channel_map=front-left,front-right');
  await pulse.pactl('load-module', 'module-remap-sink', `sink_name=${room.questionSink}`, `master=${name}`, 'master_channel_map=front-left', ...mono);
  await pulse.pactl('load-module', 'module-remap-sink', `sink_name=${room.speakerSink}`, `master=${name}`, 'master_channel_map=front-right', ...mono);
  await pulse.pactl('load-module', 'module-remap-source', `source_name=${room.micSource}`, `master=${name}.monitor`, 'master_channel_map=front-left', ...mono);
  return room;
}

/**
 * ~/.asoundrc naming the rooms' devices as ALSA PCMs of the pulse plugin:
 * PortAudio lists them by these names, so `[audio] input = "<room>_mic"`
 * finds exactly one device.
 */
export function asoundrc(rooms: readonly Room[]): string {
  const pcm = (name: string, device: string): string => `pcm.${name} { type pulse device "${device}" hint { show on description "${name}" } }\n`;
  return rooms.map((r) => pcm(r.micSource, r.micSource) + pcm(r.speakerSink, r.speakerSink)).join('');
}

/** The room's monitor, recorded as it happens: RMS of each 10 ms frame, per channel. */
export class RoomRecorder {
  /** Left channel: what the microphone heard. */
  readonly mic: number[] = [];
  /** Right channel: what the speaker played. */
  readonly speaker: number[] = [];
  /** Wall clock (Date.now) of frame 0, from the least delayed chunk; for placing the daemon's events, approximately. */
  private wallOffsetMs = Number.POSITIVE_INFINITY;
  private carry = Buffer.alloc(0);

  private child: ChildProcess | undefined;

  private constructor() {}

  static async start(pulse: PulseServer, room: Room): Promise<RoomRecorder> {
    const recorder = new RoomRecorder();
    recorder.child = await recordStereo(pulse, `${room.name}.monitor`, ROOM_RATE, (chunk) => recorder.take(chunk));
    return recorder;
  }

  get frames(): number {
    return this.mic.length;
  }

  /** Date.now() at the start of `frame`, to within the capture's delivery delay (about 10 ms). */
  wallMsOf(frame: number): number {
    return this.wallOffsetMs + frame * 10;
  }

  /** The frame at a Date.now() time, fractional. */
  frameAtWall(wallMs: number): number {
    return (wallMs - this.wallOffsetMs) / 10;
  }

  /** Resolves with the first frame at or after `from` whose speaker RMS reaches `threshold`, or undefined at `deadlineMs` (Date.now) or when `giveUp` says so. */
  async waitForSpeaker(from: number, threshold: number, deadlineMs: number, giveUp: () => boolean, signal?: AbortSignal): Promise<number | undefined> {
    let checked = from;
    for (;;) {
      for (; checked < this.speaker.length; checked++) if (this.speaker[checked]! >= threshold) return checked;
      if (Date.now() > deadlineMs || giveUp()) return undefined;
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Whether the speaker channel was below `threshold` for the last `frames` frames. */
  speakerQuiet(frames: number, threshold: number): boolean {
    const from = Math.max(0, this.speaker.length - frames);
    return this.speaker.length >= frames && this.speaker.slice(from).every((rms) => rms < threshold);
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child);
  }

  private take(chunk: Buffer): void {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const whole = data.length - (data.length % BYTES_PER_FRAME);
    // A copy, so the samples are 2-byte aligned for the typed view (little-endian, as pacat writes s16le here).
    const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + whole));
    for (let at = 0; at < samples.length; at += FRAME * 2) {
      let left = 0;
      let right = 0;
      for (let i = at; i < at + FRAME * 2; i += 2) {
        left += samples[i]! * samples[i]!;
        right += samples[i + 1]! * samples[i + 1]!;
      }
      this.mic.push(Math.sqrt(left / FRAME));
      this.speaker.push(Math.sqrt(right / FRAME));
    }
    this.carry = Buffer.from(data.subarray(whole));
    // The chunk's last sample was recorded no later than now: the smallest offset over chunks is the least delayed one.
    const recordedMs = ((this.mic.length * FRAME + this.carry.length / 4) / ROOM_RATE) * 1000;
    this.wallOffsetMs = Math.min(this.wallOffsetMs, Date.now() - recordedMs);
  }
}

/** Plays a raw 16 kHz mono s16le file into a sink in real time; resolves once drained. */
export function playInto(pulse: PulseServer, sink: string, rawFile: string): Promise<void> {
  return playRaw(pulse, sink, rawFile, { rate: 16_000, channels: 1 });
}

/**
 * The last voiced frame in [from, to): the mirror of echo-scenes' voicedOnset,
 * the last 10 ms frame within 20 dB of the loudest that ends a stretch where
 * 3 of 5 frames are, so a lone click after the speech does not count.
 */
export function lastVoicedFrame(rms: readonly number[], from: number, to: number, minRms: number): number | undefined {
  const end = Math.min(to, rms.length);
  let loudest = 0;
  for (let f = from; f < end; f++) loudest = Math.max(loudest, rms[f]!);
  if (loudest < minRms) return undefined;
  const loud = (f: number): boolean => f >= from && f < end && rms[f]! >= loudest / 10;
  for (let f = end - 1; f >= from; f--) {
    if (loud(f) && [0, 1, 2, 3, 4].filter((k) => loud(f - k)).length >= 3) return f;
  }
  return undefined;
}

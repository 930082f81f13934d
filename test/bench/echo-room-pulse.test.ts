/**
 * The room bench's building blocks, measured through the real PulseAudio
 * modules: the reverberant path really reverberates (the echo of a click
 * decays at the asked-for rate), the gain and the noise are what was asked,
 * the loudspeaker distorts a little, and the exact loopback stays exact.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEchoRoom, reverberationTime, rmsDbfs, ROOM_VARIANTS, type EchoRoom, type RoomVariant } from '../support/echo-room.js';
import { startPulse, type PulseServer } from '../support/pulse-server.js';
import { MonitorRecording, playSamples } from '../support/room-monitor.js';
import { waitFor } from '../helpers/wait-for.js';

const RATE = 48_000;
const variant = (name: string): RoomVariant => ROOM_VARIANTS.find((v) => v.name === name)!;

interface Built {
  pulse: PulseServer;
  room: EchoRoom;
  recording: MonitorRecording;
  dir: string;
}

async function build(v: RoomVariant): Promise<Built> {
  const started = await startPulse();
  if (!started.ok) throw new Error(`PulseAudio did not start: ${started.reason}`);
  const dir = await mkdtemp(join(tmpdir(), 'echo-room-test-'));
  const room = await buildEchoRoom(started.server, v, dir);
  const recording = await MonitorRecording.start(started.server, room.monitor, RATE);
  return { pulse: started.server, room, recording, dir };
}

async function close(built: Built | undefined): Promise<void> {
  if (!built) return;
  await built.recording.stop();
  await built.room.stop();
  await built.pulse.stop();
  await rm(built.dir, { recursive: true, force: true });
}

/** Until the monitor has recorded sample `until` (counted in audio, not wall time: a busy machine delivers it late). */
function recordedUntil(recording: MonitorRecording, until: number): Promise<true> {
  return waitFor(() => (recording.length >= until ? true : undefined), `${(until / RATE).toFixed(1)} s of recording`, 15_000);
}

/** Plays `samples` (48 kHz mono) into the room's speaker and returns what the microphone heard from then on, to `tailMs` past their end. */
async function throughSpeaker(b: Built, samples: Int16Array, tailMs: number): Promise<Int16Array> {
  const from = b.recording.length;
  await playSamples(b.pulse, b.room.speakerSink, samples, { rate: RATE, channels: 1, file: join(b.dir, 'play.raw') });
  await recordedUntil(b.recording, Math.max(from + samples.length, b.recording.length) + (RATE * tailMs) / 1000);
  return b.recording.slice('left', from);
}

function click(): Int16Array {
  const out = new Int16Array(RATE * 0.3 + RATE * 1.5);
  for (let i = 0; i < 48; i++) out[RATE * 0.3 + i] = Math.round(20_000 * Math.sin((Math.PI * i) / 48));
  return out;
}

function tone(amplitude: number, seconds: number): Int16Array {
  const out = new Int16Array(RATE * seconds);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 1000 * i) / RATE));
  return out;
}

/** The 1 kHz component's amplitude and what is left beside it (THD+N, as a fraction), over the middle of the recorded tone. */
function analyseTone(heard: Int16Array): { amplitude: number; distortion: number } {
  let peak = 0;
  for (const s of heard) peak = Math.max(peak, Math.abs(s));
  const start = heard.findIndex((s) => Math.abs(s) > peak / 2) + RATE * 0.1;
  const part = heard.subarray(start, start + RATE * 0.5);
  let c = 0;
  let s = 0;
  for (let i = 0; i < part.length; i++) {
    c += part[i]! * Math.cos((2 * Math.PI * 1000 * i) / RATE);
    s += part[i]! * Math.sin((2 * Math.PI * 1000 * i) / RATE);
  }
  c *= 2 / part.length;
  s *= 2 / part.length;
  let residual = 0;
  let total = 0;
  for (let i = 0; i < part.length; i++) {
    const fit = c * Math.cos((2 * Math.PI * 1000 * i) / RATE) + s * Math.sin((2 * Math.PI * 1000 * i) / RATE);
    residual += (part[i]! - fit) ** 2;
    total += part[i]! ** 2;
  }
  return { amplitude: Math.hypot(c, s), distortion: Math.sqrt(residual / total) };
}

describe('the echo room of the full-duplex benches', () => {
  describe.each([
    ['room_0.3s', 0.3],
    ['room_0.6s', 0.6],
    ['room_0.9s_music', 0.9],
  ])('%s', (name, seconds) => {
    it(`reverberates: a click's echo decays with a reverberation time of about ${seconds} s`, async () => {
      // Without its noise and music, which would hide the tail's last 25 dB.
      const b = await build({ ...variant(name), noiseDbfs: undefined, musicDbfs: undefined });
      try {
        await b.room.setEchoGain(1);
        const rt60 = reverberationTime(await throughSpeaker(b, click(), 300), RATE);
        expect(rt60).toBeDefined();
        expect(rt60!).toBeGreaterThan(seconds * 0.8);
        expect(rt60!).toBeLessThan(seconds * 1.25);
      } finally {
        await close(b);
      }
    }, 30_000);

    it('has the steady noise asked for at the microphone when nothing plays', async () => {
      const b = await build({ ...variant(name), musicDbfs: undefined });
      try {
        const from = b.recording.length;
        await recordedUntil(b.recording, from + RATE);
        const quiet = b.recording.slice('left', from + RATE * 0.2);
        expect(quiet.length).toBeGreaterThan(RATE * 0.5);
        expect(Math.abs(rmsDbfs(quiet) - b.room.variant.noiseDbfs!)).toBeLessThan(1.5);
      } finally {
        await close(b);
      }
    }, 30_000);

    it('carries the speaker at the gain asked for, through a loudspeaker that distorts a little', async () => {
      // The loudspeaker alone: a reverberant tone beats against itself, which is not distortion.
      const b = await build({ ...variant(name), reverb: undefined, noiseDbfs: undefined, musicDbfs: undefined });
      try {
        const measured: number[] = [];
        for (const gain of [0.5, 1.5]) {
          await b.room.setEchoGain(gain);
          measured.push(analyseTone(await throughSpeaker(b, tone(6000, 1.2), 100)).amplitude);
        }
        // The loudspeaker changes the level by the same factor at both gains.
        expect(measured[1]! / measured[0]!).toBeCloseTo(3, 1);
        await b.room.setEchoGain(1);
        const { distortion } = analyseTone(await throughSpeaker(b, tone(16_000, 1.2), 100));
        expect(distortion).toBeGreaterThan(0.005);
        expect(distortion).toBeLessThan(0.03);
      } finally {
        await close(b);
      }
    }, 30_000);
  });

  it.each(['loopback_fan', 'room_0.3s_fan', 'room_0.6s_fan'])('%s has the fan: steady noise 10 dB louder than the desks', async (name) => {
    const b = await build(variant(name));
    try {
      const from = b.recording.length;
      await recordedUntil(b.recording, from + RATE);
      const quiet = b.recording.slice('left', from + RATE * 0.2);
      expect(variant(name).noiseDbfs).toBe(-40);
      expect(Math.abs(rmsDbfs(quiet) - -40)).toBeLessThan(1.5);
    } finally {
      await close(b);
    }
  }, 30_000);

  it('room_0.9s_music plays its music at the microphone, over the noise, at about the level asked for', async () => {
    const b = await build(variant('room_0.9s_music'));
    try {
      const from = b.recording.length;
      // Two bars of the piece: its level moves with the notes, so a few dB either way.
      await recordedUntil(b.recording, from + RATE * 4.2);
      const heard = b.recording.slice('left', from + RATE * 0.2);
      expect(heard.length).toBeGreaterThan(RATE * 3.5);
      expect(Math.abs(rmsDbfs(heard) - -35)).toBeLessThan(4);
      // Not steady: 100 ms levels spread over several dB, where the noise alone would not.
      const levels: number[] = [];
      for (let at = 0; at + 4800 <= heard.length; at += 4800) levels.push(rmsDbfs(heard.subarray(at, at + 4800)));
      expect(Math.max(...levels) - Math.min(...levels)).toBeGreaterThan(5);
    } finally {
      await close(b);
    }
  }, 30_000);

  describe('loopback', () => {
    let b: Built | undefined;
    beforeAll(async () => {
      b = await build(variant('loopback'));
    }, 30_000);
    afterAll(() => close(b));

    it('is exact: the microphone hears the click and nothing after it, and no noise', async () => {
      const heard = await throughSpeaker(b!, click(), 300);
      let peak = 0;
      let at = 0;
      heard.forEach((s, i) => {
        if (Math.abs(s) > peak) [peak, at] = [Math.abs(s), i];
      });
      expect(peak).toBeGreaterThan(19_000);
      expect(heard.slice(at + 100).every((s) => s === 0)).toBe(true);
      expect(heard.slice(0, at - 100).every((s) => s === 0)).toBe(true);
    }, 20_000);

    it('hears the user on the microphone channel and the marker beside it, on one clock', async () => {
      const from = b!.recording.length;
      const stereo = new Int16Array(RATE * 2);
      for (let i = RATE * 0.5; i < RATE * 0.5 + 48; i++) [stereo[2 * i], stereo[2 * i + 1]] = [10_000, 20_000];
      await playSamples(b!.pulse, b!.room.userSink, stereo, { rate: RATE, channels: 2, file: join(b!.dir, 'user.raw') });
      await recordedUntil(b!.recording, Math.max(from + stereo.length / 2, b!.recording.length) + RATE * 0.2);
      const left = b!.recording.slice('left', from);
      const right = b!.recording.slice('right', from);
      const firstLeft = left.findIndex((s) => s === 10_000);
      expect(firstLeft).toBeGreaterThan(0);
      expect(right.findIndex((s) => s === 20_000)).toBe(firstLeft);
    }, 20_000);
  });
});

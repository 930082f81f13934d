/**
 * A room for the full-duplex benches, built in a private PulseAudio: the
 * assistant's voice reaches the microphone through a loudspeaker that
 * distorts a little, a reverberator and a gain, over steady noise, and the
 * user's recorded voice is added at the microphone. Every part runs inside
 * PulseAudio's render loop, so it is real-time audio on the real PortAudio
 * devices, as a desk would give it.
 *
 *   daemon output -> er_speaker (TAP reverberator, LADSPA)
 *                 -> er_drive   (SWH fast overdrive: the loudspeaker's ~1.5% distortion)
 *                 -> er_echo    (remap sink; its volume is the speaker-to-mic gain)
 *                 -> left of er (stereo null sink)
 *   noise (sox pink noise, pacat) -> er_noise -> left of er
 *   music (room-music.ts, looped)  -> er_noise -> left of er   (the music room only)
 *   user clip (pacat, stereo)     -> er: left = the clip at its gain, right = the clip alone
 *   er_mic = left of er.monitor: the daemon's input
 *
 * The right channel is a marker no one hears: the clip alone, on the same
 * render clock as the microphone, from which a bench finds the clip's true
 * voiced onset. The exact loopback is the variant with no reverberator, no
 * distortion, no noise and a gain of 1: the microphone hears a bit-exact
 * copy of what was played.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PulseServer } from './pulse-server.js';
import { stopChild } from './pulse-server.js';
import { writeRoomMusic } from './room-music.js';

export const ROOM_RATE = 48_000;

export interface RoomVariant {
  /** Its row name in bench:duplex. */
  name: string;
  /** TAP reverberator settings; absent: no reverberation. */
  reverb?: {
    /** The plugin's decay control; the reverberation time it gives is measured (test/bench/echo-room-pulse.test.ts). */
    decayMs: number;
    /** Reverberant sound against the direct sound, dB. */
    wetDb: number;
  };
  /** Fast overdrive's drive level (1 is its mildest: about 1.5% THD+N on a -6 dBFS tone); absent: a linear loudspeaker. */
  loudspeakerDrive?: number;
  /** Speaker-to-microphone gains drawn per reply from this range; [1, 1] is unity. */
  echoGain: readonly [number, number];
  /**
   * Level trim of the echo path, dB: the overdrive and the reverberant energy
   * make the echo louder than what was played, so this brings it back to the
   * drawn gain (measured with doctor's test sound: room_0.3s +4.8 dB,
   * room_0.6s +5.6 dB and room_0.9s_music +6.4 dB untrimmed;
   * test/voice/duplex/room-probe-pulse.test.ts).
   */
  trimDb?: number;
  /** Steady pink noise at the microphone, dBFS RMS; absent: digital silence. */
  noiseDbfs?: number;
  /** Music playing in the room (test/support/room-music.ts, looped), its RMS at the microphone, dBFS; absent: none. */
  musicDbfs?: number;
}

const ROOM_03: RoomVariant = { name: 'room_0.3s', reverb: { decayMs: 500, wetDb: -8 }, loudspeakerDrive: 1, echoGain: [0.5, 1.5], trimDb: -4.8, noiseDbfs: -50 };
const ROOM_06: RoomVariant = { name: 'room_0.6s', reverb: { decayMs: 1000, wetDb: -8 }, loudspeakerDrive: 1, echoGain: [0.5, 1.5], trimDb: -5.6, noiseDbfs: -50 };
/** A fan near the microphone: the steady noise 10 dB louder than the desks' -50 dBFS. */
const FAN_NOISE_DBFS = -40;

/**
 * The rooms the barge-in bench measures: the exact loopback and two desks
 * with 0.3 s and 0.6 s reverberation; each again with a fan's noise
 * (-40 dBFS); and a livelier room (RT60 0.9 s) with music at -35 dBFS over
 * the desks' noise.
 */
export const ROOM_VARIANTS: readonly RoomVariant[] = [
  { name: 'loopback', echoGain: [1, 1] },
  ROOM_03,
  ROOM_06,
  { name: 'loopback_fan', echoGain: [1, 1], noiseDbfs: FAN_NOISE_DBFS },
  { ...ROOM_03, name: 'room_0.3s_fan', noiseDbfs: FAN_NOISE_DBFS },
  { ...ROOM_06, name: 'room_0.6s_fan', noiseDbfs: FAN_NOISE_DBFS },
  { name: 'room_0.9s_music', reverb: { decayMs: 1530, wetDb: -8 }, loudspeakerDrive: 1, echoGain: [0.5, 1.5], trimDb: -6.4, noiseDbfs: -50, musicDbfs: -35 },
];

export interface EchoRoom {
  variant: RoomVariant;
  /** What the assistant plays into (the head of the speaker chain). */
  speakerSink: string;
  /** The microphone. */
  micSource: string;
  /** Stereo: left reaches the microphone, right is the marker. */
  userSink: string;
  /** The stereo monitor: left the microphone, right the marker. */
  monitor: string;
  /** Sets the speaker-to-microphone gain (linear amplitude; 1: the echo as loud as what was played). */
  setEchoGain(gain: number): Promise<void>;
  /** Stops the noise; the modules go with the server. */
  stop(): Promise<void>;
}

/** Loads the variant's modules into `pulse` and makes them the default sink and source. */
export async function buildEchoRoom(pulse: PulseServer, variant: RoomVariant, scratchDir: string): Promise<EchoRoom> {
  const mono = ['channels=1', 'channel_map=mono', 'remix=no'];
  const stereo = ['channels=2', 'channel_map=front-left,front-right'];
  await pulse.pactl('load-module', 'module-null-sink', 'sink_name=er', `rate=${ROOM_RATE}`, ...stereo);
  await pulse.pactl('load-module', 'module-remap-sink', 'sink_name=er_echo', 'master=er', 'master_channel_map=front-left', ...mono);
  await pulse.pactl('load-module', 'module-remap-sink', 'sink_name=er_noise', 'master=er', 'master_channel_map=front-left', ...mono);
  await pulse.pactl('load-module', 'module-remap-source', 'source_name=er_mic', 'master=er.monitor', 'master_channel_map=front-left', ...mono);
  let head = 'er_echo';
  if (variant.loudspeakerDrive !== undefined) {
    await pulse.pactl('load-module', 'module-ladspa-sink', 'sink_name=er_drive', `sink_master=${head}`, 'plugin=foverdrive_1196', 'label=foverdrive', `control=${variant.loudspeakerDrive}`, 'channels=1');
    head = 'er_drive';
  }
  if (variant.reverb) {
    const { decayMs, wetDb } = variant.reverb;
    // Decay, dry 0 dB, wet, comb, allpass, bandpass filters on, enhanced stereo off, room type 2; its two outputs are mixed down to the mono sink after it.
    const control = [decayMs, 0, wetDb, 1, 1, 1, 0, 2].join(',');
    await pulse.pactl('load-module', 'module-ladspa-sink', 'sink_name=er_speaker', `sink_master=${head}`, 'plugin=tap_reverb', 'label=tap_reverb', `control=${control}`, ...stereo);
    head = 'er_speaker';
  }
  await pulse.pactl('set-default-sink', head);
  await pulse.pactl('set-default-source', 'er_mic');
  const noise = variant.noiseDbfs === undefined ? undefined : await startNoise(pulse, 'er_noise', variant.noiseDbfs, scratchDir);
  const music = variant.musicDbfs === undefined ? undefined : await startMusic(pulse, 'er_noise', variant.musicDbfs, scratchDir);
  const room: EchoRoom = {
    variant,
    speakerSink: head,
    micSource: 'er_mic',
    userSink: 'er',
    monitor: 'er.monitor',
    setEchoGain: async (gain) => {
      await pulse.pactl('set-sink-volume', 'er_echo', String(pulseVolume(gain * 10 ** ((variant.trimDb ?? 0) / 20))));
    },
    stop: async () => {
      if (noise) await stopChild(noise);
      if (music) await stopChild(music);
    },
  };
  await room.setEchoGain(1);
  return room;
}

/** PulseAudio's volume for a linear amplitude gain: its scale is cubic (pa_sw_volume_from_linear). */
export function pulseVolume(gain: number): number {
  return Math.round(Math.cbrt(gain) * 65_536);
}

/**
 * Endless pink noise at `dbfs` RMS into `sink`: sox writes it as fast as
 * pacat takes it, and pacat plays it in real time.
 */
async function startNoise(pulse: PulseServer, sink: string, dbfs: number, scratchDir: string): Promise<ChildProcess> {
  // sox's pink noise at full scale has an RMS 13 dB below full scale (sox ... stats); the gain puts it where asked.
  const script = join(scratchDir, 'room-noise.sh');
  const gainDb = dbfs + PINK_NOISE_RMS_BELOW_FULL_SCALE_DB;
  await writeFile(
    script,
    `exec sox -q -n -r ${ROOM_RATE} -c 1 -b 16 -e signed -t raw - synth 86400 pinknoise gain ${gainDb.toFixed(2)} | pacat --playback --device=${sink} --rate=${ROOM_RATE} --channels=1 --format=s16le --latency-msec=50 --raw\n`,
  );
  const child = spawn('bash', [script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...pulse.env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  child.stderr?.resume();
  return child;
}

/** The room's music (test/support/room-music.ts) at `dbfs` RMS into `sink`, looped end to end for as long as the room stands. */
async function startMusic(pulse: PulseServer, sink: string, dbfs: number, scratchDir: string): Promise<ChildProcess> {
  const piece = join(scratchDir, 'room-music.raw');
  await writeRoomMusic(piece, { rate: ROOM_RATE, rmsDbfs: dbfs, scratchDir });
  const script = join(scratchDir, 'room-music.sh');
  await writeFile(script, `while cat ${piece}; do :; done | pacat --playback --device=${sink} --rate=${ROOM_RATE} --channels=1 --format=s16le --latency-msec=50 --raw\n`);
  const child = spawn('bash', [script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...pulse.env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  child.stderr?.resume();
  return child;
}

/** sox synth pinknoise's RMS below full scale, dB: its peaks are near full scale. */
export const PINK_NOISE_RMS_BELOW_FULL_SCALE_DB = 13;

/**
 * The reverberation time (RT60, s) of an impulse response, from the slope
 * of its energy decay curve (Schroeder's backward integration) between -5
 * and -25 dB, extrapolated to 60 dB (T20). The first `directMs` after the
 * impulse's arrival, the direct sound, are left out, so the figure is the
 * reverberant tail's, as a room's would be measured.
 */
export function reverberationTime(response: ArrayLike<number>, rate: number, directMs = 5): number | undefined {
  let peak = 0;
  for (let i = 0; i < response.length; i++) peak = Math.max(peak, Math.abs(response[i]!));
  if (peak === 0) return undefined;
  let arrival = 0;
  while (Math.abs(response[arrival]!) < peak / 10) arrival++;
  const from = arrival + Math.round((directMs * rate) / 1000);
  const decay = new Float64Array(Math.max(0, response.length - from));
  let energy = 0;
  for (let i = response.length - 1; i >= from; i--) {
    energy += response[i]! * response[i]!;
    decay[i - from] = energy;
  }
  if (energy === 0) return undefined;
  const at = (db: number): number => decay.findIndex((e) => 10 * Math.log10(e / energy) <= db);
  const minus5 = at(-5);
  const minus25 = at(-25);
  if (minus5 < 0 || minus25 < 0) return undefined;
  return ((minus25 - minus5) / rate) * 3;
}

/** RMS of the samples, dBFS (full scale 32768). */
export function rmsDbfs(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return 20 * Math.log10(Math.sqrt(sum / Math.max(1, samples.length)) / 32_768);
}

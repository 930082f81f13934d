/**
 * What the room does to the assistant's voice, measured by playing a test
 * sound: a one-second chirp (300 Hz to 3.4 kHz) out of the speaker while the
 * microphone records. The chirp is found in the recording by normalized
 * correlation; its position gives the echo's delay (from the first write to
 * the device to the sound at the microphone), its level the
 * speaker-to-microphone gain, and the half second before it the room's
 * steady noise. `desktop-assistant doctor` reports these in full-duplex mode
 * and says when the room is too loud for barge-in to be reliable.
 */
import { bestMatch, concatSamples } from '../audio/index.js';
import { FRAME_MS, SAMPLE_RATE, type AudioFrame, type AudioInput, type AudioOutput } from '../types.js';

export interface RoomEcho {
  /** The chirp was found at the microphone (correlation at least 0.3). */
  heard: boolean;
  /** From the first sample written to the speaker to its echo at the microphone, ms. */
  delayMs?: number;
  /** The echo's level against what was played, dB (0: as loud as played; reverberation included). */
  echoDb?: number;
  /** The microphone's steady level with nothing playing, dBFS. */
  noiseDbfs: number;
  /** How well the chirp matched (0..1). */
  match: number;
}

export interface RoomEchoOptions {
  input: AudioInput;
  output: AudioOutput;
  /** Milliseconds on the input's frame clock (default performance.now, as PortAudio's). */
  clock?: () => number;
  signal?: AbortSignal;
}

const CHIRP_MS = 1000;
const LEAD_MS = 500;
const TAIL_MS = 800;
/** The chirp's peak: 12 dB under full scale, loud enough to hear over a room, no clipping on the way. */
const CHIRP_PEAK = 8192;
const MIN_MATCH = 0.3;
/** Steady noise above this (dBFS) masks the start of quiet speech for the voice-activity model. */
const NOISY_ROOM_DBFS = -40;
/** An echo this much louder than what was played: the speaker is loud or close to the microphone. */
const LOUD_ECHO_DB = 6;

/** A logarithmic sweep from 300 Hz to 3.4 kHz, faded in and out over 10 ms. */
function chirp(): Int16Array {
  const n = (CHIRP_MS * SAMPLE_RATE) / 1000;
  const [f0, f1] = [300, 3400];
  const k = Math.log(f1 / f0);
  const out = new Int16Array(n);
  const fade = SAMPLE_RATE / 100;
  for (let i = 0; i < n; i++) {
    const t = i / SAMPLE_RATE;
    const T = CHIRP_MS / 1000;
    const phase = ((2 * Math.PI * f0 * T) / k) * (Math.exp((t / T) * k) - 1);
    const envelope = Math.min(1, i / fade, (n - 1 - i) / fade);
    out[i] = Math.round(CHIRP_PEAK * envelope * Math.sin(phase));
  }
  return out;
}

export async function measureRoomEcho(options: RoomEchoOptions): Promise<RoomEcho> {
  const { input, output } = options;
  const clock = options.clock ?? (() => performance.now());
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const frames: AudioFrame[] = [];
  let firstFrame: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (firstFrame = resolve));
  const recording = (async () => {
    for await (const frame of input.frames({ signal: stop.signal })) {
      frames.push(frame);
      firstFrame();
    }
  })();
  // Wakes the wait for a first frame; the failure itself reaches waitFor() and `await recording` below.
  recording.catch(() => firstFrame());
  try {
    await started;
    await waitFor(frames, LEAD_MS, recording);
    const sound = chirp();
    const chunk = (FRAME_MS * SAMPLE_RATE) / 1000;
    // Queued at once, not one chunk per handed-off promise: a chunk awaited before the next is written leaves a gap after it.
    const writtenAtMs = clock();
    const writes: Promise<void>[] = [];
    for (let at = 0; at < sound.length; at += chunk) writes.push(output.write(sound.subarray(at, at + chunk)));
    await Promise.all(writes);
    await output.drain();
    const endCount = frames.length + TAIL_MS / FRAME_MS;
    await waitFor(frames, 0, recording, endCount);
    stop.abort();
    await recording;
    return analyse(frames, sound, writtenAtMs);
  } finally {
    stop.abort();
    options.signal?.removeEventListener('abort', onAbort);
    // Only waits for the capture to stop: its failure was thrown above, or the try's own error is the one to report.
    await recording.catch(() => undefined);
  }
}

/** Resolves once `frames` holds `leadMs` of audio (or `count` frames); rejects if the recording ends first. */
async function waitFor(frames: AudioFrame[], leadMs: number, recording: Promise<void>, count = leadMs / FRAME_MS): Promise<void> {
  let ended = false;
  void recording.then(
    () => (ended = true),
    () => (ended = true),
  );
  while (frames.length < count) {
    if (ended) {
      await recording;
      throw new Error('the microphone stopped delivering audio during the room measurement');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function analyse(frames: AudioFrame[], sound: Int16Array, writtenAtMs: number): RoomEcho {
  const lead = frames.filter((f) => f.atMs < writtenAtMs);
  const noisePower = meanSquare(lead.flatMap((f) => Array.from(f.samples)));
  const noiseDbfs = dbfs(noisePower);
  const after = frames.filter((f) => f.atMs >= writtenAtMs);
  const mic = concatSamples(after.map((f) => f.samples));
  const match = bestMatch(mic, sound);
  if (!match || match.score < MIN_MATCH) return { heard: false, noiseDbfs, match: match?.score ?? 0 };
  const startMs = after[0]!.atMs + (match.at / SAMPLE_RATE) * 1000;
  const echoPower = Math.max(0, meanSquare(mic.subarray(match.at, match.at + sound.length)) - noisePower);
  return {
    heard: true,
    delayMs: startMs - writtenAtMs,
    echoDb: 10 * Math.log10(echoPower / meanSquare(sound) + 1e-12),
    noiseDbfs,
    match: match.score,
  };
}

function meanSquare(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return sum / Math.max(1, samples.length);
}

function dbfs(power: number): number {
  return 10 * Math.log10(power / 32768 ** 2 + 1e-12);
}

/** What a measurement means for barge-in: problems, in words; empty when the room is fine. */
export function roomProblems(echo: RoomEcho): string[] {
  const problems: string[] = [];
  if (echo.noiseDbfs > NOISY_ROOM_DBFS) problems.push(`steady noise at ${echo.noiseDbfs.toFixed(0)} dBFS (above ${NOISY_ROOM_DBFS}): the start of quiet speech is lost in it, so barge-in may miss the user`);
  if (echo.echoDb !== undefined && echo.echoDb > LOUD_ECHO_DB) problems.push(`the echo is ${echo.echoDb.toFixed(0)} dB louder than what was played: a voice must be louder still to be heard over it`);
  return problems;
}

/**
 * Synthetic barge-in scenes for bench/echo.ts and the barge-in tests: the
 * assistant's voice (espeak-ng, resampled by sox to 16 kHz) playing from the
 * speaker, its echo at the microphone (simulateMic), and optionally the user
 * (a recorded clip) talking over it from some point on.
 */
import { execFileSync } from 'node:child_process';
import { readWav, toVoiceFormat } from '../../src/voice/audio/index.js';
import { simulateMic, type EchoPath } from './synthetic-echo.js';
import type { BargeInDetector, BargeInSpeechStarted } from '../../src/voice/duplex/index.js';

const RATE = 16_000;
const FRAME = 320;

export const ASSISTANT_SENTENCES = [
  'Sure, here is the weather for today.',
  'It will be mostly sunny with a high of twenty two degrees.',
  'In the evening there may be a light shower, so take an umbrella.',
  'Tomorrow looks cooler, with clouds moving in from the west.',
  'Would you like me to set a reminder for that?',
] as const;

const voices = new Map<string, Int16Array>();

/** The sentences spoken by espeak-ng (en-us, 160 wpm) as 16 kHz mono, with 150 ms between them. */
export function assistantVoice(sentences: readonly string[] = ASSISTANT_SENTENCES): Int16Array {
  const key = sentences.join('\n');
  const cached = voices.get(key);
  if (cached) return cached;
  const parts = sentences.map((text) => {
    const wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', text], { maxBuffer: 64 << 20 });
    const raw = execFileSync('sox', ['-t', 'wav', '-', '-t', 'raw', '-r', String(RATE), '-c', '1', '-e', 'signed', '-b', '16', '-L', '-'], {
      input: wav,
      maxBuffer: 64 << 20,
    });
    return new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1).slice();
  });
  const gap = (150 * RATE) / 1000;
  const out = new Int16Array(parts.reduce((n, p) => n + p.length + gap, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length + gap;
  }
  voices.set(key, out);
  return out;
}

export async function loadClip(path: string): Promise<Int16Array> {
  const wav = await readWav(path);
  return toVoiceFormat(wav.samples, wav.sampleRate, wav.channels);
}

/**
 * Sample index of the first voiced audio: the first 10 ms frame within 20 dB
 * of the clip's loudest frame that starts a stretch where 3 of 5 frames
 * (50 ms) are. One frame alone is not enough: LibriVox 0880's recording
 * noise has a lone frame at -19 dB 230 ms before the voice begins, which
 * used to count as the onset and added 230 ms to five trials' latency.
 */
export function voicedOnset(samples: Int16Array): number {
  const rms: number[] = [];
  for (let s = 0; s + 160 <= samples.length; s += 160) {
    let sum = 0;
    for (let i = s; i < s + 160; i++) sum += samples[i]! * samples[i]!;
    rms.push(Math.sqrt(sum / 160));
  }
  const limit = Math.max(...rms) / 10;
  const loud = (f: number) => f < rms.length && rms[f]! >= limit;
  const frame = rms.findIndex((_, f) => loud(f) && [0, 1, 2, 3, 4].filter((k) => loud(f + k)).length >= 3);
  return Math.max(0, frame) * 160;
}

export interface Scene {
  /** What the speaker plays, whole frames. */
  far: Int16Array;
  mic: Int16Array;
  /** Sample where the user's first voiced audio reaches the microphone; absent for echo only. */
  speechOnset?: number;
}

/** `far` echoed along `path`; with `near`, the user's clip at `nearGain` starting `nearAtMs` into playback. */
export function echoScene(far: Int16Array, path: EchoPath, near?: { samples: Int16Array; atMs: number; gain: number }): Scene {
  const length = Math.floor(far.length / FRAME) * FRAME;
  const speaker = far.subarray(0, length);
  if (!near) return { far: speaker, mic: simulateMic(speaker, path) };
  const at = Math.round((near.atMs * RATE) / 1000);
  const user = new Int16Array(length);
  for (let i = 0; i + at < length && i < near.samples.length; i++) user[i + at] = Math.round(near.samples[i]! * near.gain);
  return { far: speaker, mic: simulateMic(speaker, path, RATE, user), speechOnset: at + voicedOnset(near.samples) };
}

/** Feeds the scene frame by frame (all of it during playback); the speech_started events in order. */
export async function playScene(detector: BargeInDetector, scene: Scene): Promise<BargeInSpeechStarted[]> {
  const events: BargeInSpeechStarted[] = [];
  for (let s = 0; s + FRAME <= scene.far.length; s += FRAME) {
    const result = await detector.process(scene.mic.subarray(s, s + FRAME), scene.far.subarray(s, s + FRAME));
    if (result.event) events.push(result.event);
  }
  return events;
}

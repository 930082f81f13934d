/**
 * PortAudio through naudiodon, loaded only when a device is used: the native
 * addon needs libasound and a build, and a text-only run must not pay for it
 * or fail on it. The binding is described by the few members we use, so tests
 * can hand in a fake.
 */
import { createRequire } from 'node:module';
import { AppError, messageOf } from '../../errors/index.js';
import { logAudioLibraryNews, noSoundCardSeenByAlsa, quietAudioLibraries, takeAudioLibraryNews } from './audio-quiet.js';

export interface PortAudioDevice {
  readonly id: number;
  readonly name: string;
  readonly maxInputChannels: number;
  readonly maxOutputChannels: number;
  /** naudiodon passes it through a uint32, so 44100, never 44100.5. */
  readonly defaultSampleRate: number;
  readonly hostAPIName: string;
}

export interface PortAudioStreamOptions {
  deviceId: number;
  sampleRate: number;
  channelCount: number;
  sampleFormat: 16;
  /** Frames per PortAudio callback: the size of a queued chunk. */
  framesPerBuffer: number;
  /** Chunks naudiodon queues between the callback and JavaScript; a full queue blocks the other side. */
  maxQueue: number;
  /** Bytes per read of the Readable; naudiodon's default 16384 is 512 ms of 16 kHz mono. */
  highwaterMark: number;
  /** true makes any xrun destroy the stream; false only logs it. */
  closeOnError: boolean;
}

/** The stream naudiodon's AudioIO returns: a Node Readable or Writable plus start/quit. */
export interface PortAudioStream {
  start(): void;
  /** Stops after the queued chunks (output) or at once (input); the callback runs when PortAudio is closed. */
  quit(callback?: () => void): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (error: unknown) => void): this;
  on(event: 'end' | 'close', listener: () => void): this;
  write?(chunk: Buffer, callback: (error?: Error | null) => void): boolean;
}

export interface PortAudioBinding {
  getDevices(): PortAudioDevice[];
  getHostAPIs(): { defaultHostAPI: number; HostAPIs: { defaultInput: number; defaultOutput: number }[] };
  AudioIO(options: { inOptions: PortAudioStreamOptions } | { outOptions: PortAudioStreamOptions }): PortAudioStream;
}

export type Direction = 'input' | 'output';

let cached: PortAudioBinding | undefined;

/** Loads naudiodon once; AUDIO_DEVICE_UNAVAILABLE says why it could not. */
export function loadPortAudio(moduleId = 'naudiodon'): PortAudioBinding {
  if (moduleId === 'naudiodon' && cached) return cached;
  let binding: PortAudioBinding;
  quietAudioLibraries();
  try {
    binding = createRequire(import.meta.url)(moduleId) as PortAudioBinding;
  } catch (error) {
    throw new AppError(
      'AUDIO_DEVICE_UNAVAILABLE',
      `PortAudio (npm ${moduleId}) cannot be loaded, so no sound device can be used: ${messageOf(error)}. ` +
        'It needs libasound2 and a native build (`npm rebuild naudiodon`); WAV file devices work without it.',
      { cause: error },
    );
  }
  if (moduleId === 'naudiodon') cached = binding;
  return binding;
}

function channelsOf(device: PortAudioDevice, direction: Direction): number {
  return direction === 'input' ? device.maxInputChannels : device.maxOutputChannels;
}

/** The devices that can capture (input) or play (output). */
export function listDevices(binding: PortAudioBinding, direction: Direction): PortAudioDevice[] {
  let devices: PortAudioDevice[];
  try {
    devices = binding.getDevices();
  } catch (error) {
    throw new AppError('AUDIO_DEVICE_UNAVAILABLE', `PortAudio cannot list the sound devices: ${messageOf(error)}`, { cause: error });
  }
  logAudioLibraryNews(takeAudioLibraryNews());
  return devices.filter((device) => channelsOf(device, direction) > 0);
}

function describe(devices: PortAudioDevice[]): string {
  return devices.length === 0 ? '(none)' : devices.map((device) => JSON.stringify(device.name)).join(', ');
}

/**
 * The device config names (`[audio] input` / `output`): an exact name (any
 * case) wins, then a unique part of a name; "default" with no device of
 * that name is PortAudio's default for the direction. Several partial
 * matches are an error rather than a guess: a wrong microphone fails
 * silently, a clear message costs one edit.
 */
export function chooseDevice(binding: PortAudioBinding, name: string, direction: Direction): PortAudioDevice {
  const devices = listDevices(binding, direction);
  const wanted = name.trim().toLowerCase();
  const exact = devices.find((device) => device.name.toLowerCase() === wanted);
  if (exact) return exact;
  if (wanted === 'default') {
    const hosts = binding.getHostAPIs();
    const host = hosts.HostAPIs[hosts.defaultHostAPI];
    const id = direction === 'input' ? host?.defaultInput : host?.defaultOutput;
    const fallback = devices.find((device) => device.id === id);
    if (fallback) return fallback;
  }
  const partial = devices.filter((device) => device.name.toLowerCase().includes(wanted));
  if (partial.length === 1) return partial[0]!;
  if (partial.length > 1) {
    throw new AppError('AUDIO_DEVICE_AMBIGUOUS', `audio ${direction} ${JSON.stringify(name)} matches several devices: ${describe(partial)}; use more of the name`);
  }
  if (devices.length === 0) {
    const why = noSoundCardSeenByAlsa() ? ' (ALSA finds no sound card)' : '';
    throw new AppError('AUDIO_DEVICE_NOT_FOUND', `no ${direction === 'input' ? 'microphone' : 'speaker'} found: PortAudio lists no audio ${direction} device${why} ([audio] ${direction} = ${JSON.stringify(name)})`);
  }
  throw new AppError('AUDIO_DEVICE_NOT_FOUND', `no audio ${direction} device matches ${JSON.stringify(name)} ([audio] ${direction}); the ${direction} devices are: ${describe(devices)}`);
}

/** 48 kHz is what PipeWire and most hardware run, and 3 x 16 kHz (the cheapest conversion). */
export const PREFERRED_RATE = 48_000;

/**
 * Rates to open a device at: the one asked for, else 48 kHz, then the
 * device's default. Not simply the default: PortAudio reports 44.1 kHz for
 * the ALSA `pulse` and `default` devices whatever the sound server runs, and
 * a 44.1 kHz stream into a 48 kHz PulseAudio sink underflowed again and
 * again here (0 to 264 times a second), while a matching rate never did.
 */
export function candidateRates(device: PortAudioDevice, requested?: number): number[] {
  if (requested !== undefined) return [requested];
  return [...new Set([PREFERRED_RATE, device.defaultSampleRate])];
}

/**
 * Creates and starts a naudiodon stream at the first rate PortAudio accepts;
 * its refusals (a busy device, no such rate) become AUDIO_DEVICE_OPEN_FAILED.
 */
/**
 * A stream's options for `rate`: 16-bit chunks of `chunkMs`, and a Readable
 * that hands each chunk on at once (naudiodon's default highwaterMark is
 * 16384 bytes, 512 ms of 16 kHz mono, whatever framesPerBuffer says). An
 * xrun (a stalled event loop) is logged, never the end of the stream.
 */
export function smallChunkOptions(device: PortAudioDevice, rate: number, channels: number, chunkMs: number, queueChunks: number): PortAudioStreamOptions {
  const frames = Math.max(1, Math.round((rate * chunkMs) / 1000));
  return {
    deviceId: device.id,
    sampleRate: rate,
    channelCount: channels,
    sampleFormat: 16,
    framesPerBuffer: frames,
    maxQueue: queueChunks,
    highwaterMark: frames * channels * 2,
    closeOnError: false,
  };
}

export function openStream(
  binding: PortAudioBinding,
  direction: Direction,
  device: PortAudioDevice,
  rates: number[],
  optionsAt: (rate: number) => PortAudioStreamOptions,
): { stream: PortAudioStream; options: PortAudioStreamOptions } {
  const refusals: string[] = [];
  for (const rate of rates) {
    const options = optionsAt(rate);
    let stream: PortAudioStream | undefined;
    try {
      stream = direction === 'input' ? binding.AudioIO({ inOptions: options }) : binding.AudioIO({ outOptions: options });
      stream.start();
      return { stream, options };
    } catch (error) {
      // quitStream never rejects (it resolves on failure and after a timeout); the refusal below is what is reported.
      if (stream) void quitStream(stream);
      refusals.push(`${rate} Hz: ${messageOf(error)}`);
    }
  }
  const { busy } = takeAudioLibraryNews();
  const said = busy ? `; ALSA said: ${busy}` : '';
  throw new AppError('AUDIO_DEVICE_OPEN_FAILED', `cannot open audio ${direction} ${JSON.stringify(device.name)} (${refusals.join('; ')})${said}`, { retryable: true });
}

/**
 * Quits a stream and waits for PortAudio to close it. Never throws and never
 * hangs a close: naudiodon drops its callback if its quit fails, so a
 * timeout (unref'd) ends the wait.
 */
export function quitStream(stream: PortAudioStream, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    try {
      // naudiodon's quit is an async function: a failure is a rejected promise, not a throw.
      const result = stream.quit(done);
      if (result instanceof Promise) result.catch(done);
    } catch {
      done();
    }
  });
}

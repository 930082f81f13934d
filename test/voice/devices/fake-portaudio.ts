/**
 * A stand-in for naudiodon that the test drives: an input stream emits the
 * chunks the test gives it, an output stream accepts a write only when the
 * test says the device has taken it. No sound, no time.
 */
import { EventEmitter } from 'node:events';
import type { PortAudioBinding, PortAudioDevice, PortAudioStream, PortAudioStreamOptions } from '../../../src/voice/devices/index.js';

export const DEVICES: PortAudioDevice[] = [
  { id: 0, name: 'HDA Intel PCH: ALC257 Analog (hw:0,0)', maxInputChannels: 2, maxOutputChannels: 2, defaultSampleRate: 48000, hostAPIName: 'ALSA' },
  { id: 1, name: 'HDA Intel PCH: HDMI 0 (hw:0,3)', maxInputChannels: 0, maxOutputChannels: 8, defaultSampleRate: 44100, hostAPIName: 'ALSA' },
  { id: 2, name: 'USB PnP Sound Device: Audio (hw:1,0)', maxInputChannels: 1, maxOutputChannels: 0, defaultSampleRate: 48000, hostAPIName: 'ALSA' },
  { id: 3, name: 'pulse', maxInputChannels: 32, maxOutputChannels: 32, defaultSampleRate: 44100, hostAPIName: 'ALSA' },
  { id: 4, name: 'default', maxInputChannels: 32, maxOutputChannels: 32, defaultSampleRate: 44100, hostAPIName: 'ALSA' },
];

export class FakeStream extends EventEmitter implements PortAudioStream {
  started = false;
  quitCalls = 0;
  /** Chunks the device has taken (output). */
  readonly taken: Buffer[] = [];
  private pending: { chunk: Buffer; callback: (error?: Error | null) => void } | undefined;

  constructor(readonly options: PortAudioStreamOptions) {
    super();
  }

  start(): void {
    this.started = true;
  }

  quit(callback?: () => void): void {
    this.quitCalls += 1;
    // Like naudiodon's quit, it releases a write that waits for room.
    this.accept();
    this.emit('end');
    callback?.();
  }

  write(chunk: Buffer, callback: (error?: Error | null) => void): boolean {
    if (this.pending) throw new Error('the output wrote again before its previous write was taken');
    this.pending = { chunk: Buffer.from(chunk), callback };
    return true;
  }

  get waiting(): boolean {
    return this.pending !== undefined;
  }

  /** The device takes the waiting chunk (its write resolves); the samples it held. */
  accept(): Int16Array | undefined {
    const pending = this.pending;
    if (!pending) return undefined;
    this.pending = undefined;
    this.taken.push(pending.chunk);
    pending.callback();
    return new Int16Array(pending.chunk.buffer, pending.chunk.byteOffset, pending.chunk.length / 2);
  }

  /** The device fails the waiting write. */
  fail(message: string): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.callback(new Error(message));
  }

  /** The device delivers a captured chunk (input). */
  deliver(samples: Int16Array): void {
    this.emit('data', Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
  }
}

export class FakePortAudio implements PortAudioBinding {
  readonly streams: FakeStream[] = [];
  openError: Error | undefined;
  /** Rates this device refuses, as PortAudio does ("Invalid sample rate"). */
  refusedRates: number[] = [];

  constructor(private readonly devices: PortAudioDevice[] = DEVICES) {}

  getDevices(): PortAudioDevice[] {
    return this.devices;
  }

  getHostAPIs() {
    return { defaultHostAPI: 0, HostAPIs: [{ defaultInput: 4, defaultOutput: 4 }] };
  }

  AudioIO(options: { inOptions: PortAudioStreamOptions } | { outOptions: PortAudioStreamOptions }): FakeStream {
    if (this.openError) throw this.openError;
    const streamOptions = 'inOptions' in options ? options.inOptions : options.outOptions;
    if (this.refusedRates.includes(streamOptions.sampleRate)) throw new Error('Format not supported: Invalid sample rate');
    const stream = new FakeStream(streamOptions);
    this.streams.push(stream);
    return stream;
  }

  get last(): FakeStream {
    return this.streams[this.streams.length - 1]!;
  }
}

/** Lets promise callbacks run (a resolved write, the pump's next step). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

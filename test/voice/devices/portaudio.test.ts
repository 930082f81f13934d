import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors/index.js';
import { PortAudioInput, PortAudioOutput, chooseDevice, listDevices, loadPortAudio } from '../../../src/voice/devices/index.js';
import { FakePortAudio } from './fake-portaudio.js';

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('choosing a PortAudio device by name', () => {
  const binding = new FakePortAudio();

  it('lists only the devices that can capture, or play', () => {
    expect(listDevices(binding, 'input').map((d) => d.id)).toEqual([0, 2, 3, 4]);
    expect(listDevices(binding, 'output').map((d) => d.id)).toEqual([0, 1, 3, 4]);
  });

  it('takes an exact name in any case before a part of a longer one', () => {
    expect(chooseDevice(binding, 'PULSE', 'input').id).toBe(3);
    expect(chooseDevice(binding, 'usb pnp', 'input').id).toBe(2);
    expect(chooseDevice(binding, 'HDMI', 'output').id).toBe(1);
  });

  it('falls back to the host default for "default" when no device has that name', () => {
    const noDefault = new FakePortAudio(new FakePortAudio().getDevices().filter((d) => d.name !== 'default'));
    noDefault.getHostAPIs = () => ({ defaultHostAPI: 0, HostAPIs: [{ defaultInput: 2, defaultOutput: 0 }] });
    expect(chooseDevice(noDefault, 'default', 'input').id).toBe(2);
    expect(chooseDevice(noDefault, 'default', 'output').id).toBe(0);
  });

  it('names the devices of that direction when nothing matches', () => {
    const error = errorOf(() => chooseDevice(binding, 'Blue Yeti', 'input'));
    expect(error.code).toBe('AUDIO_DEVICE_NOT_FOUND');
    expect(error.message).toContain('"Blue Yeti"');
    expect(error.message).toContain('"USB PnP Sound Device: Audio (hw:1,0)"');
    expect(error.message).toContain('"pulse"');
    // HDMI cannot capture, so it is not offered.
    expect(error.message).not.toContain('HDMI');
  });

  it('refuses to guess between several partial matches', () => {
    const error = errorOf(() => chooseDevice(binding, 'HDA Intel', 'output'));
    expect(error.code).toBe('AUDIO_DEVICE_AMBIGUOUS');
    expect(error.message).toContain('ALC257');
    expect(error.message).toContain('HDMI 0');
  });

  it('does not offer an output-only device as a microphone', () => {
    expect(errorOf(() => PortAudioInput.open({ device: 'HDMI', binding })).code).toBe('AUDIO_DEVICE_NOT_FOUND');
  });

  it('turns a device PortAudio will not open into AUDIO_DEVICE_OPEN_FAILED', () => {
    const busy = new FakePortAudio();
    busy.openError = new Error('Could not open stream: Device unavailable');
    const error = errorOf(() => PortAudioOutput.open({ device: 'pulse', binding: busy }));
    expect(error.code).toBe('AUDIO_DEVICE_OPEN_FAILED');
    expect(error.message).toContain('"pulse"');
    expect(error.message).toContain('48000 Hz: Could not open stream: Device unavailable');
    expect(error.message).toContain('44100 Hz: Could not open stream: Device unavailable');
    expect(error.retryable).toBe(true);
  });
});

describe('loading naudiodon', () => {
  it('says what is missing with AUDIO_DEVICE_UNAVAILABLE', () => {
    const error = errorOf(() => loadPortAudio('naudiodon-that-is-not-installed'));
    expect(error.code).toBe('AUDIO_DEVICE_UNAVAILABLE');
    expect(error.message).toContain('naudiodon-that-is-not-installed');
    expect(error.message).toContain('WAV file devices');
  });
});

/**
 * MicSwitch against a fake amixer on PATH (always), and against the real
 * amixer through PulseAudio's ALSA control plugin (`amixer -D pulse`, whose
 * 'Capture Switch' is the default source's mute) where PulseAudio runs.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/errors/index.js';
import { MicSwitch, micSwitchTrigger, type MicSwitchEvent } from '../../../src/voice/triggers/index.js';
import { MONITOR, startPulse } from '../../helpers/pulse.js';
import { waitFor } from '../../helpers/wait-for.js';
import { FakeAmixer, alive } from './fake-amixer.js';

function recorder(mic: MicSwitch) {
  const events: MicSwitchEvent[] = [];
  mic.subscribe((event) => events.push(event));
  const types = () => events.map((e) => e.type);
  return { events, types, until: (n: number) => waitFor(() => (events.length >= n ? types() : undefined), `${n} switch events (got ${types().join(', ')})`) };
}

describe('MicSwitch on a fake amixer', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function setup(initial: 'on' | 'off', options: { control?: string; card?: string } = {}) {
    const amixer = await FakeAmixer.create(initial);
    const mic = new MicSwitch({ card: options.card ?? 'Microphone', env: amixer.env, now: () => 42, retryMs: 300, ...(options.control ? { control: options.control } : {}) });
    cleanup.push(() => amixer.remove(), () => mic.close());
    return { amixer, mic, log: recorder(mic) };
  }

  it('emits start when the switch turns on and stop when it turns off', async () => {
    const { amixer, mic, log } = await setup('off');
    await mic.start();
    expect(mic.on).toBe(false);
    expect(log.events).toEqual([]);
    await amixer.flip('on');
    expect(await log.until(1)).toEqual(['start']);
    expect(log.events[0]).toEqual({ type: 'start', atMs: 42 });
    await amixer.flip('off');
    expect(await log.until(2)).toEqual(['start', 'stop']);
    expect(mic.on).toBe(false);
  });

  it('reads the switch only when that switch is reported', async () => {
    const { amixer, mic, log } = await setup('off');
    await mic.start();
    const reads = await amixer.cgets();
    await amixer.event('value', 1, 'Mic Capture Volume');
    await amixer.flip('on');
    await log.until(1);
    expect((await amixer.cgets()) - reads).toBe(1);
  });

  it('starts at once when the microphone is already on', async () => {
    const { mic, log } = await setup('on');
    await mic.start();
    expect(log.types()).toEqual(['start']);
  });

  it('names the card amixer does not know', async () => {
    const { mic } = await setup('off', { card: 'Headset' });
    const error = await mic.start().catch((e: unknown) => e);
    expect(isAppError(error, 'MIC_SWITCH_UNAVAILABLE')).toBe(true);
    expect(String((error as Error).message)).toContain("Invalid card number 'Headset'");
  });

  it('lists the controls when the switch is not there', async () => {
    const { mic } = await setup('off', { control: 'Front Mic Capture Switch' });
    const error = await mic.start().catch((e: unknown) => e);
    expect(isAppError(error, 'MIC_SWITCH_NOT_FOUND')).toBe(true);
    expect(String((error as Error).message)).toContain("'Mic Capture Switch'");
  });

  it('stops a recording when the card goes away, says so, and comes back with it', async () => {
    const { amixer, mic, log } = await setup('on');
    await mic.start();
    const [first] = await amixer.eventPids();
    await amixer.event('remove', 2, 'Mic Capture Switch');
    expect(await log.until(3)).toEqual(['start', 'stop', 'error']);
    expect(log.events[2]).toMatchObject({ code: 'MIC_SWITCH_UNAVAILABLE', recoverable: true });
    expect(mic.on).toBeUndefined();
    await amixer.resetEvents();
    expect(await log.until(4)).toEqual(['start', 'stop', 'error', 'start']);
    expect(alive(first!)).toBe(false);
  });

  it('close() ends amixer events', async () => {
    const { amixer, mic } = await setup('off');
    await mic.start();
    const [pid] = await amixer.eventPids();
    expect(alive(pid!)).toBe(true);
    await mic.close();
    expect(alive(pid!)).toBe(false);
  });

  it('drives a voice service: unmute starts listening, mute stops it', async () => {
    const amixer = await FakeAmixer.create('off');
    const calls: string[] = [];
    const stop = await micSwitchTrigger('Microphone', { startListening: (t) => (calls.push(`start:${t}`), true), stopListening: () => (calls.push('stop'), true) }, { env: amixer.env });
    try {
      await amixer.flip('on');
      await waitFor(() => (calls.length >= 1 ? true : undefined), 'startListening');
      await amixer.flip('off');
      await waitFor(() => (calls.length >= 2 ? true : undefined), 'stopListening');
      expect(calls).toEqual(['start:switch', 'stop']);
    } finally {
      await stop();
      await amixer.remove();
    }
  });
});

const pulse = await startPulse();
if (!pulse.ok) console.warn(`real amixer test skipped: ${pulse.reason}`);

describe.skipIf(!pulse.ok)('MicSwitch on the real amixer through PulseAudio', () => {
  afterAll(async () => {
    if (pulse.ok) await pulse.server.stop();
  });

  it('follows the source mute of a private PulseAudio', async () => {
    if (!pulse.ok) return;
    const { server } = pulse;
    const mic = new MicSwitch({ device: 'pulse', env: { PATH: process.env.PATH, ...server.env } });
    const log = recorder(mic);
    try {
      await mic.start();
      expect(log.types()).toEqual(['start']);
      await server.pactl('set-source-mute', MONITOR, '1');
      expect(await log.until(2)).toEqual(['start', 'stop']);
      await server.pactl('set-source-mute', MONITOR, '0');
      expect(await log.until(3)).toEqual(['start', 'stop', 'start']);
    } finally {
      await mic.close();
    }
  });
});

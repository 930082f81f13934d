/**
 * The room measurement `doctor` makes in full-duplex mode, on the real
 * PortAudio devices of a private PulseAudio whose echo room (0.3 s of
 * reverberation, a loudspeaker that distorts a little, -50 dBFS of noise)
 * carries the test sound back into the microphone. Skipped, with the
 * reason, where PulseAudio or naudiodon cannot run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { buildEchoRoom, ROOM_VARIANTS, type EchoRoom } from '../../support/echo-room.js';
import { loadConfig } from '../../../src/config/index.js';
import { roomEchoCheck } from '../../../src/doctor/checks.js';
import { PortAudioInput, PortAudioOutput } from '../../../src/voice/devices/index.js';
import { measureRoomEcho, roomProblems } from '../../../src/voice/duplex/index.js';
import { startPulseForTests, usePulseInSuite } from '../../helpers/pulse.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const { pulse, skipReason } = await startPulseForTests('room measurement test');

describe('roomProblems', () => {
  it('names a noisy room and a loud echo, and nothing in a quiet one', () => {
    expect(roomProblems({ heard: true, delayMs: 80, echoDb: -3, noiseDbfs: -55, match: 0.9 })).toEqual([]);
    const [noise, echo] = roomProblems({ heard: true, delayMs: 80, echoDb: 9, noiseDbfs: -30, match: 0.9 });
    expect(noise).toContain('steady noise at -30 dBFS');
    expect(echo).toContain('9 dB louder than what was played');
  });
});

describe.skipIf(skipReason !== undefined)('measuring the room with a test sound', () => {
  const server = usePulseInSuite(pulse);
  let room: EchoRoom;
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'room-probe-'));
    room = await buildEchoRoom(server(), ROOM_VARIANTS.find((v) => v.name === 'room_0.3s')!, scratch);
  });
  afterAll(async () => {
    await room?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  async function measure() {
    const input = PortAudioInput.open({ device: 'default' });
    const output = PortAudioOutput.open({ device: 'default' });
    try {
      return await measureRoomEcho({ input, output });
    } finally {
      await Promise.all([input.close(), output.close()]);
    }
  }

  it('finds the echo, its delay and its level, and the room noise; the level follows the speaker-to-microphone gain', async () => {
    await room.setEchoGain(1);
    const loud = await measure();
    await room.setEchoGain(0.5);
    const quiet = await measure();
    for (const echo of [loud, quiet]) {
      expect(echo.heard).toBe(true);
      expect(echo.match).toBeGreaterThan(0.6);
      // Write to microphone through PortAudio's and PulseAudio's queues: tens of ms, not seconds.
      expect(echo.delayMs!).toBeGreaterThan(10);
      expect(echo.delayMs!).toBeLessThan(300);
      expect(Math.abs(echo.noiseDbfs - -50)).toBeLessThan(2.5);
    }
    // The room's trim makes a gain of 1 an echo as loud as what was played; half the gain is 6 dB less.
    expect(Math.abs(loud.echoDb!)).toBeLessThan(1.5);
    expect(loud.echoDb! - quiet.echoDb!).toBeGreaterThan(4.5);
    expect(loud.echoDb! - quiet.echoDb!).toBeLessThan(7.5);
  }, 30_000);

  it('is what doctor reports in full-duplex mode, and doctor --no-sound skips it', async () => {
    await room.setEchoGain(1);
    const home = await makeTempDir('da-room-doctor-');
    try {
      await home.write('config/config.toml', 'mode = "full_duplex_agent"\n');
      const config = await loadConfig(join(home.path, 'config'));
      const context = { config, dataDir: join(home.path, 'data'), env: {}, voice: true };
      const check = await roomEchoCheck(context);
      expect(check).toMatchObject({ name: 'room echo (full duplex)', ok: true });
      expect(check.detail).toMatch(/^echo after \d+ ms at -?\d+\.\d dB of what was played, steady noise -5\d dBFS$/);
      expect(await roomEchoCheck({ ...context, sound: false })).toMatchObject({ ok: true, skipped: true });
    } finally {
      await home.remove();
    }
  }, 30_000);
});

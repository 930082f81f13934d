import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WavFileOutput, readWav } from '../../../src/voice/audio/index.js';
import { NullOutput } from '../../support/null-output.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { FakeClock } from './fake-clock.js';

const ramp = (length: number, from = 0) => Int16Array.from({ length }, (_, i) => (from + i) % 30000);

describe('WavFileOutput', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('da-wavout-');
  });
  afterAll(() => dir.remove());

  it('unpaced: everything written plays at once and is in the file at close', async () => {
    const file = join(dir.path, 'instant.wav');
    const output = new WavFileOutput(file);
    await output.write(ramp(1000));
    await output.write(ramp(600, 1000));
    await output.drain();
    output.clear();
    expect(output.recorded()).toEqual(ramp(1600));
    await output.close();
    expect(await readWav(file)).toEqual({ sampleRate: 16000, channels: 1, samples: ramp(1600) });
    await expect(output.write(ramp(1))).rejects.toMatchObject({ code: 'AUDIO_OUTPUT_CLOSED' });
  });

  it('realtime: plays at 16 kHz on the clock; clear drops the unplayed rest', async () => {
    const clock = new FakeClock();
    const file = join(dir.path, 'cut.wav');
    const output = new WavFileOutput(file, { realtime: true, clock });
    await output.write(ramp(16000)); // one second
    clock.advance(300);
    expect(output.recorded().length).toBe(4800);
    output.clear();
    clock.advance(1000);
    expect(output.recorded()).toEqual(ramp(4800));
    // Idle speaker: the next chunk starts when written.
    await output.write(ramp(320, 4800));
    await output.drain();
    expect(clock.sleeps).toEqual([20]);
    await output.close();
    expect((await readWav(file)).samples).toEqual(ramp(5120));
  });

  it('realtime: drain waits, on the clock, until everything has played', async () => {
    const clock = new FakeClock();
    const output = new WavFileOutput(join(dir.path, 'drain.wav'), { realtime: true, clock });
    await output.write(ramp(8000));
    clock.advance(100);
    await output.write(ramp(8000, 8000));
    await output.drain();
    expect(clock.nowMs).toBe(1000);
    expect(output.recorded()).toEqual(ramp(16000));
    await output.close();
  });

  it('realtime: close keeps only what has played', async () => {
    const clock = new FakeClock();
    const file = join(dir.path, 'closed.wav');
    const output = new WavFileOutput(file, { realtime: true, clock });
    await output.write(ramp(16000));
    clock.advance(500);
    await output.close();
    expect((await readWav(file)).samples.length).toBe(8000);
  });
});

describe('NullOutput', () => {
  it('counts what it is given and is always drained', async () => {
    const output = new NullOutput();
    await output.write(new Int16Array(320));
    await output.write(new Int16Array(100));
    output.clear();
    await output.drain();
    await output.close();
    expect(output.samplesWritten).toBe(420);
  });
});

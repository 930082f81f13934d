/**
 * What the speaker really plays, recorded from a PulseAudio null sink's
 * monitor while the turn-based voice's Speaker says a sentence through
 * espeak-ng and PortAudio: the sentence plays as long as espeak-ng made it,
 * with no silence put in between its chunks. Skipped, with the reason,
 * where PulseAudio or naudiodon cannot run.
 */
import { describe, expect, it } from 'vitest';
import { MonitorRecording } from '../../../bench/room-monitor.js';
import { createAssistantBus } from '../../../src/events/index.js';
import { PortAudioOutput } from '../../../src/voice/devices/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { EspeakTts } from '../../../src/voice/tts/index.js';
import { MONITOR, startPulseForTests, usePulseInSuite } from '../../helpers/pulse.js';

const { pulse, skipReason } = await startPulseForTests('speaker playback test');
const SENTENCE = 'It will be mostly sunny with a high of twenty two degrees, and a light wind from the west.';
const RATE = 16_000;

/** Milliseconds from the first to the last sample that is not digital silence. */
function soundingMs(samples: ArrayLike<number>): number {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (samples[i] === 0) continue;
    if (first < 0) first = i;
    last = i;
  }
  return first < 0 ? 0 : ((last - first + 1) / RATE) * 1000;
}

describe.skipIf(skipReason !== undefined)('the Speaker on a real audio device', () => {
  const server = usePulseInSuite(pulse);

  it('plays a sentence as long as the TTS made it: no silence between its chunks', async () => {
    const tts = new EspeakTts();
    const chunks: Int16Array[] = [];
    for await (const chunk of tts.synthesize(SENTENCE, { language: 'en' })) chunks.push(chunk);
    const made = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      made.set(c, at);
      at += c.length;
    }
    // The sentence comes in several pieces: the boundaries between them are what this is about.
    expect(chunks.length).toBeGreaterThan(5);

    const recording = await MonitorRecording.start(server(), MONITOR, RATE);
    const output = PortAudioOutput.open({ device: 'default' });
    try {
      const speaker = new Speaker({ tts, output, bus: createAssistantBus(), sanitize: (t) => t });
      const from = recording.length;
      await speaker.say(SENTENCE, 'en');
      await speaker.finish();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const played = recording.slice('left', from);
      // 10 ms of silence at each of the boundaries would make it hundreds of ms longer.
      expect(Math.abs(soundingMs(played) - soundingMs(made))).toBeLessThan(15);
    } finally {
      await output.close();
      await recording.stop();
      await tts.close();
    }
  }, 30_000);
});

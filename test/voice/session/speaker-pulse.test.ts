/**
 * What the speaker really plays, recorded from a PulseAudio null sink's
 * monitor while the turn-based voice's Speaker, and the full-duplex voice's
 * player, say a sentence through espeak-ng and PortAudio: the sentence plays
 * as long as espeak-ng made it, with no silence put in between its chunks.
 * Skipped, with the reason, where PulseAudio or naudiodon cannot run.
 */
import { describe, expect, it } from 'vitest';
import { MonitorRecording } from '../../support/room-monitor.js';
import { createAssistantBus } from '../../../src/events/index.js';
import { concatSamples } from '../../../src/voice/audio/index.js';
import { PortAudioOutput } from '../../../src/voice/devices/index.js';
import { DuplexPlayer } from '../../../src/voice/duplex/index.js';
import { Speaker } from '../../../src/voice/session/speaker.js';
import { EspeakTts } from '../../../src/voice/tts/index.js';
import { MONITOR, startPulseForTests, usePulseInSuite } from '../../helpers/pulse.js';
import { waitFor } from '../../helpers/wait-for.js';

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

/**
 * What the monitor recorded from `from`, once it holds the sound and 300 ms of
 * digital silence after it (longer than any pause inside the sentence): the
 * end of what was played has come through the sound server.
 */
function recordedThroughEnd(recording: MonitorRecording, from: number): Promise<Int16Array> {
  return waitFor(() => {
    const played = recording.slice('left', from);
    let lastSound = played.length - 1;
    while (lastSound >= 0 && played[lastSound] === 0) lastSound -= 1;
    return lastSound >= 0 && played.length - lastSound > (RATE * 300) / 1000 ? played : undefined;
  }, 'the end of the sentence in the recording');
}

/** The sentence as the TTS makes it, joined, and in how many pieces. */
async function synthesized(tts: EspeakTts): Promise<{ made: Int16Array; pieces: number }> {
  const chunks: Int16Array[] = [];
  for await (const chunk of tts.synthesize(SENTENCE, { language: 'en' })) chunks.push(chunk);
  return { made: concatSamples(chunks), pieces: chunks.length };
}

describe.skipIf(skipReason !== undefined)('the Speaker on a real audio device', () => {
  const server = usePulseInSuite(pulse);

  it('the full-duplex player too: a sentence plays as long as the TTS made it', async () => {
    const tts = new EspeakTts();
    const { made } = await synthesized(tts);
    const recording = await MonitorRecording.start(server(), MONITOR, RATE);
    const output = PortAudioOutput.open({ device: 'default' });
    try {
      let played!: () => void;
      const done = new Promise<void>((resolve) => (played = resolve));
      const player = new DuplexPlayer({
        output,
        tts,
        sanitize: (t) => t,
        listener: { sentenceStarted: () => undefined, sentencePlayed: () => played(), failed: () => played() },
      });
      const from = recording.length;
      player.begin('t1', new AbortController().signal);
      player.add('t1', SENTENCE, 'en');
      player.end('t1');
      await done;
      await output.drain();
      expect(Math.abs(soundingMs(await recordedThroughEnd(recording, from)) - soundingMs(made))).toBeLessThan(15);
    } finally {
      await output.close();
      await recording.stop();
      await tts.close();
    }
  }, 30_000);

  it('plays a sentence as long as the TTS made it: no silence between its chunks', async () => {
    const tts = new EspeakTts();
    const { made, pieces } = await synthesized(tts);
    // The sentence comes in several pieces: the boundaries between them are what this is about.
    expect(pieces).toBeGreaterThan(5);

    const recording = await MonitorRecording.start(server(), MONITOR, RATE);
    const output = PortAudioOutput.open({ device: 'default' });
    try {
      const speaker = new Speaker({ tts, output, bus: createAssistantBus(), sanitize: (t) => t });
      const from = recording.length;
      await speaker.say(SENTENCE, 'en');
      await speaker.finish();
      const played = await recordedThroughEnd(recording, from);
      // 10 ms of silence at each of the boundaries would make it hundreds of ms longer.
      expect(Math.abs(soundingMs(played) - soundingMs(made))).toBeLessThan(15);
    } finally {
      await output.close();
      await recording.stop();
      await tts.close();
    }
  }, 30_000);
});

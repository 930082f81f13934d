import { describe, expect, it } from 'vitest';
import { audioLibraryNews } from '../../../src/voice/devices/audio-quiet.js';

describe("what the sound libraries' messages say", () => {
  it('counts the output underflows naudiodon prints, and finds no sound card and a busy device', () => {
    const news = audioLibraryNews([
      'ALSA lib confmisc.c:855:(parse_card) cannot find card \'0\'',
      'AudioIO: portAudio status - output underflow ',
      'AudioIO: portAudio status - input overflow ',
      'AudioIO: portAudio status - output underflow ',
    ]);
    expect(news).toEqual({ noSoundCard: true, busy: undefined, count: 4, underflows: 2 });
    expect(audioLibraryNews(['ALSA lib pcm_dmix.c: unable to open slave']).busy).toMatch(/unable to open slave/);
    expect(audioLibraryNews([]).underflows).toBe(0);
  });
});

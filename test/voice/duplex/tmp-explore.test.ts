import { it } from 'vitest';
import { WebRtcApm } from '../../../src/voice/apm/index.js';
import { SileroVad } from '../../../src/voice/vad/index.js';
import { BargeInDetector } from '../../../src/voice/duplex/index.js';
import { assistantVoice, echoScene, loadClip, playScene, voicedOnset } from '../../../bench/echo-scenes.js';

it('explore', async () => {
  const vad = await SileroVad.load();
  const far = assistantVoice();
  const clip = await loadClip('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav');
  const env = [];
  for (let s = 0; s < 16000; s += 480) { let m = 0; for (let i = s; i < s + 480; i++) m = Math.max(m, Math.abs(clip[i]!)); env.push(m); }
  console.log('clip env 30ms', env.join(' '));
  for (const mode of ['clean-noapm', 'echo-apm', 'silentfar-apm']) {
    const apm = new WebRtcApm({ gainControl: false });
    vad.reset();
    const d = new BargeInDetector({ apm, vad });
    const f = mode === 'silentfar-apm' ? new Int16Array(far.length) : far;
    const scene = echoScene(f, { delayMs: 40, gain: mode === 'clean-noapm' ? 0 : 0.5, noise: 30, seed: 3 }, { samples: clip, atMs: 1000, gain: 1 });
    const probs = [];
    for (let i = 0; i + 320 <= 3 * 16000; i += 320) {
      const r = await d.process(scene.mic.subarray(i, i + 320), scene.far.subarray(i, i + 320));
      for (const w of r.windows) if (w.startMs >= 900 && w.startMs < 2000) probs.push(`${w.startMs}:${w.probability.toFixed(2)}`);
    }
    apm.close();
    console.log(mode, probs.join(' '));
  }
}, 120000);

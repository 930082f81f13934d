/**
 * The echo canceller's cost in a room: the microphone frames and their
 * render that the live voice heard (kept during the echo-only replies, up
 * to a minute) go again, after the room is closed, through fresh
 * cancellers of the kind that ran, with the daemon's settings for each of
 * its two paths (cleaned: as configured; double talk: low suppression, no
 * gain control). Timed alone, so the live voice's other work does not
 * count: process CPU time per 10 ms frame (mean over all), and wall time
 * per frame (p50, p95).
 */
import type { Config } from '../../src/config/index.js';
import { createApm, type EchoCanceller, type WebRtcApmOptions } from '../../src/voice/apm/index.js';
import type { AudioFrame } from '../../src/voice/types.js';
import { apmOptionsFromConfig } from '../../src/voice/live-duplex.js';
import type { Figures } from './benchmark.js';
import { percentile, round } from '../../test/support/stats.js';

/** 20 ms voice frames: 3000 is a minute of audio. */
const KEEP_FRAMES = 3000;

/** The frames the voice heard while `keeping`, copied, with their render (null: nothing played). */
export class HeardFrames {
  readonly frames: Array<{ mic: Int16Array; render: Int16Array | null }> = [];
  keeping = false;

  heard(frame: AudioFrame, render: Int16Array | null): void {
    if (!this.keeping || this.frames.length >= KEEP_FRAMES) return;
    this.frames.push({ mic: frame.samples.slice(), render: render ? render.slice() : null });
  }
}

/** `<path>_cpu_ms_per_frame` (mean) and `<path>_wall_p50_ms` / `_p95_ms` per 10 ms frame, for the cleaned and the double-talk paths. */
export function cancellerCpu(canceller: EchoCanceller, config: Config, heard: HeardFrames): Figures {
  if (heard.frames.length === 0) return { canceller_cpu: 'no frames kept' };
  const paths: Record<string, WebRtcApmOptions> = {
    cleaned: apmOptionsFromConfig(config),
    double_talk: { ...apmOptionsFromConfig(config), echoSuppression: 'low', gainControl: false },
  };
  const figures: Figures = {};
  for (const [path, options] of Object.entries(paths)) {
    const apm = createApm(canceller, options);
    try {
      const n = apm.frameSamples;
      const silence = new Int16Array(n);
      const wall: number[] = [];
      const cpuFrom = process.cpuUsage();
      for (const { mic, render } of heard.frames) {
        for (let at = 0; at + n <= mic.length; at += n) {
          const started = performance.now();
          apm.processRender(render ? render.subarray(at, at + n) : silence);
          apm.processCapture(mic.subarray(at, at + n));
          wall.push(performance.now() - started);
        }
      }
      const cpu = process.cpuUsage(cpuFrom);
      figures[`${path}_cpu_ms_per_frame`] = round((cpu.user + cpu.system) / 1000 / wall.length, 4);
      figures[`${path}_wall_p50_ms`] = round(percentile(wall, 50), 4);
      figures[`${path}_wall_p95_ms`] = round(percentile(wall, 95), 4);
      figures.canceller_timed_frames = wall.length;
    } finally {
      apm.close();
    }
  }
  return figures;
}

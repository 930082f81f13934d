import type { Vad } from '../../../src/voice/types.js';

/** A Vad that answers from a script: a list of probabilities (then 0), or a function of the window. */
export class ScriptedVad implements Vad {
  readonly frameSamples: number;
  readonly windows: Int16Array[] = [];
  resets = 0;
  closed = false;
  private readonly script: (window: Int16Array, call: number) => number;

  constructor(script: number[] | ((window: Int16Array, call: number) => number), frameSamples = 512) {
    this.frameSamples = frameSamples;
    this.script = Array.isArray(script) ? (_window, call) => script[call] ?? 0 : script;
  }

  async probability(samples: Int16Array): Promise<number> {
    this.windows.push(samples.slice());
    return this.script(samples, this.windows.length - 1);
  }

  /** Counted only: the script runs on across resets, so a test reads as one timeline. */
  reset(): void {
    this.resets++;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Loud where speech is wanted: a VAD that says "speech" when a window's mean level is high. */
export function levelVad(level = 1000): ScriptedVad {
  return new ScriptedVad((window) => {
    let sum = 0;
    for (const v of window) sum += Math.abs(v);
    return sum / window.length >= level ? 0.95 : 0.02;
  });
}

/** `windows` VAD windows of 512 samples per [probability, count] pair, as a probability script. */
export function script(...runs: Array<[number, number]>): number[] {
  return runs.flatMap(([p, count]) => Array<number>(count).fill(p));
}

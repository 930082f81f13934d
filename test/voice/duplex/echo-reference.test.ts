import { describe, expect, it } from 'vitest';
import { createAssistantBus, type AssistantEvent } from '../../../src/events/index.js';
import { EchoReference } from '../../../src/voice/duplex/echo-reference.js';

function setup() {
  let now = 0;
  const events: AssistantEvent[] = [];
  const bus = createAssistantBus();
  bus.subscribe((e) => events.push(e));
  const echo = new EchoReference({
    bus,
    clock: () => now,
    eventClock: () => now,
    capacityMs: 2000,
    delayMs: 0,
    driftTolerancePpm: 3000,
    echoTailMs: 300,
    onOverrun: () => undefined,
  });
  return { echo, events, setNow: (t: number) => (now = t) };
}

const frame = (atMs: number) => ({ samples: new Int16Array(320), index: Math.round(atMs / 20), atMs });

describe('the echo reference', () => {
  it('pairs capture with what the speaker played, until the echo tail has passed', () => {
    const { echo, setNow } = setup();
    setNow(1000);
    echo.written(new Int16Array(320).fill(700)); // plays 1000..1020
    expect(echo.forCapture(frame(1000))?.[0]).toBe(700);
    expect(echo.forCapture(frame(1200))?.every((s) => s === 0)).toBe(true); // the tail: silence, but echo may still come
    expect(echo.forCapture(frame(1340))).toBeNull();
    // 20 ms of render heard: a warm-up of 20 ms is over, one of 21 ms is not.
    expect(echo.confidenceScale(true, 20)).toBe(1);
    expect(echo.confidenceScale(true, 21)).toBe(0);
  });

  it('reports drift between the microphone and the speaker beyond the tolerance, and its end', () => {
    const { echo, events, setNow } = setup();
    // The speaker takes 320 samples every 19.9 ms while the microphone delivers them every 20 ms: 5000 ppm.
    const run = (fromMs: number, toMs: number, renderEveryMs: number) => {
      const ticks: Array<[number, () => void]> = [];
      for (let t = fromMs; t < toMs; t += 20) ticks.push([t + 20, () => echo.forCapture(frame(t))]);
      for (let t = fromMs; t < toMs; t += renderEveryMs) ticks.push([t, () => echo.handedOff(320)]);
      ticks.sort((a, b) => a[0] - b[0]);
      for (const [t, tick] of ticks) {
        setNow(t);
        tick();
      }
    };
    run(0, 8000, 19.9);
    expect(echo.drifting).toBe(true);
    // Speech over the speaker's audio counts for less while drifting (not at all during the warm-up); with nothing playing, in full.
    expect(echo.confidenceScale(true, 0)).toBe(0.9);
    expect(echo.confidenceScale(true, 10_000)).toBe(0);
    expect(echo.confidenceScale(false, 10_000)).toBe(1);
    expect(events.find((e) => e.type === 'audio.reference_drift')).toMatchObject({ phase: 'detected', lowerInterruptionConfidence: true });
    run(8000, 20_000, 20);
    expect(echo.drifting).toBe(false);
    expect(echo.confidenceScale(true, 0)).toBe(1);
    expect(events.filter((e) => e.type === 'audio.reference_drift').map((e) => e.type === 'audio.reference_drift' && e.phase)).toEqual(['detected', 'recovered']);
  });
});

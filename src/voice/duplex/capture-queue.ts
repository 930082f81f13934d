/**
 * The microphone's frames between the device and the processing loop, in a
 * bounded ring: a stall in processing (a busy event loop, a long GC) drops
 * the oldest unprocessed audio with an overrun report instead of growing
 * without bound or holding the device up. Frames keep their capture times
 * and get monotonic ids; the loop takes them in order.
 */
import { AudioRingBuffer, type OverrunReport } from '../buffers/index.js';
import { FRAME_MS, SAMPLE_RATE, type AudioFrame, type AudioInput } from '../types.js';

export class CaptureQueue {
  private readonly ring: AudioRingBuffer;
  /** The id of the next frame the loop takes. */
  private nextId = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  constructor(capacityMs: number, onOverrun: (report: OverrunReport) => void) {
    this.ring = new AudioRingBuffer({
      name: 'capture',
      capacity: Math.max(1, Math.ceil(capacityMs / FRAME_MS)),
      sampleRate: SAMPLE_RATE,
      channels: 1,
      // Frames the loop already took age out as a matter of course; only unprocessed audio lost is an overrun.
      onOverrun: (report) => {
        if (report.toId >= this.nextId) onOverrun(report);
      },
    });
  }

  /** Reads the input into the ring until it ends, fails, or `signal` aborts. */
  async fill(input: AudioInput, signal: AbortSignal): Promise<void> {
    try {
      for await (const frame of input.frames({ signal })) {
        this.ring.push({ samples: frame.samples, atMs: frame.atMs });
        this.wakeUp();
      }
    } catch (error) {
      if (!signal.aborted) this.failure = { error };
    } finally {
      this.ended = true;
      this.wakeUp();
    }
  }

  /** The frames in capture order, as fast as the loop takes them; throws what the input threw. */
  async *frames(): AsyncIterable<AudioFrame> {
    for (;;) {
      const next = this.ring.since(this.nextId)[0];
      if (next) {
        this.nextId = next.id + 1;
        yield { samples: next.samples, index: next.id, atMs: next.atMs };
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

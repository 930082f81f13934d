/**
 * Notices a device that stopped moving: no capture chunk arrived, or no
 * playback write was taken, for too long. When the sound server goes away
 * (PulseAudio or PipeWire restarting, on every headset plug), PortAudio's
 * ALSA thread ends on a poll error and naudiodon neither calls back nor
 * reports an error: without a watch a read or a write waits forever (the
 * voice stayed busy until the daemon was restarted).
 *
 * Too long is `stallMs` for a stream that has been steady (a beat at least
 * every STEADY_GAP_MS for STEADY_AFTER_MS: a card's 10 ms chunks), and
 * `unsteadyMs` before that (its first chunk included): a PulseAudio null
 * sink with no low-latency client renders in blocks up to 2 s apart, and
 * one that a stream just joined may render once and then sleep a while.
 *
 * A timer looks every stallMs / 4; a stale look is confirmed one turn of the
 * event loop later (setImmediate, after the poll phase) so that a loop that
 * was itself blocked, with the device's chunks still queued behind the
 * timers, is not taken for a dead device.
 */
export interface StallWatch {
  /** The device delivered (a chunk arrived, a write was taken). */
  beat(): void;
  stop(): void;
}

export interface StallWatchOptions {
  /** The limit once the stream is steady. */
  stallMs: number;
  /** The limit before it is (default stallMs). */
  unsteadyMs?: number;
  /** Monotonic milliseconds. */
  now: () => number;
  /** Called once, with how long nothing came. */
  onStall: (silentMs: number) => void;
}

/** Beats this close together are steady delivery: 25 chunks of 10 ms, with room for a busy event loop. */
const STEADY_GAP_MS = 250;
const STEADY_AFTER_MS = 2000;

export function watchStall(options: StallWatchOptions): StallWatch {
  const { stallMs, now, onStall } = options;
  const unsteadyMs = Math.max(stallMs, options.unsteadyMs ?? stallMs);
  let last = now();
  /** Since when the beats have come steadily; undefined before the first. */
  let steadySince: number | undefined;
  let stopped = false;
  let confirming = false;
  const limit = (): number => (steadySince !== undefined && last - steadySince >= STEADY_AFTER_MS ? stallMs : unsteadyMs);
  const stale = (): boolean => now() - last >= limit();
  const timer = setInterval(
    () => {
      if (stopped || confirming || !stale()) return;
      confirming = true;
      setImmediate(() => {
        confirming = false;
        if (stopped || !stale()) return;
        watch.stop();
        onStall(Math.round(now() - last));
      });
    },
    Math.max(5, Math.round(stallMs / 4)),
  );
  // A watch never keeps the process alive: the stream it watches does, while it runs.
  timer.unref();
  const watch: StallWatch = {
    beat: () => {
      const at = now();
      if (steadySince === undefined || at - last > STEADY_GAP_MS) steadySince = at;
      last = at;
    },
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
  return watch;
}

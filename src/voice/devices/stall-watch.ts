/**
 * Notices a device that stopped moving: no capture chunk arrived, or no
 * playback write was taken, for `stallMs`. When the sound server goes away
 * (PulseAudio or PipeWire restarting, on every headset plug), PortAudio's
 * ALSA thread ends on a poll error and naudiodon neither calls back nor
 * reports an error: without a watch a read or a write waits forever (the
 * voice stayed busy until the daemon was restarted).
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
  stallMs: number;
  /**
   * The allowance before the first beat (a stream that is starting); default
   * stallMs. PulseAudio's null sink renders its first block up to 2 s after
   * a stream joins it; a real card starts in tens of milliseconds.
   */
  graceMs?: number;
  /** Monotonic milliseconds. */
  now: () => number;
  /** Called once, with how long nothing came. */
  onStall: (silentMs: number) => void;
}

export function watchStall(options: StallWatchOptions): StallWatch {
  const { stallMs, now, onStall } = options;
  let last = now();
  let allowance = Math.max(stallMs, options.graceMs ?? stallMs);
  let stopped = false;
  let confirming = false;
  const stale = (): boolean => now() - last >= allowance;
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
      last = now();
      allowance = stallMs;
    },
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
  return watch;
}

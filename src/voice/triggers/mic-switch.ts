/**
 * The microphone's mute switch as a push-to-talk: unmuting starts a
 * recording, muting stops it (the predecessor's trigger, config `card`).
 *
 * `amixer -c CARD events` says which control changed but not its value, so
 * each change of the watched capture switch is followed by `amixer cget`.
 * amixer never flushes its stdout, so it runs under `stdbuf -oL`; without it
 * the events would sit in a 4 KB pipe buffer. If the card goes away (a USB
 * microphone unplugged) or amixer exits, a recording in progress stops, an
 * error event says so, and the switch is looked for again every
 * `retryMs` until it is back.
 *
 * The events follower lives as long as the switch and is read line by
 * line (spawnInGroup); the one-shot `amixer controls` and `cget` go through
 * runCommand.
 */
import { createInterface } from 'node:readline';
import { AppError } from '../../errors/index.js';
import { EventBus } from '../../events/index.js';
import { allowListedEnv, runCommand, spawnInGroup, stopGroup, type ChildProcess, type StopTimings } from '../../process/index.js';
import { describeControl, findCaptureSwitch, parseCgetValues, parseControls, parseEventLine, switchIsOn, type ControlId } from './amixer-output.js';

export type MicSwitchEvent =
  | { type: 'start'; atMs: number }
  | { type: 'stop'; atMs: number }
  | { type: 'error'; atMs: number; code: string; message: string; recoverable: boolean };

export interface MicSwitchOptions {
  /** ALSA card id or number (`amixer -c`): config `card`. */
  card?: string;
  /** Or an ALSA control device (`amixer -D`, e.g. "pulse"); wins over `card`. */
  device?: string;
  /** The switch: `numid=N` or its name; default the card's first "... Capture Switch". */
  control?: string;
  /** The amixer program. Default "amixer", found on PATH. */
  amixer?: string;
  /** The children's environment; default the process module's allow-list of this process's. */
  env?: NodeJS.ProcessEnv;
  /** Event times, ms since the epoch. */
  now?: () => number;
  commandTimeoutMs?: number;
  retryMs?: number;
}

/** `amixer events` does not read stdin and leaves on SIGTERM: a short stdin step, and bounds for a stuck one. */
const EVENTS_STOP: StopTimings = { stdinGraceMs: 50, termGraceMs: 500, killGraceMs: 500 };

export class MicSwitch {
  private readonly bus = new EventBus<MicSwitchEvent>();
  private readonly target: string[];
  private readonly amixer: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;
  private readonly commandTimeoutMs: number;
  private readonly retryMs: number;
  private control: ControlId | undefined;
  private child: ChildProcess | undefined;
  private state: boolean | undefined;
  private reading = false;
  private stale = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: MicSwitchOptions) {
    if (!options.device && !options.card) throw new AppError('MIC_SWITCH_CONFIG_INVALID', 'the microphone switch needs a card (config `card`) or an ALSA device');
    this.target = options.device ? ['-D', options.device] : ['-c', options.card!];
    this.amixer = options.amixer ?? 'amixer';
    this.env = options.env ?? allowListedEnv(process.env);
    this.now = options.now ?? Date.now;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    this.retryMs = options.retryMs ?? 2000;
  }

  /** Whether the microphone is unmuted; undefined before start or while the card is gone. */
  get on(): boolean | undefined {
    return this.state;
  }

  subscribe(listener: (event: MicSwitchEvent) => void): () => void {
    return this.bus.subscribe(listener);
  }

  /** Finds the switch, starts listening, and emits `start` if the microphone is already on. */
  async start(): Promise<void> {
    if (this.closed) throw new AppError('MIC_SWITCH_CLOSED', 'the microphone switch is closed');
    const controls = parseControls(await this.run(['controls']));
    const control = findCaptureSwitch(controls, this.options.control);
    if (!control) {
      const wanted = this.options.control ? `a control ${JSON.stringify(this.options.control)}` : 'a "... Capture Switch" control';
      const names = controls.map((c) => `'${c.name}'`).join(', ') || '(none)';
      throw new AppError('MIC_SWITCH_NOT_FOUND', `amixer ${this.target.join(' ')} has no ${wanted}; its controls are: ${names}`);
    }
    this.control = control;
    await this.listen();
    await this.refresh();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await stopChild(this.child);
    this.child = undefined;
  }

  /** Starts `amixer events` and resolves once it is listening, so no change falls between it and the first read. */
  private listen(): Promise<void> {
    // A retry's start() may still be looking for the card when close() comes.
    if (this.closed) return Promise.reject(new AppError('MIC_SWITCH_CLOSED', 'the microphone switch is closed'));
    const child = spawnInGroup('stdbuf', ['-oL', this.amixer, ...this.target, 'events'], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    return new Promise((resolve, reject) => {
      let ready = false;
      let failed = false;
      const timer = setTimeout(() => fail('did not start listening'), this.commandTimeoutMs);
      const fail = (why: string): void => {
        // One end per amixer: a remove line, then its exit, is one loss.
        if (failed) return;
        failed = true;
        clearTimeout(timer);
        const error = new AppError('MIC_SWITCH_UNAVAILABLE', `amixer ${this.target.join(' ')} events ${why}${stderr ? `: ${stderr.trim()}` : ''}`, { retryable: true });
        if (ready) this.lost(error);
        else {
          // stopGroup never rejects; the start fails with `error`.
          void stopChild(child);
          reject(error);
        }
      };
      child.on('error', (error) => fail(`cannot run: ${error.message}`));
      child.on('exit', (code, signal) => {
        if (this.child === child && !this.closed) fail(`exited (${signal ?? code})`);
      });
      createInterface({ input: child.stdout! }).on('line', (text) => {
        const line = parseEventLine(text);
        if (line.kind === 'ready' && !ready) {
          ready = true;
          clearTimeout(timer);
          resolve();
        } else if (line.kind === 'event' && ready && line.control.numid === this.control?.numid) {
          if (line.action === 'remove') fail(`reports the switch ${describeControl(line.control)} removed (card unplugged?)`);
          // refresh() reports its own failure as an error event (emitError).
          else void this.refresh();
        }
      });
    });
  }

  /** Reads the switch; changes that arrive during a read cause one more read. */
  private async refresh(): Promise<void> {
    if (this.reading) {
      this.stale = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.stale = false;
        const values = parseCgetValues(await this.run(['cget', `numid=${this.control!.numid}`]));
        if (!values) throw new AppError('MIC_SWITCH_UNAVAILABLE', `amixer cget ${describeControl(this.control!)} printed no values`);
        if (!this.closed) this.apply(switchIsOn(values));
      } while (this.stale && !this.closed);
    } catch (error) {
      this.emitError(error instanceof AppError ? error : new AppError('MIC_SWITCH_UNAVAILABLE', String(error)), true);
    } finally {
      this.reading = false;
    }
  }

  private apply(on: boolean): void {
    if (on === this.state) return;
    // From unknown to off is not an event: nothing was recording.
    const wasOn = this.state === true;
    this.state = on;
    if (on) this.bus.emit({ type: 'start', atMs: this.now() });
    else if (wasOn) this.bus.emit({ type: 'stop', atMs: this.now() });
  }

  /** The card went away: stop a recording, say so once, and look for the switch again. */
  private lost(error: AppError): void {
    if (this.closed) return;
    const child = this.child;
    this.child = undefined;
    // stopGroup never rejects; the loss is reported below.
    void stopChild(child);
    if (this.state === true) this.bus.emit({ type: 'stop', atMs: this.now() });
    this.state = undefined;
    this.emitError(error, true);
    this.retry();
  }

  private retry(): void {
    this.retryTimer = setTimeout(() => {
      this.start().catch(() => {
        if (!this.closed) this.retry();
      });
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private emitError(error: AppError, recoverable: boolean): void {
    this.bus.emit({ type: 'error', atMs: this.now(), code: error.code, message: error.message, recoverable });
  }

  /** An amixer command's stdout; failures become MIC_SWITCH_UNAVAILABLE with amixer's own words. */
  private async run(args: string[]): Promise<string> {
    const outcome = await runCommand([this.amixer, ...this.target, ...args], { env: this.env, timeoutMs: this.commandTimeoutMs, stderrTailBytes: 500 });
    const command = `amixer ${[...this.target, ...args].join(' ')}`;
    if (outcome.kind === 'exited' && outcome.exitCode === 0) return outcome.stdout;
    const why =
      outcome.kind === 'exited'
        ? `failed (exit ${outcome.exitCode ?? outcome.signal}): ${outcome.stderrTail.trim() || 'no message'}`
        : outcome.kind === 'spawn-error'
          ? `cannot run (${outcome.reason}; amixer is in alsa-utils)`
          : outcome.kind === 'timeout'
            ? `gave no answer within ${this.commandTimeoutMs} ms`
            : 'was cancelled';
    throw new AppError('MIC_SWITCH_UNAVAILABLE', `${command} ${why}`, { retryable: true });
  }
}

/** The process module's stop: stdin closed, then SIGTERM, then SIGKILL, to amixer's whole group. */
async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child) await stopGroup(child, EVENTS_STOP);
}

/** The full-duplex state machine's thresholds and timeouts: from the config, and checked when given in code. */
import { defaultConfig, validateConfig, type Config } from '../../config/index.js';
import { AppError } from '../../errors/index.js';
import type { BackchannelLists } from './backchannel.js';

export interface DuplexConfig {
  /** VAD confidence (0..1) at which speech counts while the assistant is silent. */
  speechThreshold: number;
  /** The stricter confidence speech needs while the assistant plays audio: residual echo after AEC must stay below it. */
  bargeInThreshold: number;
  /** During playback, the cleaned path's run that confirms a barge-in: shorter speech is a cough, not a barge-in. */
  minBargeInSpeechMs: number;
  /**
   * With a double-talk path (a second, less suppressed APM and VAD): the VAD confidence there
   * that starts and carries a run, once the mic stands `echoExcessDb` above the predicted echo.
   */
  doubleTalkThreshold: number;
  /** How far (dB) the mic must rise above the echo predicted from the speaker audio to start a double-talk run. */
  echoExcessDb: number;
  /** Run length at doubleTalkThreshold that confirms a double-talk barge-in. */
  doubleTalkMinSpeechMs: number;
  /** Windows of that run in which the mic stands `echoExcessDb` above the echo (one lone loud window is often echo). */
  doubleTalkExcessWindows: number;
  /** Playback that starts after this long without any is a new reply, whose echo path may have changed (volume, position). */
  replyPauseMs: number;
  /** The first moments of such a reply do not interrupt: the echo cancellers and the double-talk meter are learning its echo. */
  replyStartGuardMs: number;
  /** How long an interruption may go without words before the reply resumes; 0 makes every barge-in final at once. */
  falseInterruptionTimeoutMs: number;
  /** Watchdog: `recovering` ends after this even if cleanup never reports done. */
  recoveryTimeoutMs: number;
  /** Turn ids are this prefix and a counter, so a replay gives the same ids. */
  turnIdPrefix: string;
  /** Words that, alone, let an interrupted reply go on where it stopped (`[duplex] backchannels`). */
  backchannels: BackchannelLists;
}

/**
 * Not settings: the double-talk rule's constants. On synthetic echo
 * (bench/echo.ts) echo-only frames stayed under 4 dB above the whole-band
 * prediction, and 6 dB with a VAD score of 0.5 over two Silero windows gave
 * no false interruption (BENCHMARKS.md, ## echo). In the reverberant echo
 * rooms, replayed (bench/barge-in-replay.ts, 200 replies in five recorded
 * runs), the band meter's third-loudest band at 12 dB, one window, with the
 * reply-start guard, gave no false onset and the lowest p50 of the arms
 * that gave none (## barge-in in rooms). A run of one Silero window (32 ms)
 * instead of two, replayed over the three rooms' 50 + 50 trial runs, gave
 * the same false onsets and detections and every onset 32 ms sooner; but
 * one 32 ms score is what a cough or a click can give, and the rooms have
 * none, so two windows stay. The run is also the hold: a double-talk onset
 * stops the reply at once, as every onset the rule confirms does.
 */
const DOUBLE_TALK = { threshold: 0.5, echoExcessDb: 12, minSpeechMs: 64, excessWindows: 1 } as const;

/**
 * Not settings: a new reply, measured in the echo rooms (BENCHMARKS.md, ##
 * barge-in in rooms). The rooms' echo gain changes between replies, as a
 * turned volume knob would; every false onset left after the band meter
 * came in the first 100-200 ms of a reply that followed 0.8-1.3 s of
 * silence, through the strongly suppressed path, while the cancellers
 * re-learnt the louder echo; a 500 ms guard after 500 ms of silence left
 * none in the replayed runs.
 */
export const REPLY_PAUSE_MS = 500;
const REPLY_START_GUARD_MS = 500;

/** The state machine's settings from the config (`[duplex]`, and `[vad] threshold` for speech while silent): the schema holds every default. */
export function duplexConfigFrom(config: Config): DuplexConfig {
  const duplex = config.duplex;
  return {
    speechThreshold: config.vad.threshold,
    bargeInThreshold: duplex.barge_in_threshold,
    minBargeInSpeechMs: duplex.min_barge_in_speech_ms,
    doubleTalkThreshold: DOUBLE_TALK.threshold,
    echoExcessDb: DOUBLE_TALK.echoExcessDb,
    doubleTalkMinSpeechMs: DOUBLE_TALK.minSpeechMs,
    doubleTalkExcessWindows: DOUBLE_TALK.excessWindows,
    replyPauseMs: REPLY_PAUSE_MS,
    replyStartGuardMs: REPLY_START_GUARD_MS,
    falseInterruptionTimeoutMs: duplex.false_interruption_timeout_ms,
    recoveryTimeoutMs: duplex.recovery_timeout_ms,
    turnIdPrefix: 'duplex-',
    backchannels: duplex.backchannels,
  };
}

/** What an empty config.toml gives. */
export const DUPLEX_DEFAULTS: DuplexConfig = duplexConfigFrom(defaultConfig());

function invalid(key: string, what: string): AppError {
  return new AppError('DUPLEX_CONFIG_INVALID', `duplex ${key}: ${what}`);
}

/**
 * Fills in the defaults (tests and benches give a few values) and rejects values the state
 * machine cannot work with. The settings that come from the config are checked by the config
 * schema itself (one set of bounds: `[vad] threshold`, `[duplex] barge_in_threshold`, ...);
 * only the rule's own constants, which no config sets, are checked here.
 */
export function resolveDuplexConfig(partial: Partial<DuplexConfig> = {}): DuplexConfig {
  const config: DuplexConfig = { ...DUPLEX_DEFAULTS, ...dropUndefined(partial) };
  const asConfig = validateConfig({
    vad: { threshold: config.speechThreshold },
    duplex: {
      barge_in_threshold: config.bargeInThreshold,
      min_barge_in_speech_ms: config.minBargeInSpeechMs,
      false_interruption_timeout_ms: config.falseInterruptionTimeoutMs,
      recovery_timeout_ms: config.recoveryTimeoutMs,
    },
  });
  if (!asConfig.ok) throw new AppError('DUPLEX_CONFIG_INVALID', `duplex settings: ${asConfig.errors.map(namedInCode).join('; ')}`);
  if (!(config.doubleTalkThreshold > 0 && config.doubleTalkThreshold <= 1)) throw invalid('doubleTalkThreshold', `must be in (0, 1], got ${config.doubleTalkThreshold}`);
  for (const key of ['doubleTalkMinSpeechMs', 'replyPauseMs', 'replyStartGuardMs'] as const) {
    if (!(Number.isFinite(config[key]) && config[key] >= 0)) throw invalid(key, `must be a number of ms >= 0, got ${config[key]}`);
  }
  if (!(Number.isFinite(config.echoExcessDb) && config.echoExcessDb >= 0)) throw invalid('echoExcessDb', `must be a number of dB >= 0, got ${config.echoExcessDb}`);
  if (!(Number.isInteger(config.doubleTalkExcessWindows) && config.doubleTalkExcessWindows >= 1)) {
    throw invalid('doubleTalkExcessWindows', `must be a whole number >= 1, got ${config.doubleTalkExcessWindows}`);
  }
  return config;
}

/** The config keys the settings come from, and their names in code. */
const CODE_NAMES: Record<string, keyof DuplexConfig> = {
  'vad.threshold': 'speechThreshold',
  'duplex.barge_in_threshold': 'bargeInThreshold',
  'duplex.min_barge_in_speech_ms': 'minBargeInSpeechMs',
  'duplex.false_interruption_timeout_ms': 'falseInterruptionTimeoutMs',
  'duplex.recovery_timeout_ms': 'recoveryTimeoutMs',
};

/** `config: duplex.recovery_timeout_ms must be >= 100` -> `recoveryTimeoutMs (duplex.recovery_timeout_ms must be >= 100)`. */
function namedInCode(error: string): string {
  const text = error.replace(/^config: /, '');
  const key = Object.keys(CODE_NAMES).find((path) => text.startsWith(path));
  return key ? `${CODE_NAMES[key]} (${text})` : text;
}

function dropUndefined<T extends object>(partial: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<T>;
}

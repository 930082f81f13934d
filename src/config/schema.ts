import { z } from 'zod';
import { Duration, seconds } from './duration.js';

const SERVER_TIMEOUT_SECONDS = 60;
/** `[mcp.<name>] timeout` when a server has no table of its own. */
export const DEFAULT_SERVER_TIMEOUT = new Duration(SERVER_TIMEOUT_SECONDS);

/**
 * The one source of truth for config.toml: every key, its type and its
 * default. Objects are strict, so a typo is an error that names the key
 * instead of a silent fall-back to the default. Free-form tables (`env`,
 * `blend`) are records: a value in the file replaces the default whole.
 */

const voiceSchema = z.strictObject({
  lang: z.string().min(1),
  blend: z.record(z.string(), z.number().nonnegative()),
});

const DEFAULT_VOICES = {
  it: { lang: 'it', blend: { if_sara: 0.8, af_bella: 0.2 } },
  en: { lang: 'en-us', blend: { af_heart: 1.0 } },
};

/**
 * `voice.<lang>` tables are merged key by key over the built-in languages,
 * and a new language may be added with both of its keys.
 */
function mergeDefaultVoices(value: unknown): unknown {
  if (value === undefined) return { ...DEFAULT_VOICES };
  if (!isPlainTable(value)) return value;
  const merged: Record<string, unknown> = { ...DEFAULT_VOICES };
  for (const [lang, entry] of Object.entries(value)) {
    const base = DEFAULT_VOICES[lang as keyof typeof DEFAULT_VOICES];
    merged[lang] = base && isPlainTable(entry) ? { ...base, ...entry } : entry;
  }
  return merged;
}

export function isPlainTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

const DEFAULT_SYSTEM_PROMPT =
  'You are a voice assistant on the user\'s desktop. Your replies are read aloud, so answer ' +
  'in short plain sentences: no markdown, no lists, no emoji. Answer in the language the ' +
  'user speaks. Use a tool whenever it can give you a fact you would otherwise guess.';

const RISKS = ['read', 'write', 'high'] as const;
/** Names of the project's own servers, which `[mcp.<name>]` cannot take. */
export const BUILTIN_SERVER_NAMES: readonly string[] = ['tools', 'memory', 'shell-readonly', 'open-interpreter', 'browser'];
const DECISIONS = ['allow', 'confirm', 'deny'] as const;

/** An environment value: the system cannot pass one with a NUL byte to a program. */
const envValue = z.string().refine((value) => !value.includes('\0'), 'must not contain a NUL byte');

/** A third-party stdio MCP server: `[mcp.<name>]`. */
const mcpServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), envValue).default({}),
  cwd: z.string().optional(),
  enabled: z.boolean().default(true),
  /** Only a trusted server's annotations may lower a tool's risk. */
  trusted: z.boolean().default(false),
  /** Per-tool risk set by the user, by the tool's name on that server: a trusted source. */
  risk: z.record(z.string(), z.enum(RISKS)).default({}),
  /** Seconds a call may take. */
  timeout: seconds(z.number().positive().max(3600), SERVER_TIMEOUT_SECONDS),
});

/** `[adapters.<name>]`: the project's own tool servers beyond the tool files. */
const adaptersSchema = z.strictObject({
  shell_readonly: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Working directories and path arguments must resolve (after symlinks) inside these. */
      allowed_dirs: z.array(z.string().min(1)).default(['~']),
      /** Seconds a command may run. */
      timeout: seconds(z.number().positive().max(600), 10),
      max_output_chars: z.int().min(100).default(20000),
    })
    .prefault({}),
  openinterpreter: z
    .strictObject({
      /** Off unless turned on here or with OWNER_OPENINTERPRETER_ENABLED=1. */
      enabled: z.boolean().default(false),
      /** The Open Interpreter CLI: not installed by this project. */
      command: z.string().min(1).default('interpreter'),
      /** Its arguments; `{task}` is replaced by the task, else the task goes last. */
      args: z.array(z.string()).default(['--auto_run', '{task}']),
      /** Where tasks run unless the call names a folder inside it. */
      cwd: z.string().default('~'),
      timeout: seconds(z.number().positive().max(3600), 300),
      max_output_chars: z.int().min(100).default(20000),
    })
    .prefault({}),
  browser: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Debian's Chromium, driven by playwright-core. */
      chromium: z.string().min(1).default('/usr/bin/chromium'),
      /** Seconds per tool call, navigation included. */
      timeout: seconds(z.number().positive().max(300), 20),
      /** Navigations (redirects included) per call. */
      max_navigations: z.int().min(1).max(50).default(5),
      max_output_chars: z.int().min(100).default(20000),
    })
    .prefault({}),
});

/** `[memory]`: long-term memory (SQLite + FAISS) as a built-in MCP server. */
const memorySchema = z.strictObject({
  /** Off: no memory server, no retrieval, no memory file opened (OWNER_MEMORY_ENABLED=0 too). */
  enabled: z.boolean().default(true),
  /** Memories given to the model with each question; 0 = none. */
  top_k: z.int().min(0).max(20).default(3),
  /** Below this similarity (cosine, -1..1) a memory is not given to the model. */
  min_score: z.number().min(-1).max(1).default(0.3),
  /** Changes between two snapshots of the FAISS index on disk (the database has every save either way). */
  snapshot_every: z.int().min(1).default(1000),
  /** Memories up to which search is exact; past it, a graph index (HNSW) keeps searches fast. */
  exact_search_max: z.int().min(1).default(20000),
  /** An OpenAI-compatible /v1/embeddings endpoint; an empty url = the built-in offline embedder. */
  embeddings: z
    .strictObject({
      url: z.union([z.literal(''), z.string().url()]).default(''),
      model: z.string().default(''),
      /** Seconds per request. */
      timeout: seconds(z.number().positive().max(600), 30),
    })
    .prefault({}),
});

const routerSchema = z.strictObject({
  /** Off: no tool is offered or run (OWNER_TOOL_ROUTER_ENABLED=0 too). */
  enabled: z.boolean().default(true),
  read: z.enum(DECISIONS).default('allow'),
  write: z.enum(DECISIONS).default('confirm'),
  high: z.enum(DECISIONS).default('deny'),
  /** Per tool (by its exposed name): allow, confirm or deny, over the risk level's policy. */
  tools: z.record(z.string(), z.enum(DECISIONS)).default({}),
  /** Seconds to wait for a confirmation; no answer = denied. */
  confirm_timeout: seconds(z.number().positive().max(3600), 30),
  /** Per-turn budgets. */
  max_calls: z.int().min(0).default(8),
  max_tool_seconds: seconds(z.number().positive(), 120),
  max_output_chars: z.int().min(100).default(4000),
  max_turn_output_chars: z.int().min(100).default(16000),
});

/** Words said over a reply that do not take the floor (`[duplex] backchannels.<language>`). */
const backchannelList = z.array(z.string().trim().min(1).max(40)).max(100);

/** The full-duplex voice (`mode = "full_duplex_agent"`): barge-in, echo cancellation, streaming recognition. */
const duplexSchema = z.strictObject({
  /**
   * Speech probability (0..1) user speech needs while the assistant is talking: residual echo must
   * stay under it (at least `[vad] threshold`). No figure was given; high enough that a Silero
   * score on echo-canceller residue does not reach it.
   */
  barge_in_threshold: z.number().gt(0).max(1).default(0.8),
  /**
   * Speech during a reply shorter than this is a cough or a backchannel, not an interruption.
   * Playback is to stop within 200 ms (p95) of speech start: 100 ms of confirmation leaves room
   * for the VAD's onset latency and the next chunk boundary.
   */
  min_barge_in_speech_ms: z.int().min(0).max(2000).default(100),
  /** An interruption with no words by then is false: the reply resumes from the cut sentence; 0 = never resume (2 s, as agents-js). */
  false_interruption_timeout_ms: z.int().min(0).max(30_000).default(2000),
  /** Longest wait for cleanup after an error before listening again. */
  recovery_timeout_ms: z.int().min(100).max(60_000).default(3000),
  /** Measure the room at start-up (a one-second chirp): the echo's delay and level and the noise, as a voice.room event and in /state. */
  calibrate: z.boolean().default(true),
  /**
   * Which echo canceller runs: "legacy" (Debian's webrtc-audio-processing 0.3, the 2016 AEC) or
   * "aec3" (WebRTC's current AEC3, from the npm package @livekit/rtc-ffi-bindings). Legacy stays the
   * default until both are measured in the rooms.
   */
  canceller: z.enum(['aec3', 'legacy']).default('legacy'),
  /** A second, less suppressed echo canceller that catches speech over loud echo sooner (see BENCHMARKS.md, echo). */
  double_talk: z.boolean().default(true),
  /** WebRTC echo suppression: "high" keeps the assistant's voice from sounding like the user's. */
  echo_suppression: z.enum(['low', 'moderate', 'high']).default('high'),
  noise_suppression: z.enum(['off', 'low', 'moderate', 'high', 'very_high']).default('moderate'),
  /** WebRTC's automatic gain control on the microphone. */
  gain_control: z.boolean().default(false),
  /** Speaker audio kept as the echo canceller's reference; beyond it the oldest is dropped. */
  render_buffer_ms: z.int().min(100).max(10_000).default(2000),
  /** Microphone audio held while processing falls behind; beyond it the oldest is dropped (audio.buffer_overrun). */
  capture_buffer_ms: z.int().min(100).max(10_000).default(2000),
  /** Capture/playback clock drift beyond this (parts per million) makes barge-in stricter until realigned; measured from device hand-offs, which wander by about 1000 ppm. */
  drift_tolerance_ppm: z.int().min(10).max(100_000).default(3000),
  /**
   * Backchannels per language: an interruption whose words are only one or two of these ("yeah
   * okay") and then silence lets the reply go on from where it stopped, with no new turn. Compared
   * without case, accents, punctuation or hyphens ("Mm-hm." = "mmhm" = "mm hm"). A language's list
   * replaces its default; an empty list turns them off for it; other languages may be added.
   */
  backchannels: z
    .strictObject({
      en: backchannelList.default(['mm-hm', 'uh-huh', 'hmm', 'yeah', 'yep', 'okay', 'ok', 'right', 'i see', 'go on']),
      it: backchannelList.default(['sì', 'certo', 'ok', 'okay', 'va bene', 'giusto', 'esatto', 'già']),
    })
    .catchall(backchannelList)
    .prefault({}),
});

const configTables = z.strictObject({
  /** "turn_based" (a trigger starts each recording) or "full_duplex_agent" (always listening, barge-in); OWNER_ASSISTANT_MODE too. */
  mode: z.enum(['turn_based', 'full_duplex_agent']).default('turn_based'),
  /** ALSA card id of the microphone whose mute switch starts and stops a recording. */
  card: z.string().default('Microphone'),
  /** Base URL of the OpenAI-compatible LLM server (llama-server by default). */
  llm: z.string().url().default('http://localhost:8181/v1'),
  /** The model to ask for; empty = the first one the server lists. */
  model: z.string().default(''),
  system: z.string().default(DEFAULT_SYSTEM_PROMPT),
  /** Tool round trips per question; the round after the last offers no tools. */
  tool_rounds: z.int().min(0).max(20).default(3),
  /** The most tokens one reply of the model may have (sent as max_tokens); a reply cut there ends the turn with what came. */
  max_reply_tokens: z.int().min(1).max(1_000_000).default(1024),
  /** The longest one reply may stream, seconds; past it the turn ends with what came and says so. */
  max_reply_seconds: seconds(z.number().positive().max(3600), 120),
  whisper: z
    .strictObject({
      model: z.string().default('~/.local/share/desktop-assistant/models/whisper/ggml-large-v3-turbo-q5_0.bin'),
      device: z.int().min(0).default(0),
      port: z.int().min(1).max(65535).default(8182),
      /** whisper.cpp's server program, started with model, device and port; found on PATH unless a path. */
      binary: z.string().min(1).default('whisper-server'),
      /** An already running whisper-server (e.g. http://127.0.0.1:8182); empty = start `binary`. */
      url: z.union([z.literal(''), z.string().url()]).default(''),
    })
    .prefault({}),
  /**
   * Speech to text: pocketsphinx is a resident decoder fed as you speak (Debian's model, offline);
   * pocketsphinx_continuous spawns the program per utterance; whisper needs a whisper.cpp model.
   */
  stt: z
    .strictObject({
      engine: z.enum(['pocketsphinx', 'pocketsphinx_continuous', 'whisper']).default('pocketsphinx'),
      /**
       * A partial transcript every this many ms of speech; 0 = none. Unset: 100 for the resident
       * decoder (a hypothesis costs almost nothing); for the others (each re-decodes the utterance)
       * 1000 in full duplex and none turn-based.
       */
      partial_interval_ms: z.int().min(0).max(10_000).optional(),
      /** A JSGF grammar for pocketsphinx (only these phrases are heard); empty = free speech. */
      grammar: z.string().default(''),
      /** Transcripts the engine is less sure of than this (0..1) are dropped without asking the LLM. */
      min_confidence: z.number().min(0).max(1).default(0),
    })
    .prefault({}),
  /** Text to speech: espeak-ng works everywhere; kokoro needs the model files of `[kokoro]`. */
  tts: z
    .strictObject({
      engine: z.enum(['espeak', 'kokoro']).default('espeak'),
    })
    .prefault({}),
  /** Audio devices (PortAudio), by name or part of it; "default" = the system's. */
  audio: z
    .strictObject({
      input: z.string().min(1).default('default'),
      output: z.string().min(1).default('default'),
      /**
       * Audio queued ahead of the speaker, ms (10 ms chunks): less is a sooner first sound, too
       * little clicks when the process is busy. Unset: 20 turn-based, 40 in full duplex (what the
       * echo canceller was measured with).
       */
      output_buffer_ms: z.int().min(10).max(500).optional(),
    })
    .prefault({}),
  /** Voice activity detection (Silero): when an utterance starts and ends. */
  vad: z
    .strictObject({
      /** Speech probability (0..1) above which a frame is speech. */
      threshold: z.number().gt(0).lt(1).default(0.5),
      min_speech_ms: z.int().min(0).max(5000).default(250),
      /** Silence that ends an utterance. */
      silence_ms: z.int().min(100).max(10_000).default(500),
      /**
       * A shorter silence that ends an utterance when the resident recognizer hears a finished
       * sentence (its words unchanged that long, where the language model expects an end, or a
       * complete grammar sentence); 0 = off. Must be below silence_ms.
       */
      sentence_end_silence_ms: z.int().min(0).max(10_000).default(160),
      /**
       * A longer silence that ends an utterance when the resident recognizer hears words that are
       * not a finished sentence ("what's the weather in"): a thinking pause is not the end; 0 = off.
       * Above silence_ms.
       */
      unfinished_silence_ms: z.int().min(0).max(10_000).default(1000),
      /** Audio kept from before speech started, so no first word is clipped. */
      prefix_ms: z.int().min(0).max(2000).default(300),
    })
    .refine((vad) => vad.sentence_end_silence_ms < vad.silence_ms, {
      path: ['sentence_end_silence_ms'],
      message: 'must be below vad.silence_ms (0 = off)',
    })
    .refine((vad) => vad.unfinished_silence_ms === 0 || vad.unfinished_silence_ms > vad.silence_ms, {
      path: ['unfinished_silence_ms'],
      message: 'must be above vad.silence_ms (0 = off)',
    })
    .prefault({}),
  /** How a spoken turn ends and how soon its answer starts. */
  turn: z
    .strictObject({
      /**
       * Preemptive generation: while the user pauses, words that look like a finished question
       * are sent to the LLM at once and the reply's first segment is synthesized, unheard; it is
       * played if the final transcript is the same question, else cancelled. Costs LLM requests
       * that are thrown away: off for a paid API.
       */
      preemptive: z.boolean().default(true),
      /** The pause (ms of silence after the last voiced audio) after which such a request is sent. */
      preemptive_pause_ms: z.int().min(0).max(5000).default(32),
    })
    .prefault({}),
  duplex: duplexSchema.prefault({}),
  kokoro: z
    .strictObject({
      /** The onnx-community/Kokoro-82M-v1.0-ONNX folder (config.json, tokenizer files, onnx/model*.onnx), or one onnx/model*.onnx in it. */
      model: z.string().default('~/.local/share/desktop-assistant/models/kokoro/Kokoro-82M-v1.0-ONNX'),
      /** A folder of <name>.bin voice files (the model repository's voices/). */
      voices: z.string().default('~/.local/share/desktop-assistant/models/kokoro/Kokoro-82M-v1.0-ONNX/voices'),
    })
    .prefault({}),
  /**
   * `[voice] enabled`, and one `[voice.<lang>]` table per spoken language.
   * "auto": the voice starts when it can (a microphone and a speaker are
   * there), else the daemon runs for text and the page and says why; true:
   * a voice that cannot start stops the daemon; false: no audio device is touched.
   */
  voice: z.preprocess(mergeDefaultVoices, z.object({ enabled: z.union([z.boolean(), z.literal('auto')]).default('auto') }).catchall(voiceSchema)),
  /** Added to every tool's environment: personal values live here, not in tool files. */
  env: z.record(z.string(), z.union([envValue, z.number(), z.boolean()])).default({}),
  mcp: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,32}$/, 'a server name is letters, digits, _ or -')
        .refine((name) => !BUILTIN_SERVER_NAMES.includes(name), 'this name belongs to a built-in server'),
      mcpServerSchema,
    )
    .default({}),
  router: routerSchema.prefault({}),
  memory: memorySchema.prefault({}),
  adapters: adaptersSchema.prefault({}),
  /** The HTTP API and web page: loopback only. */
  http: z
    .strictObject({
      host: z.enum(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1'),
      port: z.int().min(0).max(65535).default(8765),
    })
    .prefault({}),
});

export type VoiceConfig = { lang: string; blend: Record<string, number> };

/** The spoken languages of `[voice.<lang>]`, without the `enabled` switch. */
export function voiceLanguages(config: Config): Record<string, VoiceConfig> {
  const { enabled: _enabled, ...languages } = config.voice;
  return languages as Record<string, VoiceConfig>;
}

/** Rules across tables, checked with the rest when the file is loaded. */
function crossChecks(config: z.infer<typeof configTables>, context: z.RefinementCtx): void {
  if (config.duplex.barge_in_threshold < config.vad.threshold) {
    context.addIssue({ code: 'custom', path: ['duplex', 'barge_in_threshold'], message: `must be at least vad.threshold (${config.vad.threshold}): speech over a reply cannot need less than speech in silence` });
  }
}

export const configSchema = configTables.superRefine(crossChecks);

export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type RouterConfig = z.infer<typeof routerSchema>;
export type MemoryConfig = z.infer<typeof memorySchema>;
export type AdaptersConfig = z.infer<typeof adaptersSchema>;
export type DuplexSettings = z.infer<typeof duplexSchema>;

export type Config = z.infer<typeof configSchema>;

/** The built-in defaults: what an empty or missing config.toml gives. */
export function defaultConfig(): Config {
  return configSchema.parse({});
}

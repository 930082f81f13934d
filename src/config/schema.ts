import { z } from 'zod';

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
  if (value === undefined) return DEFAULT_VOICES;
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

export const configSchema = z.strictObject({
  /** ALSA card id of the microphone whose mute switch starts and stops a recording. */
  card: z.string().default('Microphone'),
  /** Base URL of the OpenAI-compatible LLM server (llama-server by default). */
  llm: z.string().url().default('http://localhost:8181/v1'),
  system: z.string().default(DEFAULT_SYSTEM_PROMPT),
  /** Tool round trips per question; the round after the last offers no tools. */
  tool_rounds: z.int().min(0).max(20).default(3),
  whisper: z
    .strictObject({
      model: z.string().default('~/.local/share/desktop-assistant/models/whisper/ggml-large-v3-turbo-q5_0.bin'),
      device: z.int().min(0).default(0),
      port: z.int().min(1).max(65535).default(8182),
    })
    .prefault({}),
  kokoro: z
    .strictObject({
      model: z.string().default('~/.local/share/desktop-assistant/models/kokoro/kokoro-v1.0.onnx'),
      voices: z.string().default('~/.local/share/desktop-assistant/models/kokoro/voices-v1.0.bin'),
    })
    .prefault({}),
  voice: z.preprocess(mergeDefaultVoices, z.record(z.string(), voiceSchema)),
  /** Added to every tool's environment: personal values live here, not in tool files. */
  env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});

export type Config = z.infer<typeof configSchema>;

/** The built-in defaults: what an empty or missing config.toml gives. */
export function defaultConfig(): Config {
  return configSchema.parse({});
}

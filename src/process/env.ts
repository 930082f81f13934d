/**
 * The one environment allow-list for children that must not inherit ours
 * (third-party MCP servers, whisper-server, espeak-ng, amixer,
 * pocketsphinx_continuous): enough to run, find their data, the sound
 * server and the GPU; nothing secret (no API keys, tokens, credentials).
 * The project's own servers and tool files get the whole environment, and
 * Open Interpreter its own list, which adds LLM provider keys on purpose.
 */
const NAMES = new Set([
  // A login session.
  'HOME', 'LOGNAME', 'USER', 'PATH', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR',
  // Node-based servers installed outside a project.
  'NODE_PATH',
  // whisper.cpp's CUDA and ROCm builds find their libraries through it.
  'LD_LIBRARY_PATH',
  // amixer through PulseAudio's ALSA plugin, and ALSA's own configuration.
  'PULSE_SERVER', 'PULSE_COOKIE', 'ALSA_CONFIG_PATH',
  // espeak-ng's voices, where they are not installed in the default place.
  'ESPEAK_DATA_PATH',
]);
const PREFIXES = [
  'LC_', 'XDG_',
  // GPU runtimes and whisper.cpp's own settings (device choice, threads).
  'CUDA_', 'GGML_', 'HIP_', 'ROCR_', 'HSA_', 'VK_', 'OMP_', 'WHISPER_',
];

/** The allow-listed part of `env` (this process's by default). */
export function allowListedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix))) out[name] = value;
  }
  return out;
}

/**
 * The environment Open Interpreter runs with: an allow-list, not the
 * server's whole environment. Everything in it is within reach of code an
 * LLM writes and runs with --auto_run, so only what Open Interpreter needs
 * passes:
 *
 * - the basics of a login session (home, user, locale, PATH, temp folder);
 * - Python environment pointers, so a venv or conda install still imports;
 * - proxy and CA settings, so it can reach its LLM from behind a proxy;
 * - LLM provider settings (keys and base URLs) that LiteLLM, Open
 *   Interpreter's LLM client, reads: OPENAI_*, ANTHROPIC_*, AZURE_API_*, ...
 *   These are secrets, but they are the ones it cannot work without.
 *
 * Left out: other credentials (cloud, git forge, SSH agent, password
 * stores), this project's own variables (DESKTOP_ASSISTANT_*, OWNER_*), and
 * the display (DISPLAY, WAYLAND_DISPLAY, D-Bus): GUI control is refused in
 * this project, and without a display a task cannot drive the desktop.
 * `[env]` of config.toml is added last: the owner's explicit choice.
 */
const NAMES = new Set([
  'HOME', 'USER', 'LOGNAME', 'PATH', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR',
  'VIRTUAL_ENV', 'CONDA_PREFIX', 'CONDA_DEFAULT_ENV', 'PYENV_ROOT', 'PYENV_VERSION',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE',
]);

const PREFIXES = [
  'LC_', 'XDG_',
  'OPENAI_', 'ANTHROPIC_', 'AZURE_API_', 'GEMINI_', 'GROQ_', 'MISTRAL_', 'OLLAMA_',
  'OPENROUTER_', 'DEEPSEEK_', 'TOGETHERAI_', 'COHERE_', 'LITELLM_',
];

// The child's output is read by a program, not a terminal: no colours or
// cursor tricks, and no "was this helpful? (y/n)" prompt at exit, which
// Open Interpreter skips when telemetry is off and which would otherwise
// read an empty stdin.
const FIXED: Readonly<Record<string, string>> = { TERM: 'dumb', NO_COLOR: '1', DISABLE_TELEMETRY: 'true', PYTHONUNBUFFERED: '1' };

export function interpreterEnv(serverEnv: NodeJS.ProcessEnv, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(serverEnv)) {
    if (value === undefined) continue;
    if (NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return { ...env, ...FIXED, ...extra };
}

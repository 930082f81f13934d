/** What a third-party server inherits: enough to run, nothing secret. */
const ALLOWED = new Set(['HOME', 'LOGNAME', 'USER', 'PATH', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'NODE_PATH']);
const ALLOWED_PREFIXES = ['LC_', 'XDG_'];

export function allowListedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (ALLOWED.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p))) out[name] = value;
  }
  return out;
}

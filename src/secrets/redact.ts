import { isCredentialHeader, isSecretKey } from './secret-key.js';

export const REDACTED = '[redacted]';

/**
 * Replaces secrets in free text (tool output, arguments, error details) by
 * `[redacted]`: private key blocks, Authorization and Cookie values, passwords
 * in URLs, values of secret-looking keys (JSON, query strings, env and YAML
 * style, `--password x` flags), provider keys with a recognisable shape
 * (OpenAI/Anthropic, GitHub, AWS, Slack, Google, Stripe, GitLab, npm,
 * Hugging Face), JWTs and bare bearer tokens. Anything without such a shape
 * or key is left alone: high-entropy strings as such (hashes, ids, UUIDs) are
 * not secrets. Idempotent: redacting redacted text changes nothing.
 */
export function redactSecrets(text: string): string {
  if (text.length === 0) return text;
  let out = text.replace(PRIVATE_KEY_BLOCK, REDACTED);
  out = out.replace(CREDENTIAL_HEADER, redactHeader);
  out = out.replace(URL_PASSWORD, (match, prefix: string, password: string) =>
    password === REDACTED ? match : `${prefix}${REDACTED}@`,
  );
  out = out.replace(KEY_VALUE, redactKeyValue);
  out = out.replace(SECRET_FLAG, redactFlag);
  for (const pattern of TOKEN_SHAPES) out = out.replace(pattern, REDACTED);
  out = out.replace(SLACK_WEBHOOK, `$1${REDACTED}`);
  out = out.replace(JWT, REDACTED);
  out = out.replace(BARE_BEARER, (match, scheme: string, token: string) =>
    (token.length >= 12 && /\d/.test(token)) || token.length >= 24 ? `${scheme} ${REDACTED}` : match,
  );
  return out;
}

/**
 * The JSON-aware variant, for argument summaries: a member whose key names a
 * secret (password, token, api_key, authorization, cookie, ...) has its value
 * replaced by "[redacted]" whatever its type (booleans and null stay, they
 * tell nothing); every string is passed through `redactSecrets`.
 */
export function redactSecretsInValue(value: unknown): unknown {
  return redactValue(value, new Set());
}

function redactValue(value: unknown, seen: Set<object>): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return redactValue(withJson.toJSON(), seen);
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const hidden = isSecretKey(key) && item !== null && item !== undefined && typeof item !== 'boolean' && item !== '';
      out[key] = hidden ? REDACTED : redactValue(item, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

// PEM and PGP private keys; a block cut off by truncation is redacted to the end of the text.
const PRIVATE_KEY_BLOCK =
  /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g;

// Key, optional quotes (also JSON-escaped ones: \"), separator, then a quoted value or an unquoted one.
const KEY_CHARS = 'A-Za-z0-9_.-';
// Inside the quotes a backslash escapes the next character (JSON, shell), so `\"` does not end the value;
// a value whose closing quote was cut off (output truncated before redaction) runs to the end of the text.
const QUOTED = String.raw`(\\?["'])((?:\\.|(?!\5)[^\r\n\\])*?)(\5|$)`;
const CREDENTIAL_HEADER = new RegExp(
  String.raw`(?<![${KEY_CHARS}])(\\?["']?)((?:proxy-)?authorization|(?:set-)?cookie)\1([ \t]*)([:=][ \t]*)(?:${QUOTED}|([^\r\n"'\\]+))`,
  'gi',
);

// Only keys that contain one of these are looked at; isSecretKey decides.
const KEY_VALUE = new RegExp(
  String.raw`(?<![${KEY_CHARS}])(\\?["']?)([${KEY_CHARS}]{0,40}?(?:pass|secret|token|key|auth|cookie|credential)[${KEY_CHARS}]{0,40})\1([ \t]*)([:=][ \t]*)(?![=:\s])(?:${QUOTED}|(?=(\$\{[A-Za-z_]\w*\}|[^\s"'&,;<>{}()\[\]\\|]+))\8(?![ \t]*=(?!=)|\())`,
  'gi',
);

const SECRET_FLAG = /(?<![\w-])(--[A-Za-z0-9][A-Za-z0-9_-]{0,60})([ \t]+)(?!-)(?:(["'])((?:(?!\3)[^\r\n])*)\3|([^\s"'\\]+))/g;

// `scheme://user:password@`; the password runs to the last @ before the path, as people do put a raw @ in it.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>[\]]*:)([^\s/?#"'<>]+)@/gi;

const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]{19,}/g, // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, // GitHub classic tokens
  /\bgithub_pat_[A-Za-z0-9_]{22,255}/g, // GitHub fine-grained tokens
  /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\bxox[abposre]-[A-Za-z0-9-]{10,}/g, // Slack bot, user and other tokens
  /\bxapp-\d-[A-Za-z0-9-]{10,}/g, // Slack app-level tokens
  /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, // Google API keys
  /\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}/g, // Stripe secret and restricted keys
  /\bglpat-[0-9A-Za-z_-]{20,}/g, // GitLab personal access tokens
  /\bnpm_[0-9A-Za-z]{36}\b/g, // npm tokens
  /\bhf_[A-Za-z]{34}\b/g, // Hugging Face tokens
];
const SLACK_WEBHOOK = /(https:\/\/hooks\.slack\.com\/services\/)[A-Za-z0-9/_-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;
const BARE_BEARER = /\b(Bearer)\s+([A-Za-z0-9._~+/-]+=*)/gi;

const AUTH_SCHEME = /^((?:Bearer|Basic|Token|Bot|Digest|Negotiate|NTLM|ApiKey|AWS4-HMAC-SHA256)[ \t]+)\S/i;

function redactHeader(...m: string[]): string {
  const [match = '', keyQuote = '', key = '', space = '', sep = '', valueQuote, quoted, closing = '', unquoted] = m;
  const head = `${keyQuote}${key}${keyQuote}${space}${sep}`;
  if (valueQuote !== undefined && quoted !== undefined) return `${head}${valueQuote}${hideCredential(quoted)}${closing}`;
  if (unquoted === undefined) return match;
  // `?cookie=a&b=1`: with `=` the value is one parameter; with `:` it is the rest of the header line.
  if (sep.startsWith('=')) {
    const end = unquoted.search(/[\s&,;]/);
    const value = end < 0 ? unquoted : unquoted.slice(0, end);
    return `${head}${hideCredential(value)}${unquoted.slice(value.length)}`;
  }
  const trailing = /\s*$/.exec(unquoted)?.[0] ?? '';
  return `${head}${hideCredential(unquoted.slice(0, unquoted.length - trailing.length))}${trailing}`;
}

function hideCredential(value: string): string {
  if (isPlaceholder(value)) return value;
  const scheme = AUTH_SCHEME.exec(value)?.[1];
  if (scheme === undefined) return REDACTED;
  return isPlaceholder(value.slice(scheme.length)) ? value : `${scheme}${REDACTED}`;
}

function redactKeyValue(...m: string[]): string {
  const [match = '', keyQuote = '', key = '', space = '', sep = '', valueQuote, quoted, closing = '', unquoted] = m;
  if (!isSecretKey(key) || isCredentialHeader(key)) return match;
  const value = quoted ?? unquoted ?? '';
  if (isPlaceholder(value) || (unquoted !== undefined && TYPE_NAMES.has(unquoted))) return match;
  const head = `${keyQuote}${key}${keyQuote}${space}${sep}`;
  return valueQuote !== undefined && quoted !== undefined ? `${head}${valueQuote}${REDACTED}${closing}` : `${head}${REDACTED}`;
}

function redactFlag(...m: string[]): string {
  const [match = '', flag = '', space = '', quote, quoted, unquoted] = m;
  const value = quoted ?? unquoted ?? '';
  if (!isSecretKey(flag) || isPlaceholder(value)) return match;
  return quote !== undefined && quoted !== undefined ? `${flag}${space}${quote}${REDACTED}${quote}` : `${flag}${space}${REDACTED}`;
}

/** `token: string;` in source code is a declaration, not a value. */
const TYPE_NAMES = new Set(['string', 'String', 'str', 'number', 'int', 'boolean', 'bool', 'bytes', 'any', 'unknown', 'object', 'Optional']);

/** Values that hold nothing secret: empty, booleans, null, already redacted, masked, `$VAR` references. */
function isPlaceholder(value: string): boolean {
  const v = value.trim();
  return (
    v === '' ||
    v.startsWith(REDACTED) ||
    /^(?:true|false|null|none|undefined)$/i.test(v) ||
    /^\*+$/.test(v) ||
    /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(v)
  );
}

/**
 * Whether a key name (JSON member, env variable, query parameter, CLI flag,
 * header) names a secret: `password`, `GITHUB_TOKEN`, `apiKey`, `x-api-key`,
 * `client_secret`, but not `max_tokens`, `token_type`, `nextPageToken`,
 * `password_policy` or `secret_name`, which name things about a secret (or
 * LLM usage counters) and whose values a model or a reader needs.
 */
export function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  if (words.length === 0 || words.some((word) => NOT_SECRET.has(word))) return false;
  const last = words[words.length - 1];
  // `token_id`, `AWS_ACCESS_KEY_ID` name a secret; `id_token` is one.
  if (last === 'id' || last === 'ids') return false;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (SECRET_WORDS.has(word)) return true;
    const next = words[i + 1];
    if (next !== undefined && SECRET_PAIRS.has(`${word} ${next}`)) return true;
  }
  // `pass` and `auth` alone say too little (`pass: 12` in a test report), with a prefix they are secrets: DB_PASS, basic_auth.
  return words.length > 1 && (last === 'pass' || last === 'auth');
}

/** Header names whose whole value is a credential; redaction keeps the auth scheme word. */
export function isCredentialHeader(key: string): boolean {
  const joined = keyWords(key).join('-');
  return joined === 'authorization' || joined === 'proxy-authorization' || joined === 'cookie' || joined === 'set-cookie';
}

/** `OPENAI_API_KEY` -> openai, api, key; `nextPageToken` -> next, page, token; `db_password2` -> db, password. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .map((word) => word.replace(/\d+$/, ''))
    .filter((word) => word.length > 0);
}

const SECRET_WORDS = new Set([
  'password', 'passwd', 'passphrase', 'passcode', 'secret', 'secrets', 'token', 'apikey', 'credential',
  'credentials', 'cookie', 'cookies', 'authorization', 'privatekey', 'secretkey', 'accesskey', 'sessiontoken',
]);

const SECRET_PAIRS = new Set([
  'api key', 'private key', 'access key', 'account key', 'signing key', 'encryption key', 'master key', 'app secret',
]);

/** Words that make a key about a secret rather than the secret itself. */
const NOT_SECRET = new Set([
  'type', 'types', 'count', 'counts', 'max', 'min', 'limit', 'limits', 'usage', 'page', 'next', 'prev', 'previous',
  'continuation', 'cursor', 'sync', 'url', 'uri', 'endpoint', 'file', 'path', 'dir', 'name', 'names', 'hint', 'policy',
  'prompt', 'completion', 'expires', 'expiry', 'expiration', 'ttl', 'lifetime', 'length', 'len', 'size',
  'stdin', 'required', 'reset', 'changed', 'updated', 'created', 'at', 'format', 'field', 'header', 'env', 'var',
  'ref', 'arn', 'version', 'provider', 'source', 'label', 'description', 'enabled', 'index', 'offset', 'budget',
  'rate', 'timeout', 'mode', 'strength', 'placeholder', 'location', 'cmd', 'command', 'helper', 'store', 'manager',
]);

import { describe, expect, it } from 'vitest';
import { isSecretKey, redactSecrets, redactSecretsInValue } from '../../../src/host/store/index.js';

/** Provider-shaped fakes are built from parts, so secret scanners do not take this file for a leak. */
const j = (...parts: string[]): string => parts.join('');
const ALNUM36 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

const JWT = j(
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  '.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
);
const RSA_BLOCK = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

// [what, input, expected]
const POSITIVE: Array<[string, string, string]> = [
  ['OpenAI key in env style', j('OPENAI_API_KEY=sk-proj-', 'Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789'), 'OPENAI_API_KEY=[redacted]'],
  ['bare OpenAI key in prose', j('use sk-', 'Ab3dEfGh1jKlMnOpQrStUvWx to call it'), 'use [redacted] to call it'],
  ['bare Anthropic key', j('key is sk-ant-', 'api03-abcDEF123456789_abcdefghijklmnop-XYZ.'), 'key is [redacted].'],
  ['GitHub classic token', j('cloned with gh', 'p_', ALNUM36, ' ok'), 'cloned with [redacted] ok'],
  ['GitHub OAuth token', j('gh', 'o_', ALNUM36), '[redacted]'],
  ['GitHub fine-grained token', j('github_', 'pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF'), '[redacted]'],
  ['AWS access key id', j('AKIA', 'IOSFODNN7EXAMPLE is the id'), '[redacted] is the id'],
  ['AWS secret key, INI style', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [redacted]'],
  ['Slack bot token', j('xox', 'b-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'), '[redacted]'],
  ['Google API key', j('key=AI', 'zaSyA1234567890abcdefghijklmnopqrstuv'), 'key=[redacted]'],
  ['Stripe secret key', j('charge with sk_', 'live_4eC39HqLyjWDarjtT1zdp7dc'), 'charge with [redacted]'],
  ['GitLab token', j('glpat', '-xYz123AbC456dEf789gHiJ'), '[redacted]'],
  ['JSON password', '{"password":"hunter2","user":"bob"}', '{"password":"[redacted]","user":"bob"}'],
  ['JSON api_key with spaces', '{ "api_key": "abc123def", "q": "rain" }', '{ "api_key": "[redacted]", "q": "rain" }'],
  ['query string api_key', 'https://api.example.com/v1?q=rain&api_key=abc123def456&units=metric', 'https://api.example.com/v1?q=rain&api_key=[redacted]&units=metric'],
  ['query string access_token', 'GET /me?access_token=ya29.a0AfH6SMBx HTTP/1.1', 'GET /me?access_token=[redacted] HTTP/1.1'],
  ['env export, quoted', 'export GITHUB_TOKEN="some value with spaces"', 'export GITHUB_TOKEN="[redacted]"'],
  ['YAML password', 'db:\n  user: app\n  password: correcthorse\n', 'db:\n  user: app\n  password: [redacted]\n'],
  ['camelCase apiKey, single quotes', "const config = { apiKey: 'xyz789', region: 'eu' }", "const config = { apiKey: '[redacted]', region: 'eu' }"],
  ['DB_PASS env', 'DB_HOST=db\nDB_PASS=pa55word\n', 'DB_HOST=db\nDB_PASS=[redacted]\n'],
  ['X-Api-Key header', 'X-Api-Key: 0123abcd\nAccept: */*', 'X-Api-Key: [redacted]\nAccept: */*'],
  ['Authorization Bearer header', 'Authorization: Bearer abc.def.ghi\nHost: x', 'Authorization: Bearer [redacted]\nHost: x'],
  ['Authorization Basic in JSON', '{"headers":{"Authorization":"Basic dXNlcjpwYXNz"}}', '{"headers":{"Authorization":"Basic [redacted]"}}'],
  ['lower-case authorization in curl', `curl -H 'authorization: token abc123' https://x`, `curl -H 'authorization: token [redacted]' https://x`],
  ['bare bearer token', 'sent Bearer 4f9a8b7c6d5e4f3a2b1c to the API', 'sent Bearer [redacted] to the API'],
  ['Cookie header', 'Cookie: session=abc123; theme=dark\nAccept: */*', 'Cookie: [redacted]\nAccept: */*'],
  ['JWT', `token was ${JWT} yesterday`, 'token was [redacted] yesterday'],
  ['RSA private key block', `key:\n${RSA_BLOCK}\nend`, 'key:\n[redacted]\nend'],
  ['OpenSSH key cut off by truncation', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', '[redacted]'],
  ['PGP private key block', '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----', '[redacted]'],
  ['password in URL', 'git clone https://alice:s3cr3t@example.com/repo.git', 'git clone https://alice:[redacted]@example.com/repo.git'],
  ['password with @ and : in URL', 'postgres://app:p@ss:w0rd@db.internal:5432/main', 'postgres://app:[redacted]@db.internal:5432/main'],
  ['password without user in URL', 'redis://:topsecret@localhost:6379/0', 'redis://:[redacted]@localhost:6379/0'],
  ['--password flag', 'mysql --user root --password hunter2 db', 'mysql --user root --password [redacted] db'],
  ['--api-key= flag', 'server --api-key=abc123 --port 80', 'server --api-key=[redacted] --port 80'],
  ['JSON-escaped JSON', String.raw`{"body":"{\"client_secret\":\"abcd1234\"}"}`, String.raw`{"body":"{\"client_secret\":\"[redacted]\"}"}`],
  ['JSON value with escaped quotes', String.raw`{"password": "he said \"hi\" ok", "x": 1}`, '{"password": "[redacted]", "x": 1}'],
  ['OIDC id_token and refresh_token', '{"id_token": "abc.def.ghi", "refresh_token": "r1"}', '{"id_token": "[redacted]", "refresh_token": "[redacted]"}'],
  ['Set-Cookie header', 'Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure', 'Set-Cookie: [redacted]'],
  ['quoted value cut off by truncation', 'config: {"password": "hunter2 and more', 'config: {"password": "[redacted]'],
  ['Authorization value cut off by truncation', '{"Authorization": "Bearer abc123', '{"Authorization": "Bearer [redacted]'],
  ['Slack webhook URL', 'https://hooks.slack.com/services/T000/B000/XXXXabcd', 'https://hooks.slack.com/services/[redacted]'],
];

const NEGATIVE: Array<[string, string]> = [
  ['a plain sentence', 'The weather in Berlin is 21 degrees and sunny; tomorrow 18 with rain.'],
  ['LLM usage counters', '{"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46, "max_tokens": 256}'],
  ['OAuth token type and lifetime', '{"token_type": "bearer", "expires_in": 3600, "scope": "read"}'],
  ['a UUID', 'request 550e8400-e29b-41d4-a716-446655440000 done'],
  ['a sha256 hash', 'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  ['a git commit', 'commit d670460b4b4aece5915caf5c68d12f560a9fe3e4 (HEAD -> main)'],
  ['URLs without a password', 'see https://example.com:8443/path?q=1&page=2 and http://localhost:8181/v1'],
  ['prose about passwords', 'Please enter your password. Forgot password? Reset it here. The password must be long.'],
  ['pagination token and a plain key', '{"nextPageToken": "CAoQAA", "key": "value", "keyboard": "us"}'],
  ['e-mail and ssh remote', 'mail alice@example.com or push to git@github.com:owner/repo.git'],
  ['names about secrets', '{"password_policy": "min 12 chars", "secret_name": "prod/db", "token_url": "https://auth.example.com/token"}'],
  ['slug that starts with sk-', 'read sk-interview-preparation-guide-book and risk-assessment-for-quarter-three-2024'],
  ['numbers', 'call +49 30 1234567 or 1234567890; order 4111-2222 costs 99.95'],
  ['bearer in prose', 'Bearer of bad news; bearer bonds; Bearer 12345'],
  ['author, monkey, pass count', 'author: Jane Doe, monkey: 3, pass: 12, fail: 0'],
  ['code reading a token', 'const token = getToken();\npassword = input("Password: ")\nlet apiKey: string = load();'],
  ['booleans, null and empty values', '{"secret": true, "token": null, "password": ""}'],
  ['env references', 'password: ${DB_PASSWORD}\nAPI_KEY=$API_KEY'],
  ['too short to be a GitHub token', 'ghp_short and AKIA1234'],
  ['Authorization in prose', 'Authorization required to access this page.'],
  ['file paths and versions', '/usr/lib/node_modules/npm@10.8.2/bin/npm-cli.js v20.19.5'],
];

describe('redactSecrets', () => {
  it.each(POSITIVE)('redacts %s', (_what, input, expected) => {
    const redacted = redactSecrets(input);
    expect(redacted).toBe(expected);
    expect(redactSecrets(redacted)).toBe(redacted);
  });

  it.each(NEGATIVE)('leaves %s untouched', (_what, input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  it('has a corpus of the promised size', () => {
    expect(POSITIVE.length).toBeGreaterThanOrEqual(25);
    expect(NEGATIVE.length).toBeGreaterThanOrEqual(15);
  });

  it('is linear on long input with no separators (no catastrophic backtracking)', () => {
    const blob = 'key'.repeat(100_000) + 'token'.repeat(20_000);
    const started = performance.now();
    expect(redactSecrets(blob)).toBe(blob);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('redactSecretsInValue', () => {
  it('hides values of secret-looking keys at any depth, whatever their type', () => {
    const value = {
      query: 'weather',
      password: 'hunter2',
      nested: { apiKey: 12345, list: [{ Authorization: 'Bearer abc' }], credentials: { user: 'u', pass: 'p' } },
      cookie: ['a=1'],
      secret: false,
      note: `token ${JWT}`,
    };
    expect(redactSecretsInValue(value)).toEqual({
      query: 'weather',
      password: '[redacted]',
      nested: { apiKey: '[redacted]', list: [{ Authorization: '[redacted]' }], credentials: '[redacted]' },
      cookie: '[redacted]',
      secret: false,
      note: 'token [redacted]',
    });
  });

  it('leaves the input as it was', () => {
    const value = { password: 'x' };
    redactSecretsInValue(value);
    expect(value.password).toBe('x');
  });
});

describe('isSecretKey', () => {
  it.each(['password', 'GITHUB_TOKEN', 'apiKey', 'APIKey', 'x-api-key', 'client_secret', 'DB_PASS', 'access_token', 'private_key', 'passwd', 'Authorization'])(
    '%s is secret',
    (key) => expect(isSecretKey(key)).toBe(true),
  );
  it.each(['max_tokens', 'token_type', 'nextPageToken', 'password_policy', 'secret_name', 'key', 'keyboard', 'author', 'pass', 'tokenizer', 'PWD'])(
    '%s is not',
    (key) => expect(isSecretKey(key)).toBe(false),
  );
});

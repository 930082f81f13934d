import { REDACTED, redactSecrets } from '../secrets/index.js';

export type SensitiveKind = 'credential' | 'password' | 'payment_card' | 'iban' | 'government_id' | 'private_key';

/** Every kind, in the sorted order `detectSensitive` reports them. */
export const SENSITIVE_KINDS: readonly SensitiveKind[] = ['credential', 'government_id', 'iban', 'password', 'payment_card', 'private_key'];

/**
 * The kinds of secret or identifying data in `text`, sorted and unique; empty
 * when there is none. Built to keep such things out of long-term memory, so
 * it looks for values, not topics: "my password is hunter2" is sensitive,
 * "remind me to change my password" is not.
 * - credential: whatever `redactSecrets` would hide (provider keys, bearer
 *   tokens, JWTs, `api_key=...`), unless a more specific kind explains it;
 * - password: a password-like key with a value (`password: x`, `DB_PASS=x`,
 *   a password in a URL) or one said in words, English or Italian ("my wifi
 *   password is x", "PIN 4821", "la password è x", "il pin è 1234");
 * - payment_card: 13 to 19 digits, spaces or dashes allowed, starting 2-6
 *   (the card networks' ranges), that pass the Luhn check;
 * - iban: a country's IBAN length with a valid mod-97 checksum;
 * - government_id: US SSN, Italian codice fiscale, UK National Insurance
 *   number, a number given as a passport number;
 * - private_key: a PEM or PGP private key block.
 */
export function detectSensitive(text: string): SensitiveKind[] {
  if (text.trim() === '') return [];
  const found = new Set<SensitiveKind>();
  addSecretKinds(text, found);
  if (hasSpokenPassword(text)) found.add('password');
  if (hasPaymentCard(text)) found.add('payment_card');
  if (hasIban(text)) found.add('iban');
  if (hasGovernmentId(text)) found.add('government_id');
  return SENSITIVE_KINDS.filter((kind) => found.has(kind));
}

// --- What redactSecrets hides --------------------------------------------------------------

// Only to take the blocks out before redacting: a private key is not also reported as a credential.
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g;
/** Right before a redacted value: `scheme://user:` is a password in a URL. */
const URL_USER_BEFORE = /:\/\/[^\s:/?#@"'<>[\]]*:$/;
/** Right before a redacted value: `key=`, `"key": "`, `--key `. */
const KEY_BEFORE = /([A-Za-z0-9_.-]+)\\?["']?(?:[ \t]*[:=][ \t]*|[ \t]+)\\?["']?$/;
const PASSWORD_KEY = /(?:^|[^a-z])(?:pass(?:word|wd|phrase|code)?|pwd)(?:[^a-z]|$)/;

function addSecretKinds(text: string, found: Set<SensitiveKind>): void {
  // A "[redacted]" the text already held is not a secret, and must not be counted as one below.
  let rest = text.split(REDACTED).join(' ');
  const withoutKeys = rest.replace(PRIVATE_KEY_BLOCK, ' ');
  if (withoutKeys !== rest) found.add('private_key');
  rest = withoutKeys;
  const redacted = redactSecrets(rest);
  if (redacted === rest) return;
  // Each "[redacted]" is classified by what stands before it.
  for (let at = redacted.indexOf(REDACTED); at >= 0; at = redacted.indexOf(REDACTED, at + REDACTED.length)) {
    const before = redacted.slice(Math.max(0, at - 100), at);
    const key = KEY_BEFORE.exec(before)?.[1] ?? '';
    const camelSplit = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    found.add(URL_USER_BEFORE.test(before) || PASSWORD_KEY.test(camelSplit) ? 'password' : 'credential');
  }
}

// --- Passwords and PINs said in words ------------------------------------------------------

const PASSWORD_WORD = new RegExp(
  String.raw`(?<![\p{L}\p{N}_])(?:(password|passwd|passphrase|passcode|pwd|parola d['’]ordine)|(pin(?:\s+(?:code|number))?|codice\s+pin|(?:door|gate|alarm|safe|lock|locker|keypad|garage|entry|access|security)\s+code))(?![\p{L}\p{N}_])`,
  'giu',
);
/** "for gmail", "of the router", "del wifi", "dell'allarme": what the password is for, before "is". */
const PREPOSITION =
  /^\s+(?:(?:for|of|to|at|on|per|di|del|della|dello|dei|degli|delle|al|alla|allo|sul|sulla)(?=\s)|(?:dell|all|d)['’])/iu;
const NEXT_WORD = /^\s*[^\s.,;!?:=]+/u;
const SEPARATORS: ReadonlyArray<[Separator, RegExp]> = [
  ['colon', /^\s*[:=]\s*/u],
  ['verb', /^\s+(?:is|was|will be|è|e['’]|era|sarà)(?:\s*:)?\s+(?:(?:still|now|ora|adesso|ancora|sempre)\s+)?/iu],
  ['to', /^\s+to\s+/iu],
  ['space', /^\s+(?:#\s*)?/u],
];
type Separator = 'colon' | 'verb' | 'to' | 'space';
const VALUE = /^(?:"([^"\n]{1,80})"|'([^'\n]{1,80})'|“([^”\n]{1,80})”|«([^»\n]{1,80})»|([^\s"“”«»]{1,80}))(?:\s+(\p{L}+))?/u;
const PIN_VALUE = /^\d{4,12}$/;

/** Words that follow "password is" without being a password: "the password is wrong", "... è scaduta". */
const NOT_A_VALUE = new Set(
  (
    'a an the my your his her our their this that it its i not no too very so still now also just only really quite ' +
    'wrong right incorrect correct invalid valid expired expiring old new same different weak strong secure insecure ' +
    'safe unsafe short long easy hard simple complex required needed missing empty blank case-sensitive stored saved ' +
    'written somewhere here there in on at under behind inside with for of from by to changed reset set updated locked ' +
    'blocked forgotten lost what which where and or but being been always never probably something anything nothing ' +
    'hidden encrypted ok okay fine good bad better worse mandatory optional managed ' +
    'il lo la le un una uno mio mia tuo tua suo sua non troppo molto ancora sempre già scaduta scaduto sbagliata ' +
    'sbagliato giusta giusto corretta corretto errata errato vecchia vecchio nuova nuovo stessa stesso diversa diverso ' +
    'debole forte sicura sicuro lunga lungo corta corto facile difficile obbligatoria richiesta scritta scritto salvata ' +
    'salvato nel nella sul sulla su sotto dentro con per di da cambiata cambiato bloccata bloccato persa perso ' +
    'dimenticata questa quella'
  ).split(' '),
);
/** "the password is 8 characters long" gives a length, not a password. */
const UNITS = new Set(['characters', 'chars', 'digits', 'letters', 'symbols', 'caratteri', 'cifre', 'lettere', 'simboli']);

function hasSpokenPassword(text: string): boolean {
  for (const match of text.matchAll(PASSWORD_WORD)) {
    const tail = text.slice((match.index ?? 0) + match[0].length, (match.index ?? 0) + match[0].length + 160);
    if (hasValueAfter(tail, match[2] !== undefined)) return true;
  }
  return false;
}

/** Tries "password <sep> value" right away, then after a preposition and up to three words. */
function hasValueAfter(tail: string, digitsOnly: boolean): boolean {
  const starts = [0];
  const preposition = PREPOSITION.exec(tail);
  if (preposition !== null) {
    // Each start is just after a word, before the space that the separators begin with.
    let at = preposition[0].length;
    starts.push(at);
    for (let words = 0; words < 3; words += 1) {
      const word = NEXT_WORD.exec(tail.slice(at));
      if (word === null) break;
      at += word[0].length;
      starts.push(at);
    }
  }
  for (const start of starts) {
    for (const [separator, pattern] of SEPARATORS) {
      const sep = pattern.exec(tail.slice(start));
      if (sep === null) continue;
      const value = VALUE.exec(tail.slice(start + sep[0].length));
      if (value !== null && isValue(value, separator, digitsOnly)) return true;
    }
  }
  return false;
}

function isValue(match: RegExpExecArray, separator: Separator, digitsOnly: boolean): boolean {
  const quoted = match[1] ?? match[2] ?? match[3] ?? match[4];
  const value = quoted !== undefined ? quoted.trim() : (match[5] ?? '').replace(/[.,;:!?)\]}]+$/u, '');
  if (value === '') return false;
  if (/^\d+$/u.test(value) && UNITS.has((match[6] ?? '').toLowerCase())) return false;
  // A bare "PIN 4821" or "passcode 1234" is one; "password manager" is not.
  if (digitsOnly || separator === 'space') return PIN_VALUE.test(value);
  if (quoted !== undefined) return true;
  if (NOT_A_VALUE.has(value.toLowerCase())) return false;
  // "change my password to hunter2!" but not "... to something stronger".
  if (separator === 'to') return /[\p{N}\p{P}\p{S}]/u.test(value);
  return true;
}

// --- Payment cards ------------------------------------------------------------------------

/** Digit groups joined by single spaces or dashes, not inside a longer number, a decimal or a +phone prefix. */
const DIGIT_RUN = /(?<![\p{L}\p{N}.,/+-])\d+(?:[ -]\d+)*(?![\p{L}\p{N}]|[.,/]\d)/gu;

function hasPaymentCard(text: string): boolean {
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    const groups = run.split(/[ -]/);
    // Any stretch of whole groups may be the card: "card 4111 1111 1111 1111 2027" holds a year after it.
    for (let first = 0; first < groups.length; first += 1) {
      for (let last = first; last < groups.length; last += 1) {
        const window = groups.slice(first, last + 1);
        const digits = window.join('');
        if (digits.length > 19) break;
        if (digits.length >= 13 && cardShaped(window) && /^[2-6]/.test(digits) && luhnValid(digits)) return true;
      }
    }
  }
  return false;
}

/**
 * Printed the way cards are: one block, fours (the last group shorter), or
 * 4-6-4 / 4-6-5 (Diners, Amex). Two phone numbers in a row ("333 1234567 333
 * 7654321") pass Luhn one time in ten; their grouping gives them away.
 */
function cardShaped(groups: readonly string[]): boolean {
  if (groups.length === 1) return true;
  const lengths = groups.map((group) => group.length).join('-');
  return /^(?:4-)+[1-4]$/.test(lengths) || lengths === '4-6-4' || lengths === '4-6-5';
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// --- IBAN ---------------------------------------------------------------------------------

/** IBAN lengths by country, from the SWIFT IBAN registry. */
const IBAN_LENGTHS = new Map(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 EE20 EG29 ' +
    'ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 ' +
    'LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 ' +
    'QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))] as const),
);
/** A country code and two check digits starting a word, then letters and digits with single spaces between. */
const IBAN_CANDIDATE = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/giu;

function hasIban(text: string): boolean {
  IBAN_CANDIDATE.lastIndex = 0;
  for (let match = IBAN_CANDIDATE.exec(text); match !== null; match = IBAN_CANDIDATE.exec(text)) {
    const start = match.index;
    // A candidate swallows the words after it; the next one may start inside it ("AB12 and GB82 WEST ...").
    IBAN_CANDIDATE.lastIndex = start + 1;
    const length = IBAN_LENGTHS.get(match[0].slice(0, 2).toUpperCase());
    if (length === undefined) continue;
    // Take exactly the country's length; the IBAN must end there, not mid-word.
    let compact = '';
    let end = start;
    while (compact.length < length && end < text.length) {
      const ch = text[end] as string;
      if (ch !== ' ') compact += ch;
      end += 1;
    }
    if (compact.length < length || /[\p{L}\p{N}]/u.test(text[end] ?? '')) continue;
    if (/^[A-Z0-9]+$/i.test(compact) && mod97(compact.toUpperCase()) === 1) return true;
  }
  return false;
}

/** ISO 7064 mod 97-10: the first four characters moved to the end, letters as 10-35. */
function mod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder;
}

// --- Government ids -----------------------------------------------------------------------

const GOVERNMENT_IDS: readonly RegExp[] = [
  // US SSN; area 000, 666 and 900-999, group 00 and serial 0000 are never issued.
  /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/u,
  /\b(?:ssn|social security(?: number| no\.?)?)(?:\s*(?:is|:|#))?\s*\d{3}[- ]?\d{2}[- ]?\d{4}\b/iu,
  // Italian codice fiscale: surname, name, year, month letter, day, place, check letter; digits may be
  // swapped for LMNPQRSTUV (omocodia). At least one digit, so no ordinary word of 16 letters matches.
  /(?<![\p{L}\p{N}])(?=[A-Z]*\d)[A-Z]{6}[\dLMNPQRSTUV]{2}[ABCDEHLMPRST][\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{3}[A-Z](?![\p{L}\p{N}])/iu,
  // UK National Insurance number: two prefix letters (D, F, I, Q, U, V never; O not second; seven pairs
  // unallocated), six digits, A-D. Spaced only in capitals: "at 12 34 56 a" is not one.
  /(?<![\p{L}\p{N}])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}])/u,
  /(?<![\p{L}\p{N}])(?!bg|gb|kn|nk|nt|tn|zz)[a-ceghj-pr-tw-z][a-ceghj-npr-tw-z]\d{6}[a-d](?![\p{L}\p{N}])/iu,
  // A passport number is said as one: 6 to 9 letters and digits, at least one digit.
  /(?<![\p{L}\p{N}])(?:passport|passaporto)(?:\s+(?:number|no\.?|num\.?|n\.?|numero))?(?:\s*(?:is|è|was|era|:|#)?\s*)(?=[A-Z]*\d)[A-Z0-9]{6,9}(?![\p{L}\p{N}])/iu,
];

function hasGovernmentId(text: string): boolean {
  return GOVERNMENT_IDS.some((pattern) => pattern.test(text));
}

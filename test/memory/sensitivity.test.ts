import { describe, expect, it } from 'vitest';
import { detectSensitive, SENSITIVE_KINDS, type SensitiveKind } from '../../src/memory/sensitivity.js';

/** Provider-shaped fakes are built from parts, so secret scanners do not take this file for a leak. */
const j = (...parts: string[]): string => parts.join('');
const JWT = j('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c');
const RSA_BLOCK = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun', '-----END RSA PRIVATE KEY-----'].join('\n');

// [input, expected kinds]
const POSITIVE: Array<[string, SensitiveKind[]]> = [
  // Whatever redactSecrets hides.
  [j('OPENAI_API_KEY=sk-proj-', 'Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789'), ['credential']],
  [j('the github token is gh', 'p_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'), ['credential']],
  ['Authorization: Bearer abc.def.ghi', ['credential']],
  [`saved the session token ${JWT}`, ['credential']],
  [`my ssh key:\n${RSA_BLOCK}`, ['private_key']],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ', ['private_key']],
  ['git clone https://alice:s3cr3t@example.com/repo.git', ['password']],
  ['{"user": "bob", "password": "hunter2"}', ['password']],
  ['DB_PASS=pa55word', ['password']],
  // Passwords and PINs said in words.
  ['my password is hunter2', ['password']],
  ['the wifi password: xyz', ['password']],
  ['PIN 4821', ['password']],
  ['passcode is 1234', ['password']],
  ['my gmail password is "correct horse battery staple"', ['password']],
  ['the password to the safe is 1234', ['password']],
  ['change my wifi password to Tr0ub4dor&3', ['password']],
  ['the door code is 4821', ['password']],
  ['my locker code: 1234', ['password']],
  ['my bank PIN: 0042', ['password']],
  ['la password è Gatto2024!', ['password']],
  ['il pin è 12345', ['password']],
  ['la password del wifi è casa-rossa-7', ['password']],
  ["il codice pin dell'allarme è 9090", ['password']],
  // Payment cards that pass Luhn.
  ['card 4111 1111 1111 1111 exp 12/27', ['payment_card']],
  ['5555-5555-5555-4444', ['payment_card']],
  ['amex 378282246310005', ['payment_card']],
  ['amex 3782 822463 10005', ['payment_card']],
  ['4111111111111111', ['payment_card']],
  // IBANs with a valid checksum.
  ['GB82 WEST 1234 5698 7654 32', ['iban']],
  ['IT60X0542811101000000123456', ['iban']],
  ['my iban is it60x0542811101000000123456.', ['iban']],
  ['AB12 and then DE89 3704 0044 0532 0130 00 for rent', ['iban']],
  // Government ids.
  ['my SSN is 123-45-6789', ['government_id']],
  ['social security number 123 45 6789', ['government_id']],
  ['codice fiscale RSSMRA85T10A562S', ['government_id']],
  ['NI number AB123456C', ['government_id']],
  ['national insurance: AB 12 34 56 C', ['government_id']],
  ['passport number YA1234567', ['government_id']],
  ['il numero di passaporto è AA1234567', ['government_id']],
  // Several at once, sorted.
  ['card 4111 1111 1111 1111, PIN 4821, IBAN GB82WEST12345698765432', ['iban', 'password', 'payment_card']],
];

const NEGATIVE: string[] = [
  'I forgot my password',
  'remind me to change my password',
  'remind me to change my password to something stronger',
  'my password expired yesterday',
  'the wifi password is on the fridge',
  'the password is wrong',
  'the password policy requires 12 characters',
  'the password is 8 characters long',
  'I need a stronger password for my bank',
  'my PIN is wrong, the bank blocked the card',
  'pin the tab to the sidebar',
  'la password è scaduta',
  'ho dimenticato il pin',
  'my passport expires in March 2027',
  'call me at +39 333 123 4567',
  // Thirteen digits that pass Luhn, but grouped as two phone numbers.
  'call 333 1234567 333 7654321',
  'my phone number is (555) 123-4567',
  'the meeting is on 2024-03-15 at 14:30',
  'dinner cost €1,299.50 for 12 people',
  'order number 4111 1111 1111 1112',
  'tracking 5555-5555-5555-4445',
  'ISBN 978-3-16-148410-0',
  'GB82 WEST 1234 5698 7654 33',
  'IT60X0542811101000000123457',
  'ids 000-12-3456, 666-12-3456 and 900-12-3456',
  'the secret to good pasta is salt',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b',
  'uuid 123e4567-e89b-12d3-a456-426614174000',
  'I prefer dark roast coffee',
  "my sister's birthday is March 3",
  'it was already [redacted] in the log',
  '',
];

describe('detectSensitive', () => {
  for (const [input, kinds] of POSITIVE) {
    it(`finds ${kinds.join(', ')} in ${JSON.stringify(input.slice(0, 60))}`, () => {
      expect(detectSensitive(input)).toEqual(kinds);
    });
  }

  for (const input of NEGATIVE) {
    it(`finds nothing in ${JSON.stringify(input)}`, () => {
      expect(detectSensitive(input)).toEqual([]);
    });
  }

  it('reports the kinds sorted and each once', () => {
    expect([...SENSITIVE_KINDS].sort()).toEqual(SENSITIVE_KINDS);
    const text = `password: a, password: b, ${RSA_BLOCK}, token ${JWT}, 4111 1111 1111 1111 and 5555555555554444`;
    expect(detectSensitive(text)).toEqual(['credential', 'password', 'payment_card', 'private_key']);
  });
});

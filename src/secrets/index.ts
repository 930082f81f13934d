export { redactSecrets, redactSecretsInValue, REDACTED } from './redact.js';
export { isCredentialHeader, isSecretKey } from './secret-key.js';

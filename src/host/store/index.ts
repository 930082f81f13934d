export { openStateDb, STATE_DB_FILE, type OpenStateDbOptions, type StateDb } from './state-db.js';
export { SCHEMA_VERSION } from './schema.js';
export { SqliteAuditLog, RECENT_MAX } from './audit-log.js';
export { SqlitePinStore } from './pin-store.js';
export { redactSecrets, redactSecretsInValue, REDACTED, isSecretKey } from '../../secrets/index.js';
export { summarizeArguments, truncateMarked } from './argument-summary.js';
export { canonicalJson, sha256Hex } from './canonical-json.js';
export { definitionHash, describeDefinitionChange, type PinnedDefinition } from './tool-definition.js';
export type { AuditLog, AuditRecord, PinStore, StoredAuditRecord, ToolPin } from './types.js';

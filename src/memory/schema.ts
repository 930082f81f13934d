/**
 * The memory database's schema, one migration per version (append only).
 * `records` holds each memory with its vector (the source the FAISS index
 * is built from and checked against); `changes` is the ordered list of
 * writes that lets every process holding an index (the daemon, an editor's
 * `desktop-assistant mcp`, the CLI) catch up with the others; `meta` names
 * the embedder the stored vectors came from.
 */
export const MEMORY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    sensitivity TEXT NOT NULL CHECK (sensitivity IN ('none', 'sensitive')),
    sensitive_kinds TEXT NOT NULL,
    source_turn TEXT,
    created_ms INTEGER NOT NULL,
    checksum TEXT NOT NULL,
    vector BLOB NOT NULL,
    vector_checksum INTEGER NOT NULL
  );
  CREATE INDEX records_by_kind ON records (kind, created_ms);
  CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    op TEXT NOT NULL CHECK (op IN ('add', 'forget', 'rebuild')),
    record_id INTEGER
  );
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  `,
];

/**
 * The state database's schema, one migration per version: MIGRATIONS[n]
 * brings a database at `PRAGMA user_version` n to n + 1. Append only; never
 * edit a released step.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    turn_id TEXT NOT NULL,
    entry TEXT NOT NULL,
    tool TEXT NOT NULL,
    server TEXT NOT NULL,
    risk TEXT NOT NULL,
    decision TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    status TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    args_hash TEXT NOT NULL,
    args_summary TEXT NOT NULL,
    output_chars INTEGER NOT NULL,
    truncated INTEGER NOT NULL CHECK (truncated IN (0, 1)),
    detail TEXT
  );
  CREATE INDEX audit_by_time ON audit (at_ms);
  CREATE TABLE tool_pins (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    approved_at_ms INTEGER NOT NULL,
    PRIMARY KEY (server, tool)
  ) WITHOUT ROWID;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

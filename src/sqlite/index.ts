export { openDatabase, sqliteError, SqliteFile, type DatabaseIdentity, type OpenDatabaseOptions } from './open-database.js';

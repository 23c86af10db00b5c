// Kysely's SQLite dialect expects a better-sqlite3-shaped object; node:sqlite is close but not
// identical (spread parameters, no `reader` flag, no boolean binding). This adapter bridges the
// gap so the project needs no native module.
import path from 'node:path';
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { ensurePrivateDirectory, ensurePrivateFile } from '../files.ts';

function bindable(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SQLInputValue;
}

class Statement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#stmt.all(...parameters.map(bindable));
  }
  run(parameters: ReadonlyArray<unknown>) {
    const result = this.#stmt.run(...parameters.map(bindable));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#stmt.iterate(...parameters.map(bindable)) as IterableIterator<unknown>;
  }
}

const STATEMENT_CACHE_SIZE = 256;

export interface Sqlite extends SqliteDatabase {
  exec(sql: string): void;
  /** A statement from the same cache Kysely's queries use. */
  prepare(sql: string): Statement;
  /** True between BEGIN and COMMIT or ROLLBACK on this connection. */
  readonly inTransaction: boolean;
}

export function openSqlite(file: string): Sqlite {
  if (file !== ':memory:') {
    ensurePrivateDirectory(path.dirname(file));
    // SQLite would create the file 0644; it gives its -wal and -shm files the mode of the
    // database file, so a private database file keeps them private too.
    ensurePrivateFile(file, { create: true });
    for (const suffix of ['-wal', '-shm']) ensurePrivateFile(file + suffix, { create: false });
  }
  const db = new DatabaseSync(file);
  // WAL lets the CLI and the server share the file; NORMAL sync keeps every committed write
  // across a process crash (only an OS crash can lose the newest transactions).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA busy_timeout = 5000');
  // Deleted and overwritten content is zeroed, not left in free space (see Database.scrub).
  db.exec('PRAGMA secure_delete = ON');
  // Kysely prepares every query afresh, and preparing was a quarter of a request's CPU time.
  // Its SQL text is the same for every query of one shape (values are bound), so a small LRU
  // of prepared statements serves nearly every request. SQLite re-prepares a cached statement
  // by itself if the schema changes under it.
  const cache = new Map<string, Statement>();
  return {
    close: () => {
      cache.clear();
      db.close();
    },
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql); // re-insert: most recently used last
      } else {
        statement = new Statement(db.prepare(sql));
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
    exec: (sql: string) => db.exec(sql),
    get inTransaction() {
      return db.isTransaction;
    },
  };
}

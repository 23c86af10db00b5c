// Kysely's SQLite dialect expects a better-sqlite3-shaped object; node:sqlite is close but not
// identical (spread parameters, no `reader` flag, no boolean binding). This adapter bridges the
// gap so the project needs no native module.
import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { ensurePrivateDirectory, ensurePrivateFile } from '../files.ts';

function bindable(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as SQLInputValue;
}

type Row = Record<string, SQLOutputValue>;

class Statement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  /** The result's column names; asking node:sqlite for them costs more than a short query. */
  #names: string[];
  #row: RowBuilder;
  /** When the statement was last asked for (the cache's clock): the least recent is evicted. */
  used = 0;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.#names = columnNames(stmt);
    this.#row = rowBuilder(this.#names);
    this.reader = this.#names.length > 0;
    // Rows come as arrays and become objects here. node:sqlite's own row objects cost more to
    // build, and they went where only a full collection frees them: a list of 100 rows grew the
    // old generation by about 10 KiB per request, which set the server's peak RSS.
    if (this.reader) stmt.setReturnArrays(true);
  }
  all(parameters: ReadonlyArray<unknown>): Row[] {
    const rows = this.#stmt.all(...parameters.map(bindable)) as unknown as SQLOutputValue[][];
    return rows.map((values) => this.#object(values));
  }
  run(parameters: ReadonlyArray<unknown>) {
    const result = this.#stmt.run(...parameters.map(bindable));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }
  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<Row> {
    for (const values of this.#stmt.iterate(...parameters.map(bindable)) as unknown as Iterable<SQLOutputValue[]>) yield this.#object(values);
  }
  #object(values: SQLOutputValue[]): Row {
    // SQLite re-prepares a statement whose tables changed; a `select *` may then return other
    // columns (a migration run by another process).
    if (values.length !== this.#names.length) {
      this.#names = columnNames(this.#stmt);
      this.#row = rowBuilder(this.#names);
    }
    return this.#row(values);
  }
}

type RowBuilder = (values: SQLOutputValue[]) => Row;

/**
 * Makes a statement's row objects with one object literal naming every column, compiled once per
 * statement (and again if SQLite re-prepares it with other columns). Rows of one statement then
 * share one shape and are built without a keyed store per column, and the code reading them stays
 * monomorphic (a loop of `row[name] = value` went megamorphic across statements: about 2% of a
 * show's instructions). Each name is written as a JSON string literal, so a column name can only
 * ever be a key. As in node:sqlite's own row objects, a name that occurs twice takes its last
 * column's value.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  // A literal's `"__proto__": x` would set the prototype; a computed key makes a property.
  const key = (name: string) => (name === '__proto__' ? '["__proto__"]' : JSON.stringify(name));
  return new Function('v', `return { ${names.map((name, i) => `${key(name)}: v[${i}]`).join(', ')} };`) as RowBuilder;
}

const columnNames = (stmt: StatementSync) => stmt.columns().map((c) => c.name);

const STATEMENT_CACHE_SIZE = 256;

function leastRecentlyUsed(cache: ReadonlyMap<string, Statement>): string {
  let oldest: [string, Statement] | undefined;
  for (const entry of cache) if (!oldest || entry[1].used < oldest[1].used) oldest = entry;
  return oldest![0];
}

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
  // First: every statement after it, the journal mode included, waits for a lock another process
  // holds (a `hangar` command closing the database checkpoints under an exclusive lock) instead
  // of failing at once with "database is locked".
  db.exec('PRAGMA busy_timeout = 5000');
  // WAL lets the CLI and the server share the file; NORMAL sync keeps every committed write
  // across a process crash (only an OS crash can lose the newest transactions).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Deleted and overwritten content is zeroed, not left in free space (see Database.scrub).
  db.exec('PRAGMA secure_delete = ON');
  // Kysely prepares every query afresh, and preparing was a quarter of a request's CPU time.
  // Its SQL text is the same for every query of one shape (values are bound), so a small LRU
  // of prepared statements serves nearly every request. SQLite re-prepares a cached statement
  // by itself if the schema changes under it.
  const cache = new Map<string, Statement>();
  let clock = 0;
  return {
    close: () => {
      cache.clear();
      db.close();
    },
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (!statement) {
        // The least recently used goes: found by a scan only when the cache is full (cheap beside
        // the prepare a miss costs anyway), rather than by reordering the map on every hit.
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(leastRecentlyUsed(cache));
        statement = new Statement(db.prepare(sql));
        cache.set(sql, statement);
      }
      statement.used = ++clock;
      return statement;
    },
    exec: (sql: string) => db.exec(sql),
    get inTransaction() {
      return db.isTransaction;
    },
  };
}

// One query layer (Kysely) over two engines. The dialect is chosen by the URL alone.
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import { openSqlite } from './sqlite.ts';
import type { Schema } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';
/** Anything a store can run a query on: the root handle or an open transaction. */
export type Queryable = Kysely<Schema> | Transaction<Schema>;

export interface Database {
  readonly dialect: Dialect;
  readonly db: Kysely<Schema>;
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (trx: Transaction<Schema>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// COUNT(*) and BIGINT arrive from pg as strings; every count Hangar reads fits in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export interface DatabaseOptions {
  /** PostgreSQL only: the schema (which must exist) to put first on the search path. */
  schema?: string;
  poolSize?: number;
  /** Called with the SQL of every query run (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const onQuery = options.onQuery;
  const log = onQuery ? (event: LogEvent) => { if (event.level === 'query') onQuery(event.query.sql); } : undefined;
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: openSqlite(file) }), log });
    return wrap('sqlite', db);
  }
  const poolConfig: pg.PoolConfig = { connectionString: url, max: options.poolSize ?? 10 };
  if (options.schema) poolConfig.options = `-c search_path=${options.schema}`;
  const pool = new pg.Pool(poolConfig);
  // An idle client that loses its connection emits 'error'; without a listener the process dies.
  pool.on('error', () => {});
  return wrap('postgres', new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log }));
}

function wrap(dialect: Dialect, db: Kysely<Schema>): Database {
  return {
    dialect,
    db,
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
  };
}

/** True when `error` is a unique-constraint violation from either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e?.code === '23505') return true; // PostgreSQL unique_violation
  return e?.code === 'ERR_SQLITE_ERROR' && typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed');
}

/** True when `error` is a foreign-key violation from either engine. */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  if (e?.code === '23503') return true;
  return e?.code === 'ERR_SQLITE_ERROR' && typeof e.message === 'string' && e.message.includes('FOREIGN KEY constraint failed');
}

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
  /** For /metrics: read at scrape time, so requests pay nothing for it. */
  stats(): DatabaseStats;
}

export interface DatabaseStats {
  /**
   * Failed statements and failed connection attempts since start. Constraint violations are
   * not counted: they are answers to clients (409, 422), not faults.
   */
  errors: number;
  /** PostgreSQL's connection pool now; null for SQLite, which has none. */
  pool: { total: number; idle: number; waiting: number } | null;
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
  const counters = { errors: 0 };
  const countError = (error: unknown) => {
    if (!isUniqueViolation(error) && !isForeignKeyViolation(error)) counters.errors += 1;
  };
  const log = (event: LogEvent) => {
    if (event.level === 'error') countError(event.error);
    else onQuery?.(event.query.sql);
  };
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: openSqlite(file) }), log });
    return wrap('sqlite', db, () => ({ errors: counters.errors, pool: null }));
  }
  const poolConfig: pg.PoolConfig = { connectionString: url, max: options.poolSize ?? 10 };
  if (options.schema) poolConfig.options = `-c search_path=${options.schema}`;
  const pool = new pg.Pool(poolConfig);
  // An idle client that loses its connection emits 'error'; without a listener the process dies.
  pool.on('error', countError);
  // Kysely logs failed statements only; a connection that could not be made fails before one.
  // (Kysely connects without a callback; pg's own pool.query passes one, left as it is.)
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient>;
  pool.connect = ((callback?: unknown) => {
    if (callback) return connect(callback);
    return connect().catch((error: unknown) => {
      countError(error);
      throw error;
    });
  }) as typeof pool.connect;
  const stats = () => ({ errors: counters.errors, pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } });
  return wrap('postgres', new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log }), stats);
}

function wrap(dialect: Dialect, db: Kysely<Schema>, stats: () => DatabaseStats): Database {
  return {
    dialect,
    db,
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
    stats,
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

// One query layer (Kysely) over two engines. The dialect is chosen by the URL alone.
import { Kysely, PostgresDialect, SqliteDialect, sql, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import { Generation, listeningFeed, sqliteFeed, watchWrites, type ChangeFeed } from './changes.ts';
import { readDirectly } from './direct-reads.ts';
import { openSqlite } from './sqlite.ts';
import type { Schema } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';
/** Anything a store can run a query on: the root handle or an open transaction. */
export type Queryable = Kysely<Schema> | Transaction<Schema>;

export interface Database {
  readonly dialect: Dialect;
  readonly db: Kysely<Schema>;
  /**
   * Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws.
   * `fn` may run more than once: PostgreSQL aborts one of two deadlocked transactions, and it is
   * run again (runAgainIfAborted). So `fn` changes nothing but the database.
   */
  transaction<T>(fn: (trx: Transaction<Schema>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** For /metrics: read at scrape time, so requests pay nothing for it. */
  stats(): DatabaseStats;
  /**
   * Pushes what the last writes replaced out of the places it could linger: SQLite copies its
   * write-ahead log into the database file (where secure_delete has zeroed the old content)
   * and truncates the log. A no-op on PostgreSQL, whose old row versions stay until VACUUM.
   * Call it after a write that turns a clear value secret.
   */
  scrub(): Promise<void>;
  /** When what authentication reads last changed, here or (PostgreSQL) on another instance: for caches. */
  readonly changes: ChangeFeed;
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

/**
 * Bounds on every PostgreSQL connection, so that a database that is down, overloaded or silent
 * costs a request a bounded wait and a 503, never a hang. Each can be overridden by a parameter
 * of the same name in HANGAR_DATABASE_URL (`?statement_timeout=0` turns one off).
 */
const POSTGRES_DEFAULTS = {
  /** Seconds to open a connection, or to wait for a free one in the pool (libpq's name). */
  connect_timeout: 10,
  /** Milliseconds one statement may run before PostgreSQL cancels it. */
  statement_timeout: 30_000,
  /**
   * Milliseconds a session may sit idle inside a transaction before PostgreSQL ends it. Hangar
   * never waits on anything else mid-transaction, so only a stuck client gets there, and
   * ending it releases the row locks it holds.
   */
  idle_in_transaction_session_timeout: 60_000,
  /** Names Hangar's sessions in pg_stat_activity. */
  application_name: 'hangar',
} as const;

/** How much longer than statement_timeout Hangar waits for any answer before giving up on the connection. */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;

function postgresPoolConfig(url: string, options: DatabaseOptions): pg.PoolConfig {
  let params = new URLSearchParams();
  try {
    params = new URL(url).searchParams;
  } catch {
    // pg reports a malformed URL itself when it first connects.
  }
  const number = (name: string, fallback: number) => {
    const value = Number(params.get(name) ?? Number.NaN);
    return Number.isFinite(value) && value >= 0 ? value : fallback;
  };
  const statementTimeout = number('statement_timeout', POSTGRES_DEFAULTS.statement_timeout);
  const config: pg.PoolConfig = {
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: number('connect_timeout', POSTGRES_DEFAULTS.connect_timeout) * 1000,
    // A peer that vanished without closing the connection (a crashed host, a dropped route)
    // is noticed by the kernel's keepalive probes, starting after 10 s of silence.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Parameters given in the URL win over these (pg reads the URL last).
    application_name: POSTGRES_DEFAULTS.application_name,
    statement_timeout: statementTimeout,
    idle_in_transaction_session_timeout: POSTGRES_DEFAULTS.idle_in_transaction_session_timeout,
    // statement_timeout is enforced by the server; a server that stops answering altogether
    // (hung, or a silent network) is caught here on the client.
    query_timeout: statementTimeout > 0 ? statementTimeout + QUERY_TIMEOUT_MARGIN_MS : undefined,
  };
  if (options.schema) config.options = `-c search_path=${options.schema}`;
  return config;
}

function openPostgres(config: pg.PoolConfig, onError: (error: unknown) => void): pg.Pool {
  const pool = new pg.Pool(config);
  // A client whose connection dies emits 'error', and an 'error' nobody listens to ends the
  // process. The pool listens on idle clients only, so every client gets its own listener: a
  // connection PostgreSQL drops under a request (restart, failover, pg_terminate_backend) then
  // fails just that request's query, and the pool replaces the client once it is released.
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', ignore);
    // After query_timeout pg fails the query but leaves it running on the connection, where the
    // next request's queries would queue behind it. Ending the client closes the connection,
    // so the pool discards it on release instead of handing it out again.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let prepared = 0;
    client.query = ((...args: unknown[]) => {
      // Kysely sends (text, values). Each statement shape is parsed and planned once per
      // connection as a named prepared statement, not at every execution.
      if (args.length === 2 && typeof args[0] === 'string' && Array.isArray(args[1])) {
        const name = statementName(args[0]);
        const parsed =
          name !== null && (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements[name] !== undefined;
        if (name !== null && (parsed || prepared < PREPARED_PER_CONNECTION)) {
          if (!parsed) prepared += 1;
          args = [{ name, text: args[0], values: args[1] }];
        }
      }
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((e: unknown) => {
          if ((e as Error)?.message === QUERY_READ_TIMEOUT) void client.end();
        });
      }
      return result;
    }) as typeof client.query;
  });
  // Kysely logs failed statements only; a connection that could not be made fails before one.
  // (Kysely connects without a callback; pg's own pool.query passes one, left as it is.)
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient>;
  pool.connect = ((callback?: unknown) => {
    if (callback) return connect(callback);
    return connect().catch((error: unknown) => {
      onError(error);
      if (error !== null && typeof error === 'object') CONNECT_FAILURES.add(error);
      throw error;
    });
  }) as typeof pool.connect;
  return pool;
}

const ignore = () => {};

/**
 * Errors met while getting a connection. Whatever PostgreSQL said (the database does not allow
 * connections now, no longer exists, the role may not log in, too many connections), the
 * request asked for nothing wrong and the same request may succeed once the database lets Hangar
 * in again: each is "unavailable", however its SQLSTATE would read on a query.
 */
const CONNECT_FAILURES = new WeakSet<object>();

/** Statement shapes kept prepared on one PostgreSQL connection at most; later new shapes run unnamed. */
const PREPARED_PER_CONNECTION = 500;
/** Statement text → its prepared statement's name, for this process (bounded: shapes are few, IN lists aside). */
const STATEMENT_NAMES = new Map<string, string>();
const MAX_STATEMENT_NAMES = 2_000;
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** The name to prepare `text` under, or null to run it unnamed (DDL, transaction control, too many shapes). */
function statementName(text: string): string | null {
  const known = STATEMENT_NAMES.get(text);
  if (known) return known;
  if (STATEMENT_NAMES.size >= MAX_STATEMENT_NAMES || !PREPARABLE.test(text)) return null;
  const name = `hangar_${STATEMENT_NAMES.size}`;
  STATEMENT_NAMES.set(text, name);
  return name;
}
const QUERY_READ_TIMEOUT = 'Query read timeout';

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
  const generation = new Generation();
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const sqlite = openSqlite(file);
    const feed = sqliteFeed(generation, () => (sqlite.prepare('PRAGMA data_version').all([])[0] as { data_version: number }).data_version);
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }), log, plugins: [watchWrites(generation, feed.answered)] });
    readDirectly(db, (query) => {
      // Another request's transaction holds the connection: wait for it, as Kysely would. Out of
      // one, the statement runs to completion before anything else can touch the connection.
      if (sqlite.inTransaction) return db.executeQuery(query).then((r) => r.rows);
      try {
        const rows = sqlite.prepare(query.sql).all(query.parameters) as never[];
        onQuery?.(query.sql);
        return rows;
      } catch (error) {
        countError(error);
        throw error;
      }
    });
    return wrap('sqlite', db, () => ({ errors: counters.errors, pool: null }), generation, feed);
  }
  const config = postgresPoolConfig(url, options);
  const pool = openPostgres(config, countError);
  const stats = () => ({ errors: counters.errors, pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } });
  const feed = listeningFeed(generation, config, countError);
  const plugins = [watchWrites(generation, feed.answered)];
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log, plugins });
  readDirectly(db, async (query) => {
    // pool.connect, then client.query(text, values): the same path as Kysely's, named statements included.
    const client = await pool.connect();
    try {
      const { rows } = await client.query(query.sql, query.parameters as unknown[]);
      feed.answered();
      onQuery?.(query.sql);
      return rows as never[];
    } catch (error) {
      countError(error);
      throw error;
    } finally {
      client.release();
    }
  });
  return wrap('postgres', db, stats, generation, feed);
}

/**
 * SQLSTATEs of a transaction PostgreSQL aborted for what others did at the same moment, not for
 * anything wrong with it: a deadlock (two renames swapping names wait on each other's entry in
 * the unique index of names, and no lock order can prevent that) and a serialization failure.
 */
const ABORTED_BY_OTHERS = new Set(['40P01', '40001']);
const abortedByOthers = (error: unknown) => ABORTED_BY_OTHERS.has((error as { code?: string } | null)?.code ?? '');
const TRANSACTION_ATTEMPTS = 3;

/**
 * Runs a transaction again when PostgreSQL aborted it for a conflict with another one: by then
 * the other has finished, so the next attempt sees its outcome (a name now taken answers 422,
 * as if the two had come one after the other). Everything a transaction does is in the database
 * and was rolled back, so running its function again is safe. Past the last attempt the error
 * stands, and is answered 503 (isDatabaseUnavailable).
 */
async function runAgainIfAborted<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !abortedByOthers(error)) throw error;
    }
  }
}

function wrap(dialect: Dialect, db: Kysely<Schema>, stats: () => DatabaseStats, generation: Generation, changes: ChangeFeed): Database {
  return {
    dialect,
    db,
    transaction: async (fn) => {
      const before = generation.value;
      const result = await runAgainIfAborted(() => db.transaction().execute(fn));
      // A watched write committed just now: what was loaded while it was pending is old.
      if (generation.value !== before) generation.bump();
      return result;
    },
    close: async () => {
      await changes.close();
      await db.destroy();
    },
    changes,
    stats,
    scrub: async () => {
      if (dialect === 'sqlite') await sql`pragma wal_checkpoint(truncate)`.execute(db);
    },
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

/** Node's socket errors that mean the database server could not be reached or went away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** What pg, pg-pool and Kysely say, without a code, when a connection is lost or cannot be had. */
const LOST_CONNECTION = [
  'Connection terminated', // also "… unexpectedly" and "… due to connection timeout"
  'timeout exceeded when trying to connect', // no free client in the pool in time
  'timeout expired', // connecting, when pg's own timer fires
  QUERY_READ_TIMEOUT,
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Postgres connection has been discarded',
];

/**
 * True when `error` means the database could not serve the query now, though it may in a
 * moment: a lost or refused connection, a timeout, a server shutting down or overloaded, or
 * SQLite busy past its timeout. Such a request is answered 503 with Retry-After (jsonapi's
 * error handler), not 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (CONNECT_FAILURES.has(e)) return true;
  const code = typeof e.code === 'string' ? e.code : '';
  // SQLSTATE: connection exceptions (08…), admin/crash shutdown, starting up, idle-session
  // ends (57P0x), statement timeout (57014), idle-in-transaction timeout (25P03), and
  // insufficient resources such as too many connections (53…).
  if (/^(08...|57P0[1235]|57014|25P03|53...)$/.test(code)) return true;
  // A transaction aborted by a deadlock or a serialization failure that ran out of attempts.
  if (abortedByOthers(e)) return true;
  if (NETWORK_CODES.has(code)) return true;
  // node:sqlite: SQLITE_BUSY (and its extended codes) after busy_timeout, and SQLITE_LOCKED.
  if (code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' && [5, 6].includes(e.errcode & 0xff)) return true;
  if (typeof e.message === 'string' && LOST_CONNECTION.some((m) => (e.message as string).startsWith(m))) return true;
  // Node tries every address of a host name and reports them together.
  return Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable);
}

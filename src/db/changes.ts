// Knowing when what authentication and authorization read has changed, so that it may be cached
// without ever being stale: a generation number that moves on every write to the tables behind a
// caller's identity and rights (tokens, users, organizations, teams, memberships, project and
// workspace grants, agent pools, policy sets).
//
// - This process's own writes move it at once: a Kysely plugin sees every insert, update and
//   delete on a watched table, before it runs and again after, and a transaction that wrote one
//   moves it once more when it commits (a reader that loaded the old rows in between must not
//   keep them). The plugin sees statements, not cascades: deleting a project or a workspace
//   (unwatched) drops its team grants unseen here, which is harmless because every lookup of
//   grants starts from the project or workspace row, never cached, so grants of one that is gone
//   are never asked for. Deleting an organization or a team is itself watched.
// - Other processes' writes (PostgreSQL) arrive by LISTEN/NOTIFY: statement-level triggers on the
//   same tables (migrations 0012 and 0035) notify `hangar_auth` on commit, cascaded deletes
//   included (PostgreSQL runs a cascade as a statement on the referencing table, which fires its
//   triggers). While the listening connection is not established, nothing may be cached at all
//   (`current()` is null), so a lost connection can delay nothing, only cost queries.
// - SQLite is served by one process, but the `hangar` commands write to the same file: the server
//   reads SQLite's count of other connections' commits at most once a second (sqliteFeed).
//
// Whole caches are dropped on any such write: writes to these tables are rare next to reads, and
// dropping everything cannot miss a dependency (a cascade, a new rule reading another column).
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import pg from 'pg';

/** The tables whose rows decide who a caller is and what it may do. */
export const WATCHED_TABLES: ReadonlySet<string> = new Set([
  'auth_tokens',
  'users',
  'organizations',
  'teams',
  'team_memberships',
  'team_projects',
  'team_workspaces',
  'agent_pools',
  // Not a right, but where every request on a set and its parameters starts (policy-sets/service.ts).
  'policy_sets',
]);

/** Columns whose writes change nothing a cache holds: `auth_tokens.last_used_at` is bookkeeping. */
const UNWATCHED_COLUMNS: Readonly<Record<string, ReadonlySet<string>>> = { auth_tokens: new Set(['last_used_at']) };

export const NOTIFY_CHANNEL = 'hangar_auth';

export interface ChangeFeed {
  /** The generation to stamp a cache entry with, or null: nothing may be cached now. */
  current(): number | null;
  /** Marks everything cached so far as stale. */
  bump(): void;
  /** Told when a query has succeeded: the database is there to listen to. */
  answered(): void;
  close(): Promise<void>;
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.kind === 'TableNode') return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  if (node.kind === 'AliasNode') return tableName((node as unknown as { node: OperationNode }).node);
  return undefined;
}

function columnName(node: OperationNode): string | undefined {
  return node.kind === 'ColumnNode' ? (node as unknown as { column: { name: string } }).column.name : undefined;
}

/** The watched table a root query node writes, if any. */
export function writtenTable(node: RootOperationNode): string | undefined {
  let table: string | undefined;
  if (node.kind === 'InsertQueryNode') table = tableName(node.into);
  else if (node.kind === 'DeleteQueryNode') table = tableName(node.from.froms[0]);
  else if (node.kind === 'UpdateQueryNode') {
    table = tableName(node.table);
    const unwatched = table ? UNWATCHED_COLUMNS[table] : undefined;
    if (unwatched && node.updates?.every((u) => unwatched.has(columnName(u.column) ?? ''))) return undefined;
  } else if (node.kind === 'RawNode') {
    // Raw SQL is not inspected; treat a raw write as touching everything (there are none on the hot path).
    const text = (node as unknown as { sqlFragments: readonly string[] }).sqlFragments.join(' ').trimStart().toLowerCase();
    if (/^(insert|update|delete|with)\b/.test(text)) return '*';
    return undefined;
  }
  return table && WATCHED_TABLES.has(table) ? table : undefined;
}

export class Generation {
  #value = 0;
  get value(): number {
    return this.#value;
  }
  bump(): void {
    this.#value += 1;
  }
}

/** The Kysely plugin that moves the generation on this process's writes to watched tables. */
export function watchWrites(generation: Generation, answered: () => void): KyselyPlugin {
  const writes = new WeakSet<object>();
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (writtenTable(args.node) !== undefined) {
        writes.add(args.queryId);
        generation.bump();
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (writes.has(args.queryId)) generation.bump();
      answered();
      return args.result;
    },
  };
}

/** How long a SQLite server trusts its caches before it looks for other processes' commits. */
export const SQLITE_LOOK_MS = 1000;

/**
 * SQLite: this process's writes, and other processes' (the `hangar` commands: a new site admin,
 * a new token). SQLite counts the commits other connections make to the file (`dataVersion`,
 * PRAGMA data_version, a few microseconds); a cache that asks for the generation more than
 * SQLITE_LOOK_MS after the last look makes it look again, and any change, or a failure to read
 * the count, marks everything stale. Looking on demand rather than on a timer costs an idle
 * server nothing (waking one costs about a millisecond of CPU here), and the first request after
 * a pause sees what changed meanwhile. Commits are not told apart by table: other processes
 * write rarely.
 */
export function sqliteFeed(generation: Generation, dataVersion: () => number): ChangeFeed {
  let seen: number | null = null;
  let lookedAt = -Infinity;
  const look = () => {
    lookedAt = Date.now();
    try {
      const version = dataVersion();
      if (seen !== null && version !== seen) generation.bump();
      seen = version;
    } catch {
      seen = null;
      generation.bump();
    }
  };
  return {
    current: () => {
      if (Date.now() - lookedAt >= SQLITE_LOOK_MS) look();
      return generation.value;
    },
    bump: () => generation.bump(),
    answered: () => {},
    close: async () => {},
  };
}

/**
 * PostgreSQL: this process's writes, and every instance's through LISTEN. The listening
 * connection is opened on first use (CLI commands never use a cache) and reopened when lost.
 */
export function listeningFeed(generation: Generation, config: pg.ClientConfig, onError: (error: unknown) => void): ChangeFeed {
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  // Not before the database has answered a query: a database that is down or silent is the pool's
  // to report and retry, and no second connection should knock on it meanwhile.
  let reachable = false;

  const lost = (error?: unknown) => {
    if (error) onError(error);
    listening = false;
    generation.bump();
    const c = client;
    client = null;
    c?.removeAllListeners();
    c?.on('error', () => {});
    void c?.end().catch(() => {});
    if (!closed && !retry) {
      retry = setTimeout(() => {
        retry = null;
        reachable = false;
        start();
      }, 1000);
      retry.unref();
    }
  };

  function start() {
    if (closed || client) return;
    const c = new pg.Client({ ...config, statement_timeout: undefined, query_timeout: undefined });
    client = c;
    c.on('notification', () => generation.bump());
    c.on('error', lost);
    c.on('end', () => {
      if (client === c) lost();
    });
    c.connect()
      .then(() => c.query(`LISTEN ${NOTIFY_CHANNEL}`))
      .then(() => {
        if (client !== c) return;
        // Anything may have changed while nobody listened.
        generation.bump();
        listening = true;
        // The open connection must not keep a process alive that is otherwise done.
        (c as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      })
      .catch((error: unknown) => {
        if (client === c) lost(error);
      });
  }

  return {
    current() {
      if (!listening) {
        if (reachable) start();
        return null;
      }
      return generation.value;
    },
    bump: () => generation.bump(),
    answered: () => {
      reachable = true;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      listening = false;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}

/**
 * A map whose entries live until the next change of the generation, bounded in size (oldest
 * first out). Loads that overlap a change are served but not kept.
 */
export class GenerationCache<V> {
  readonly #feed: ChangeFeed;
  readonly #max: number;
  #stamp = -1;
  readonly #entries = new Map<string, V>();

  constructor(feed: ChangeFeed, max: number) {
    this.#feed = feed;
    this.#max = max;
  }

  /** The cached value if it is current, else undefined. */
  peek(key: string): V | undefined {
    const now = this.#feed.current();
    if (now === null) return undefined;
    if (now !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = now;
      return undefined;
    }
    return this.#entries.get(key);
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const before = this.#feed.current();
    const value = await load();
    if (before !== null && this.#feed.current() === before && value !== undefined) {
      if (this.#stamp !== before) {
        this.#entries.clear();
        this.#stamp = before;
      }
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, value);
    }
    return value;
  }
}

/**
 * Rows by id until the next change of the generation, for a domain whose every request starts by
 * reading one (a policy set, an agent pool): a deletion or a change is seen at once on this
 * instance and within a second on every other. The rows are shared between requests, so frozen;
 * a write reads its row again under its lock. A missing row is cached as missing too.
 */
export function rowsByIdUntilChange<T extends object>(feed: ChangeFeed, load: (id: string) => Promise<T | undefined>, max = 10_000) {
  const cache = new GenerationCache<Readonly<T> | null>(feed, max);
  return async (id: string): Promise<Readonly<T> | undefined> =>
    (await cache.get(id, async () => {
      const row = await load(id);
      return row ? Object.freeze(row) : null;
    })) ?? undefined;
}

// Runs a suite against every configured database: SQLite always, PostgreSQL when
// HANGAR_TEST_POSTGRES_URL is set. Each suite gets its own SQLite file or PostgreSQL schema.
import { after, before, describe } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { scratchPostgres } from './postgres.ts';
import { buildApp, REDACTED_LOG_PATHS, type Api, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openKeyring } from '../../src/crypto/keys.ts';
import { createServices, type Services } from '../../src/services.ts';
import { openDatabase, type Database, type Dialect } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { randomBase62 } from '../../src/ids.ts';

export const POSTGRES_URL = process.env.HANGAR_TEST_POSTGRES_URL;

export function dialects(): Dialect[] {
  return POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  raw: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** A scratch database of one dialect, removed by `drop()`. */
export async function scratchDatabase(dialect: Dialect, onQuery?: (sql: string) => void): Promise<{ url: string; database: Database; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-test-'));
    const url = `sqlite:${path.join(dir, 'hangar.db')}`;
    const database = openDatabase(url, { onQuery });
    return {
      url,
      database,
      drop: async () => {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = await scratchPostgres(POSTGRES_URL!);
  const database = openDatabase(scratch.url, { onQuery });
  return {
    url: scratch.url,
    database,
    drop: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

export class TestContext {
  readonly dialect: Dialect;
  app!: Api;
  /** The services the app serves, to set up state without HTTP. */
  services!: Services;
  database!: Database;
  config!: Config;
  /** Every log line the app wrote, for secret-leak assertions. */
  logs = '';
  /** This context's own HANGAR_DATA_DIR (generated keys land here); removed by stop(). */
  dataDir = '';
  /** How many SQL statements have run so far (see countQueries). */
  queries = 0;
  /** The text of each statement while `statementsOf` records. */
  #recording: string[] | null = null;
  #drop!: () => Promise<void>;
  /** Set before start(): sees every response payload before it is serialized (see AppOptions). */
  inspectPayload?: AppOptions['inspectPayload'];

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  async start(env: Record<string, string> = {}): Promise<void> {
    const scratch = await scratchDatabase(this.dialect, (text) => {
      this.queries += 1;
      this.#recording?.push(text);
    });
    this.database = scratch.database;
    this.#drop = scratch.drop;
    await migrateToLatest(this.database);
    this.dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-data-'));
    // PostgreSQL refuses to start without a configured key, as in production.
    const key = this.dialect === 'postgres' ? { HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') } : {};
    // Suites fire requests far faster than 30 a second from one token: limits are off unless
    // a suite turns them on (rate-limits.test.ts).
    this.config = { ...loadConfig({ HANGAR_DATA_DIR: this.dataDir, HANGAR_RATE_LIMIT: '0', ...key, ...env }), databaseUrl: scratch.url };
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        this.logs += chunk.toString();
        done();
      },
    });
    this.services = createServices(this.database, { keyring: await openKeyring(this.config, this.database), blobDir: this.config.blobDir });
    // Log everything (debug included) so leak tests see the most the app could ever write.
    this.app = await buildApp({
      config: this.config,
      database: this.database,
      logger: { level: 'debug', stream: sink, redact: REDACTED_LOG_PATHS },
      services: this.services,
      inspectPayload: this.inspectPayload,
    });
    await this.app.ready();
  }

  /** The number of SQL statements `fn` caused (run nothing else meanwhile). */
  async countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
    const before = this.queries;
    const result = await fn();
    return { result, queries: this.queries - before };
  }

  /** The SQL text of each statement `fn` caused (run nothing else meanwhile). */
  async statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    this.#recording = statements;
    try {
      return { result: await fn(), statements };
    } finally {
      this.#recording = null;
    }
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.#drop?.();
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  async request(method: string, url: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (options.contentType !== null && (payload !== undefined || options.contentType)) {
      headers['content-type'] = options.contentType ?? 'application/vnd.api+json';
    }
    const res = await this.app.inject({ method: method as 'GET', url, headers, payload });
    let body: unknown = undefined;
    if (res.body) {
      try {
        body = JSON.parse(res.body);
      } catch {
        body = res.body;
      }
    }
    return { status: res.statusCode, headers: res.headers, body, raw: res.body };
  }

  get = (url: string, token?: string | null) => this.request('GET', url, { token });
  post = (url: string, token: string | null, body?: unknown) => this.request('POST', url, { token, body });
  patch = (url: string, token: string | null, body?: unknown) => this.request('PATCH', url, { token, body });
  delete = (url: string, token: string | null, body?: unknown) => this.request('DELETE', url, { token, body });

  /** A new user straight through the service layer, with an API token. */
  async user(options: { siteAdmin?: boolean; name?: string } = {}): Promise<{ id: string; username: string; token: string }> {
    const username = options.name ?? unique('user');
    const user = await this.services.users.create({ username, email: `${username}@example.test`, isSiteAdmin: options.siteAdmin });
    const { secret } = await this.services.tokens.issueUserToken(user.id, 'test');
    return { id: user.id, username, token: secret };
  }

  /** A new organization owned by a new user. */
  async organization(): Promise<{ name: string; owner: { id: string; username: string; token: string }; defaultProjectId: string }> {
    const owner = await this.user();
    const name = unique('org');
    const res = await this.post('/api/v2/organizations', owner.token, {
      data: { type: 'organizations', attributes: { name, email: `${name}@example.test` } },
    });
    if (res.status !== 201) throw new Error(`organization create failed: ${res.status} ${res.raw}`);
    return { name, owner, defaultProjectId: res.body.data.relationships['default-project'].data.id };
  }

  /**
   * A new user on a new team of `org` holding `access` (organization-access flags).
   * Returns the user and the team id.
   */
  async member(org: { name: string; owner: { token: string } }, access: Record<string, boolean> = {}) {
    const user = await this.user();
    const team = await this.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: unique('team'), 'organization-access': access } },
    });
    if (team.status !== 200) throw new Error(`team create failed: ${team.status} ${team.raw}`);
    const add = await this.post(`/api/v2/teams/${team.body.data.id}/relationships/users`, org.owner.token, {
      data: [{ type: 'users', id: user.username }],
    });
    if (add.status !== 204) throw new Error(`team membership failed: ${add.status} ${add.raw}`);
    return { ...user, teamId: team.body.data.id as string };
  }
}

let counter = 0;
/** A name no other test uses: letters, digits and `-` only, valid for every Hangar name rule. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${randomBase62(6)}`;
}

/** Declares `fn`'s tests once per database; `ctx` is ready inside the tests. */
export function suite(title: string, fn: (ctx: TestContext) => void, env: Record<string, string> = {}): void {
  for (const dialect of dialects()) {
    describe(`${title} [${dialect}]`, () => {
      const ctx = new TestContext(dialect);
      before(() => ctx.start(env));
      after(() => ctx.stop());
      fn(ctx);
    });
  }
}

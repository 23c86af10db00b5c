// A database that is down, silent or drops connections: requests get 503 with Retry-After (never
// 500, never a hang), the process stays up, later requests use fresh connections, and start-up
// fails with one line naming HANGAR_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp, type Api } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Keyring } from '../src/crypto/keyring.ts';
import { isDatabaseUnavailable, openDatabase, type Database } from '../src/db/index.ts';
import { assertError } from './helpers/assert.ts';
import { POSTGRES_URL, TestContext, unique, type Response } from './helpers/harness.ts';
import { hangarAsync } from './helpers/process.ts';

/**
 * A TCP server on a free port. With `greet` unset it accepts connections and never says a word;
 * `greet` may answer each new connection first. Counts connections, and notices them closing.
 */
async function tcpServer(greet?: (socket: net.Socket) => void) {
  let opened = 0;
  let closed = 0;
  const waiting: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    opened += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      closed += 1;
      sockets.delete(socket);
      waiting.splice(0).forEach((f) => f());
    });
    greet?.(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get opened() {
      return opened;
    },
    /** Resolves once `n` connections have been closed (by the client: this server closes none). */
    closedAtLeast: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (closed >= n ? resolve() : waiting.push(check));
        check();
      }),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Speaks just enough of PostgreSQL's protocol to complete a connection (authentication ok, ready
 * for query), then never answers a query.
 */
const stalledPostgres = () =>
  tcpServer((socket) =>
    socket.once('data', () => {
      // AuthenticationOk ('R', length 8, code 0), then ReadyForQuery ('Z', length 5, idle).
      socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]));
    }),
  );

/** An app on `url`, with a keyring of its own (so building it queries nothing). */
async function appOn(url: string): Promise<{ app: Api; database: Database }> {
  const database = openDatabase(url);
  const config = { ...loadConfig({ HANGAR_DATA_DIR: tmpdir(), HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') }), databaseUrl: url };
  const app = await buildApp({ config, database, logger: false, keyring: new Keyring([randomBytes(32)]) });
  return { app, database };
}

const TOKEN = `${'a'.repeat(14)}.atlasv1.${'b'.repeat(67)}`;

/** A request that needs the database: authenticating the token is a query. */
async function listOrganizations(app: Api): Promise<Response> {
  const res = await app.inject({ method: 'GET', url: '/api/v2/organizations', headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body), raw: res.body };
}

function assertUnavailable(res: Response) {
  const error = assertError(res, 503);
  assert.equal(error.title, 'service unavailable');
  assert.equal(res.headers['retry-after'], '1');
  return error;
}

describe('a PostgreSQL server that accepts connections and never answers', () => {
  it('fails start-up within the connect timeout, with one line naming HANGAR_DATABASE_URL', { timeout: 40_000 }, async () => {
    const silent = await tcpServer();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-silent-'));
    try {
      const r = await hangarAsync(['serve'], {
        HANGAR_DATA_DIR: dataDir,
        HANGAR_PORT: '0',
        HANGAR_DATABASE_URL: `postgres://hangar@127.0.0.1:${silent.port}/hangar?connect_timeout=1`,
        HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
      assert.equal(r.status, 1, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /^error: PostgreSQL at 127\.0\.0\.1:\d+ did not answer in time; .*HANGAR_DATABASE_URL$/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await silent.close();
    }
  });

  it('answers requests that need it 503 with Retry-After once the connect timeout passes', { timeout: 20_000 }, async () => {
    const silent = await tcpServer();
    const { app, database } = await appOn(`postgres://hangar@127.0.0.1:${silent.port}/hangar?connect_timeout=1`);
    try {
      const error = assertUnavailable(await listOrganizations(app));
      assert.doesNotMatch(JSON.stringify(error), /hangar@|127\.0\.0\.1|timeout/, 'the answer says nothing about the database');
      // What needs no database still answers.
      assert.equal((await app.inject({ method: 'GET', url: '/api/v2/ping' })).statusCode, 204);
    } finally {
      await app.close();
      await database.close();
      await silent.close();
    }
  });

  it('gives up on a connection that stops answering mid-query and opens a fresh one', { timeout: 20_000 }, async () => {
    const stalled = await stalledPostgres();
    // query_timeout is derived from statement_timeout; the URL may also set it directly.
    const { app, database } = await appOn(`postgres://hangar@127.0.0.1:${stalled.port}/hangar?query_timeout=300`);
    try {
      assertUnavailable(await listOrganizations(app));
      // Hangar closed the stalled connection instead of queueing the next request behind it.
      await stalled.closedAtLeast(1);
      assertUnavailable(await listOrganizations(app));
      assert.equal(stalled.opened, 2, 'the second request used a new connection');
    } finally {
      await app.close();
      await database.close();
      await stalled.close();
    }
  });
});

describe('SQLite busy past its timeout', () => {
  const ctx = new TestContext('sqlite');
  before(() => ctx.start());
  after(() => ctx.stop());

  it('answers 503 with Retry-After while another process holds the write lock, and works after', async () => {
    const org = await ctx.organization();
    const other = new DatabaseSync(ctx.config.databaseUrl.slice('sqlite:'.length));
    other.exec('BEGIN IMMEDIATE');
    let res: Response;
    try {
      res = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, { data: { type: 'teams', attributes: { name: 'blocked' } } });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    assertUnavailable(res);
    const again = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, { data: { type: 'teams', attributes: { name: 'blocked' } } });
    assert.equal(again.status, 200, again.raw);
  });
});

describe("PostgreSQL terminating Hangar's connections", { skip: !POSTGRES_URL && 'needs HANGAR_TEST_POSTGRES_URL' }, () => {
  const ctx = new TestContext('postgres');
  let admin: pg.Client;
  before(async () => {
    await ctx.start();
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await ctx.stop();
  });

  /** The backends waiting for a lock that `holder` holds. */
  async function blockedBy(holder: pg.Client): Promise<number[]> {
    const pid = (holder as unknown as { processID: number }).processID;
    for (;;) {
      const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid]);
      if (rows.length > 0) return rows.map((r) => r.pid);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('names its sessions and bounds their statements and idle transactions', async () => {
    const { rows } = await sql<Record<string, string>>`
      select current_setting('application_name') as app, current_setting('statement_timeout') as statement,
             current_setting('idle_in_transaction_session_timeout') as idle`.execute(ctx.database.db);
    assert.deepEqual(rows[0], { app: 'hangar', statement: '30s', idle: '1min' });
  });

  it('answers 503 with Retry-After to the request whose connection was terminated, then serves the next', async () => {
    const org = await ctx.organization();
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.database.db)).rows[0]!.s;
    const locker = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query(`lock table ${schema}.teams in access exclusive mode`);
      const body = { data: { type: 'teams', attributes: { name: unique('t') } } };
      const pending = ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, body);
      for (const pid of await blockedBy(locker)) await admin.query('select pg_terminate_backend($1, 10000)', [pid]);
      await locker.query('rollback');
      assertUnavailable(await pending);
    } finally {
      await locker.end();
    }
    // The process is still here, and the next request gets a working connection.
    const next = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, { data: { type: 'teams', attributes: { name: unique('t') } } });
    assert.equal(next.status, 200, next.raw);
  });

  it('fails a transaction whose connection dies between two statements, and recovers', async () => {
    const error = await ctx.database
      .transaction(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // Ended while idle in the transaction: pg emits 'error' on a client no query is waiting on.
        await admin.query('select pg_terminate_backend($1, 10000)', [rows[0]!.pid]);
        await new Promise((r) => setTimeout(r, 100));
        await trx.selectFrom('teams').select('id').execute();
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(error, 'the transaction failed');
    assert.ok(isDatabaseUnavailable(error), `classified as unavailable: ${String(error)}`);
    const rows = await ctx.database.db.selectFrom('teams').select('id').execute();
    assert.ok(Array.isArray(rows));
  });
});

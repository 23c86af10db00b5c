// A database that refuses Hangar's connections, whatever the reason, is unavailable: every API
// request that needs it answers 503 with Retry-After (as /readyz does), not 500, and the same
// requests succeed again once it accepts connections.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp, type Api } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Keyring } from '../src/crypto/keyring.ts';
import { openDatabase, type Database } from '../src/db/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createServices } from '../src/services.ts';
import { POSTGRES_URL } from './helpers/harness.ts';
import { freePort } from './helpers/redis.ts';

async function appOn(url: string, poolSize?: number): Promise<{ app: Api; database: Database }> {
  const database = openDatabase(url, { poolSize });
  const config = { ...loadConfig({ HANGAR_DATA_DIR: tmpdir(), HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') }), databaseUrl: url };
  const app = await buildApp({ config, database, logger: false, keyring: new Keyring([randomBytes(32)]) });
  return { app, database };
}

async function get(app: Api, url: string, token: string) {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.body };
}

function assertUnavailable(res: { status: number; retryAfter: unknown; body: string }) {
  assert.equal(res.status, 503, res.body);
  assert.equal(res.retryAfter, '1');
  assert.equal(JSON.parse(res.body).errors[0].title, 'service unavailable');
}

describe('PostgreSQL refusing connections', { skip: !POSTGRES_URL && 'needs HANGAR_TEST_POSTGRES_URL' }, () => {
  const name = `hangar_refuse_${randomBytes(6).toString('hex')}`;
  const role = `hangar_role_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client;
  let url: string;
  let token: string;
  let app: Api;
  let database: Database;
  before(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create role ${role} login`);
    await admin.query(`create database ${name} owner ${role}`);
    const u = new URL(POSTGRES_URL!);
    u.pathname = `/${name}`;
    u.username = role;
    url = u.toString();
    ({ app, database } = await appOn(url));
    await migrateToLatest(database);
    const services = createServices(database);
    const user = await services.users.ensureSiteAdmin('admin');
    token = (await services.tokens.issueUserToken(user.id, 'test')).secret;
    assert.equal((await get(app, '/api/v2/account/details', token)).status, 200);
  });
  after(async () => {
    await app?.close();
    await database?.close();
    await admin.query(`alter database ${name} allow_connections true`).catch(() => {});
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`drop role if exists ${role}`);
    await admin.end();
  });

  // With a timeout, pg_terminate_backend waits until each session has ended.
  const terminate = () => admin.query('select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = $1', [name]);
  /**
   * Once the database lets Hangar in again: a pooled connection that was terminated while idle
   * may fail one more request (503, safe to retry) before the pool replaces it; then 200.
   */
  const recovers = async (target = () => app) => {
    for (let attempt = 1; ; attempt++) {
      const res = await get(target(), '/api/v2/account/details', token);
      if (res.status === 200) return;
      assertUnavailable(res);
      assert.ok(attempt < 12, 'answered 200 again within a few requests');
    }
  };

  it("ALLOW_CONNECTIONS false with Hangar's sessions terminated: 503 with Retry-After, then 200 once allowed", async () => {
    await admin.query(`alter database ${name} allow_connections false`);
    await terminate();
    try {
      for (let i = 0; i < 3; i++) assertUnavailable(await get(app, '/api/v2/account/details', token));
      assertUnavailable(await get(app, '/api/v2/organizations', token));
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
    }
    await recovers();
  });

  it('the role may no longer log in: 503, then 200 once it may', async () => {
    await admin.query(`alter role ${role} nologin`);
    await terminate();
    try {
      assertUnavailable(await get(app, '/api/v2/account/details', token));
    } finally {
      await admin.query(`alter role ${role} login`);
    }
    await recovers();
  });

  it('too many connections for the role: 503, then 200', async () => {
    await admin.query(`alter role ${role} connection limit 0`);
    await terminate();
    try {
      assertUnavailable(await get(app, '/api/v2/account/details', token));
    } finally {
      await admin.query(`alter role ${role} connection limit -1`);
    }
    await recovers();
  });

  it('no free connection in the pool within the connect timeout: 503, then 200', async () => {
    const u = new URL(url);
    u.searchParams.set('connect_timeout', '1');
    const small = await appOn(u.toString(), 1);
    try {
      // The pool's only connection is busy for longer than a request may wait for it. The request
      // goes once the transaction holds it: on a loaded machine, opening that first connection
      // can take longer than any fixed pause, and the request would take the connection first.
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const busy = small.database.transaction(async (trx) => {
        holding();
        await sql`select pg_sleep(3)`.execute(trx);
      });
      await held;
      assertUnavailable(await get(small.app, '/api/v2/account/details', token));
      await busy;
      assert.equal((await get(small.app, '/api/v2/account/details', token)).status, 200);
    } finally {
      await small.app.close();
      await small.database.close();
    }
  });

  it('the database was dropped under it: 503', async () => {
    const other = `hangar_gone_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${other} owner ${role}`);
    const u = new URL(url);
    u.pathname = `/${other}`;
    const gone = await appOn(u.toString());
    try {
      await migrateToLatest(gone.database);
      await admin.query(`drop database ${other} with (force)`);
      assertUnavailable(await get(gone.app, '/api/v2/account/details', token));
    } finally {
      await gone.app.close();
      await gone.database.close();
      await admin.query(`drop database if exists ${other} with (force)`);
    }
  });
});

describe('PostgreSQL not listening at all', () => {
  it('connection refused: 503 with Retry-After', async () => {
    const port = await freePort();
    const { app, database } = await appOn(`postgres://hangar@127.0.0.1:${port}/hangar`);
    try {
      assertUnavailable(await get(app, '/api/v2/account/details', 'a'.repeat(14) + '.atlasv1.' + 'b'.repeat(67)));
    } finally {
      await app.close();
      await database.close();
    }
  });
});

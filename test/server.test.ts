// The real process: `hangar` commands on a scratch database, and `hangar serve` over a socket.
// Commands run without blocking this process: a test process stuck in spawnSync for longer than
// the server's keep-alive timeout misses the close of its idle sockets and reuses a dead one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hangarAsync as hangar, startServer, type Server } from './helpers/process.ts';
import { scratchPostgres } from './helpers/postgres.ts';

describe('hangar command and server process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-proc-'));
  const env = { HANGAR_DATA_DIR: dataDir };
  let server: Server;

  before(async () => {
    server = await startServer(env);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the SQLite database in the data directory, in WAL mode', () => {
    assert.ok(statSync(path.join(dataDir, 'hangar.db')).isFile());
    assert.ok(statSync(path.join(dataDir, 'hangar.db-wal')).isFile());
  });

  it('bootstraps a site admin whose token works against the running server', async () => {
    const boot = await hangar(['bootstrap'], env);
    assert.equal(boot.status, 0, boot.stderr);
    const lines = boot.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'the token is the only line on stdout');
    const token = lines[0]!;
    assert.match(token, /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/);
    const res = await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.data.attributes.username, 'admin');
    assert.equal(body.data.attributes['is-site-admin'], true);
    // Running it again keeps the one admin and prints a fresh token.
    const again = await hangar(['bootstrap'], env);
    assert.notEqual(again.stdout.trim(), token);
    assert.ok(!server.output().includes(token), 'the token never reaches the server log');
  });

  it('creates users and tokens from the command line', async () => {
    const created = await hangar(['user', 'create', 'alice', '--email', 'alice@example.test'], env);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout.trim(), /^user-[0-9A-Za-z]{16}$/);
    const duplicate = await hangar(['user', 'create', 'ALICE', '--email', 'alice@example.test'], env);
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already been taken/);
    const token = await hangar(['token', 'create', 'alice', '--description', 'laptop'], env);
    assert.equal(token.status, 0, token.stderr);
    const res = await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
    assert.equal(res.status, 200);
    assert.equal((await hangar(['token', 'create', 'nobody'], env)).status, 1);
    assert.equal((await hangar(['frobnicate'], env)).status, 2);
  });

  it('speaks JSON:API over the socket', async () => {
    const ping = await fetch(`${server.url}/api/v2/ping`);
    assert.equal(ping.status, 204);
    assert.equal(ping.headers.get('tfp-api-version'), '2.5');
    const anonymous = await fetch(`${server.url}/api/v2/organizations`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('content-type') ?? '', /application\/vnd\.api\+json/);
    assert.deepEqual(await anonymous.json(), { errors: [{ status: '401', title: 'unauthorized' }] });
  });

  it('refuses to start on invalid configuration, naming the variable', async () => {
    for (const [name, value] of [
      ['HANGAR_PORT', 'eighty'],
      ['HANGAR_DATABASE_URL', 'mysql://x'],
      ['HANGAR_LOG_LEVEL', 'loud'],
      ['HANGAR_BASE_URL', 'not a url'],
    ]) {
      const r = await hangar(['migrate'], { ...env, [name!]: value! });
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`configuration error: ${name}`));
    }
  });

  it('shuts down cleanly on SIGTERM and starts again on the same database', async () => {
    const code = await server.stop('SIGTERM');
    assert.equal(code, 0);
    assert.match(server.output(), /shutting down/);
    server = await startServer(env);
    const token = (await hangar(['token', 'create', 'alice'], env)).stdout.trim();
    const res = await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
  });
});

describe('hangar on PostgreSQL: two server processes share one database', { skip: !process.env.HANGAR_TEST_POSTGRES_URL }, () => {
  let env: Record<string, string>;
  let dropDatabase = async () => {};
  const servers: Server[] = [];

  before(async () => {
    const scratch = await scratchPostgres(process.env.HANGAR_TEST_POSTGRES_URL!, 'hangar_proc');
    dropDatabase = scratch.drop;
    env = {
      HANGAR_DATABASE_URL: scratch.url,
      HANGAR_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'hangar-pg-')),
      // Instances sharing PostgreSQL must share the key too.
      HANGAR_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    };
    servers.push(await startServer(env), await startServer(env));
  });
  after(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await dropDatabase();
  });

  it('sees on one instance what was written through the other', async () => {
    const token = (await hangar(['bootstrap'], env)).stdout.trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
    const created = await fetch(`${servers[0]!.url}/api/v2/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ data: { type: 'organizations', attributes: { name: 'shared', email: 'ops@example.test' } } }),
    });
    assert.equal(created.status, 201);
    const shown = await fetch(`${servers[1]!.url}/api/v2/organizations/shared`, { headers });
    assert.equal(shown.status, 200);
  });
});

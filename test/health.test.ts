// /healthz and /readyz: outside /api/v2, no token; /readyz fails (503, with a reason) when the
// database cannot be reached or lacks a migration.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { suite } from './helpers/harness.ts';

const LAST_MIGRATION = '0006_agent_pool_workspaces';

suite('health probes', (ctx) => {
  it('answers /healthz and /readyz without a token, as plain JSON', async () => {
    const health = await ctx.get('/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    assert.match(String(health.headers['content-type']), /^application\/json/);
    const ready = await ctx.get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });

  it('is not ready while a migration is missing, and ready again once it is applied', async () => {
    const [applied] = (
      await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration where name = ${LAST_MIGRATION}`.execute(ctx.database.db)
    ).rows;
    assert.ok(applied, 'the migration was recorded');
    await sql`delete from kysely_migration where name = ${LAST_MIGRATION}`.execute(ctx.database.db);
    try {
      const res = await ctx.get('/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { status: 'unavailable', reason: `database migrations pending: ${LAST_MIGRATION}` });
      assert.equal((await ctx.get('/healthz')).status, 200, 'the process is still up');
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${applied.name}, ${applied.timestamp})`.execute(ctx.database.db);
    }
    assert.equal((await ctx.get('/readyz')).status, 200);
  });

  // Last: the database stays closed.
  it('is not ready when the database cannot be reached, and says so without details', async () => {
    const logsBefore = ctx.logs.length;
    await ctx.database.close();
    const res = await ctx.get('/readyz');
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { status: 'unavailable', reason: 'the database is unreachable' });
    assert.equal((await ctx.get('/healthz')).status, 200);
    assert.match(ctx.logs.slice(logsBefore), /"reason":"the database is unreachable"/);
  });
});

// Lists come back in creation order even when rows share a millisecond (db/creation-order.ts):
// the order is a number the database hands out, not `created_at` with a random id breaking ties.
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import { dialects, scratchDatabase, suite } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { migrateBefore } from './helpers/migrations.ts';
import { createParameter, createPolicySet } from './helpers/policy-sets.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const MIGRATION = '0018_creation_order';

suite('creation order', (ctx) => {
  it('lists parameters and projects made in the same millisecond in the order they were made', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    // Every row below gets the same created_at; ids are random, so without a creation key the
    // order would be random too (it was: a, c, b).
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    try {
      const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'];
      for (const key of keys) await createParameter(ctx, org.owner.token, set.id, { key });
      const projects: string[] = [];
      for (const i of [1, 2, 3, 4, 5, 6]) {
        const res = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, {
          data: { type: 'projects', attributes: { name: `same-ms-${i}` } },
        });
        assertStatus(res, 201);
        projects.push(res.body.data.id);
      }
      const listed = await ctx.get(`/api/v2/policy-sets/${set.id}/parameters`, org.owner.token);
      assert.deepEqual(
        listed.body.data.map((p: any) => p.attributes.key),
        keys,
      );
      // Projects list newest first by default.
      const page = await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100`, org.owner.token);
      const ours = page.body.data.map((p: any) => p.id).filter((id: string) => projects.includes(id));
      assert.deepEqual(ours, [...projects].reverse());
    } finally {
      mock.timers.reset();
    }
  });
});

for (const dialect of dialects()) {
  describe(`migration 0018 (creation order) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it('numbers existing rows in (created_at, id) order and every new row after all of them', async () => {
      const db = scratch.database.db;
      await migrateBefore(scratch.database, MIGRATION);
      const at = '2026-11-01T00:00:00.000Z';
      await db
        .insertInto('users')
        .values({ id: 'user-1', username: 'u1', email: 'u1@example.test', created_at: at } as any)
        .execute();
      const org = (id: string, createdAt: string) => ({ id, name: id, email: `${id}@example.test`, service_user_id: 'user-1', created_at: createdAt });
      // Inserted out of order: c and a share a millisecond, b is older.
      await db
        .insertInto('organizations')
        .values([org('org-c', at), org('org-a', at), org('org-b', '2026-10-01T00:00:00.000Z')] as any)
        .execute();

      assert.equal((await migrateToLatest(scratch.database))[0], MIGRATION);
      const order = async () => (await db.selectFrom('organizations').select('id').orderBy('seq').execute()).map((r) => r.id);
      assert.deepEqual(await order(), ['org-b', 'org-a', 'org-c']);

      // A new row sorts last whatever its id and clock say.
      await db
        .insertInto('organizations')
        .values(org('org-0', '2020-01-01T00:00:00.000Z') as any)
        .execute();
      assert.deepEqual(await order(), ['org-b', 'org-a', 'org-c', 'org-0']);

      // SQLite's VACUUM may renumber rowids; the creation key must not follow them.
      await db.deleteFrom('organizations').where('id', 'in', ['org-b', 'org-a', 'org-c']).execute();
      if (dialect === 'sqlite') await sql`vacuum`.execute(db);
      await db
        .insertInto('organizations')
        .values(org('org-9', at) as any)
        .execute();
      assert.deepEqual(await order(), ['org-0', 'org-9']);
      const seqs = (await db.selectFrom('organizations').select('seq').orderBy('seq').execute()).map((r) => Number(r.seq));
      assert.ok(seqs[1]! > seqs[0]!);
    });
  });
}

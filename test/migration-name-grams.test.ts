// Migration 0014 on a database that already holds projects: the gram counters it creates count
// every existing project, as the triggers would have.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects, scratchDatabase } from './helpers/harness.ts';
import { migrateBefore } from './helpers/migrations.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const GRAMS = '0014_name_grams';

/** The distinct lower-cased substrings of one or two characters of each name, counted per organization. */
function expectedGrams(rows: Array<{ organization_id: string; name: string }>): string[] {
  const counts = new Map<string, number>();
  for (const { organization_id, name } of rows) {
    const lower = name.toLowerCase();
    const grams = new Set<string>();
    for (let i = 0; i < lower.length; i++) {
      grams.add(lower.slice(i, i + 1));
      if (i + 2 <= lower.length) grams.add(lower.slice(i, i + 2));
    }
    for (const g of grams) counts.set(`${organization_id} ${g}`, (counts.get(`${organization_id} ${g}`) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).sort();
}

for (const dialect of dialects()) {
  describe(`migration 0014 (name grams) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it('counts the projects that exist when it runs, and the triggers take over from there', async () => {
      const db = scratch.database.db;
      await migrateBefore(scratch.database, GRAMS);
      const at = new Date().toISOString();
      await db
        .insertInto('users')
        .values({ id: 'user-1', username: 'u1', email: 'u1@example.test', created_at: at } as any)
        .execute();
      for (const org of ['org-1', 'org-2']) {
        await db
          .insertInto('organizations')
          .values({ id: org, name: org, email: `${org}@example.test`, service_user_id: 'user-1', created_at: at } as any)
          .execute();
      }
      const names = ['Default Project', 'Alpha', 'aaab', 'b7 77', 'a_b', '', 'x', `long-${'ab'.repeat(300)}`];
      const project = (organization_id: string, name: string, i: number) => ({
        id: `prj-${organization_id}-${i}`,
        organization_id,
        name,
        description: null,
        auto_destroy_activity_duration: null,
        is_default: dialect === 'postgres' ? false : 0,
        created_at: at,
      });
      const existing = [...names.map((n, i) => project('org-1', n, i)), project('org-2', 'Alpha', 0)];
      await db
        .insertInto('projects')
        .values(existing as any)
        .execute();

      // 0014 first; any later migration after it.
      assert.equal((await migrateToLatest(scratch.database))[0], GRAMS);
      const rows = async () =>
        (await db.selectFrom('project_name_grams').select(['organization_id', 'gram', 'projects']).where('projects', '>', 0).execute())
          .map((r) => `${r.organization_id} ${r.gram} ${Number(r.projects)}`)
          .sort();
      assert.deepEqual(await rows(), expectedGrams(existing));

      // Then the triggers: one more project, a rename, a delete.
      const added = project('org-2', 'Beta', 1);
      await db
        .insertInto('projects')
        .values(added as any)
        .execute();
      await db.updateTable('projects').set({ name: 'Alpine' }).where('id', '=', 'prj-org-1-1').execute();
      await db.deleteFrom('projects').where('id', '=', 'prj-org-1-2').execute();
      const now = await db.selectFrom('projects').select(['organization_id', 'name']).execute();
      assert.deepEqual(await rows(), expectedGrams(now));
    });
  });
}

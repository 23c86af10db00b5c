// Migration 0017: on PostgreSQL the projects' trigram index takes new names straight into the
// index (no GIN pending list for every search to read), and searches made before and after it
// find the same projects. SQLite has nothing to change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dialects, scratchDatabase } from './helpers/harness.ts';
import { migrateBefore } from './helpers/migrations.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const MIGRATION = '0017_trigram_index_direct_writes';

for (const dialect of dialects().filter((d) => d === 'postgres')) {
  describe(`migration 0017 (trigram index without a pending list) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it('turns fastupdate off on the index, and searches find the same names before and after it', async () => {
      const db = scratch.database.db;
      await migrateBefore(scratch.database, MIGRATION);
      const options = async () =>
        (await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where relname = 'projects_name_trgm'`.execute(db)).rows[0]?.reloptions ??
        [];
      assert.deepEqual(await options(), [], 'before 0017 the index has the default options');

      const at = new Date().toISOString();
      await db
        .insertInto('users')
        .values({ id: 'user-1', username: 'u1', email: 'u1@example.test', created_at: at } as any)
        .execute();
      await db
        .insertInto('organizations')
        .values({ id: 'org-1', name: 'org-1', email: 'org-1@example.test', service_user_id: 'user-1', created_at: at } as any)
        .execute();
      const project = (i: number) => ({
        id: `prj-${i}`,
        organization_id: 'org-1',
        name: `Project-${i}`,
        description: null,
        auto_destroy_activity_duration: null,
        is_default: false,
        created_at: at,
      });
      // Into the pending list, as inserts went before 0017.
      await db
        .insertInto('projects')
        .values(Array.from({ length: 300 }, (_, i) => project(i)) as any)
        .execute();
      const matches = async () =>
        (
          await db
            .selectFrom('projects')
            .select('id')
            .where(sql<boolean>`lower(name) like '%123%'`)
            .orderBy('id')
            .execute()
        ).map((r) => r.id);
      const found = await matches();
      assert.deepEqual(found, ['prj-123']);

      assert.equal((await migrateToLatest(scratch.database))[0], MIGRATION);
      assert.deepEqual(await options(), ['fastupdate=off']);
      assert.deepEqual(await matches(), found);
      await db
        .insertInto('projects')
        .values(project(1123) as any)
        .execute();
      assert.deepEqual(await matches(), ['prj-1123', 'prj-123']);
    });
  });
}

// Migration 0036 on a database that already holds state versions: each version's resource count
// is added up, in SQL, from the resource summary it already keeps (the counts of every resource
// address, modules and data sources included); a version without a summary (pending) keeps none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects, scratchDatabase } from './helpers/harness.ts';
import { migrateBefore, seedWorkspace } from './helpers/migrations.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const MIGRATION = '0036_state_resource_count';

for (const dialect of dialects()) {
  describe(`migration 0036 (state resource count) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it("counts every finalized version's resources from its summary, and leaves a pending version's null", async () => {
      const db = scratch.database.db as any;
      await migrateBefore(scratch.database, MIGRATION);
      const { at, bool } = await seedWorkspace(scratch.database);
      const summary = (...counts: number[]) =>
        JSON.stringify(
          counts.map((count, i) => ({ name: `r${i}`, type: 'terraform_data', count, module: 'root', provider: 'provider["terraform.io/builtin/terraform"]' })),
        );
      const version = (id: string, position: number | null, resources: string | null) => ({
        id,
        workspace_id: 'ws-1',
        serial: position ?? 99,
        md5: 'x',
        status: position === null ? 'pending' : 'finalized',
        position,
        resources,
        json_state_uploaded: bool(false),
        force: bool(false),
        created_at: at,
      });
      await db
        .insertInto('state_versions')
        .values([version('sv-many', 1, summary(3, 1, 0, 12)), version('sv-none', 2, summary()), version('sv-pending', null, null)])
        .execute();

      assert.equal((await migrateToLatest(scratch.database))[0], MIGRATION);

      const rows = await db.selectFrom('state_versions').select(['id', 'resource_count']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r: any) => [r.id, r.resource_count === null ? null : Number(r.resource_count)]),
        [
          ['sv-many', 16],
          ['sv-none', 0],
          ['sv-pending', null],
        ],
      );
    });
  });
}

// Migration 0016 on a database that already holds configuration versions and runs: the upload
// digest and expiry go, every row and its runs stay, and the foreign keys still hold both ways.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dialects, scratchDatabase } from './helpers/harness.ts';
import { migrateBefore, seedWorkspace } from './helpers/migrations.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const SIGNED = '0016_signed_configuration_uploads';

for (const dialect of dialects()) {
  describe(`migration 0016 (signed configuration uploads) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it('drops the upload digest and expiry and keeps every version, its archive and its runs', async () => {
      const db = scratch.database.db as any;
      await migrateBefore(scratch.database, SIGNED);
      const { at, bool } = await seedWorkspace(scratch.database);
      const cv = (id: string, uploaded: boolean) => ({
        id,
        workspace_id: 'ws-1',
        status: uploaded ? 'uploaded' : 'pending',
        source: 'tfe-api',
        auto_queue_runs: bool(true),
        speculative: bool(false),
        provisional: bool(false),
        upload_digest: uploaded ? null : `digest-of-${id}`,
        upload_expires_at: uploaded ? null : at,
        archive: uploaded ? Buffer.from([1, 2, 3]) : null,
        archive_size: uploaded ? 3 : null,
        created_at: at,
        uploaded_at: uploaded ? at : null,
      });
      await db
        .insertInto('configuration_versions')
        .values([cv('cv-pending', false), cv('cv-uploaded', true)])
        .execute();
      const run = {
        workspace_id: 'ws-1',
        configuration_version_id: 'cv-uploaded',
        status: 'pending',
        message: 'm',
        source: 'tfe-api',
        is_destroy: bool(false),
        refresh: bool(true),
        refresh_only: bool(false),
        plan_only: bool(false),
        auto_apply: bool(false),
        created_at: at,
      };
      await db
        .insertInto('runs')
        .values([
          { id: 'run-1', ...run },
          { id: 'run-2', ...run },
        ])
        .execute();

      // 0016 first; any later migration after it.
      assert.equal((await migrateToLatest(scratch.database))[0], SIGNED);

      const rows = await db.selectFrom('configuration_versions').selectAll().orderBy('id').execute();
      assert.deepEqual(
        rows.map((r: any) => [r.id, r.status, r.archive_size === null ? null : Number(r.archive_size)]),
        [
          ['cv-pending', 'pending', null],
          ['cv-uploaded', 'uploaded', 3],
        ],
      );
      // The archive's bytes live in the blob store since migration 0029 (moved as they were, to be sealed at start-up).
      const archive = await db
        .selectFrom('blobs')
        .select('body')
        .where('family', '=', 'configuration-versions')
        .where('owner', '=', 'cv-uploaded')
        .where('name', '=', 'archive')
        .executeTakeFirstOrThrow();
      assert.deepEqual([...Buffer.from(archive.body)], [1, 2, 3]);
      for (const column of ['upload_digest', 'upload_expires_at']) assert.ok(!(column in rows[0]), `${column} is gone`);
      assert.equal((await db.selectFrom('runs').select('id').execute()).length, 2, 'no run went with the old table');
      // The rules of the table still hold: an archive exactly when uploaded, a real workspace, and runs go with their version.
      await assert.rejects(db.updateTable('configuration_versions').set({ status: 'uploaded' }).where('id', '=', 'cv-pending').execute());
      await assert.rejects(
        db
          .insertInto('configuration_versions')
          .values({ ...cv('cv-x', false), upload_digest: undefined, upload_expires_at: undefined, workspace_id: 'ws-none' })
          .execute(),
      );
      await assert.rejects(
        db
          .insertInto('runs')
          .values({ id: 'run-3', ...run, configuration_version_id: 'cv-none' })
          .execute(),
      );
      await db.deleteFrom('configuration_versions').where('id', '=', 'cv-uploaded').execute();
      assert.equal((await db.selectFrom('runs').select('id').execute()).length, 0);
      if (dialect === 'sqlite') {
        assert.equal((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]!.foreign_keys, 1, 'foreign keys are back on');
        const indexes = await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'configuration_versions' and sql is not null`.execute(db);
        // 0016 rebuilt the table with its index; 0018 has since replaced that index by the creation-order one.
        assert.deepEqual(
          indexes.rows.map((r) => r.name),
          ['configuration_versions_workspace_seq'],
        );
      }
    });
  });
}

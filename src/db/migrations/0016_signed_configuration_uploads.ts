// A configuration version's upload URL is signed now (crypto/upload-credentials.ts), like a state
// version's: the URL carries its own expiry and nothing about it is stored, so the digest of the
// old random secret and its expiry go. A version created before this migration and still pending
// can no longer be uploaded to (its URL held a secret that is not signed); its client creates a
// new one, as it would after the 15 minutes such a URL lived anyway.
import { sql, type Kysely } from 'kysely';
import { binaryType, isPostgres } from '../sql.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema.alterTable('configuration_versions').dropColumn('upload_digest').dropColumn('upload_expires_at').execute();
    return;
  }
  await rebuildOnSqlite(db);
}

/**
 * SQLite cannot drop a UNIQUE column, so the table is rebuilt as its documentation prescribes
 * (https://sqlite.org/lang_altertable.html#otheralter): with foreign keys off, or dropping the old
 * table would cascade to every run. Kysely runs SQLite migrations outside a transaction, so the
 * pragma takes effect and this migration makes its own. The definition repeats 0013's but for the
 * two columns, on purpose: a migration states the schema of its own time and shares no code with
 * another that a later change could alter.
 */
async function rebuildOnSqlite(db: Kysely<any>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await db.schema
        .createTable('configuration_versions_new')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'uploaded', 'errored', 'archived')`))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('auto_queue_runs', 'boolean', (c) => c.notNull())
        .addColumn('speculative', 'boolean', (c) => c.notNull())
        .addColumn('provisional', 'boolean', (c) => c.notNull())
        .addColumn('archive', binaryType(db))
        .addColumn('archive_size', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('uploaded_at', 'text')
        .addCheckConstraint('configuration_versions_uploaded_has_archive', sql`(status = 'uploaded') = (archive is not null)`)
        .execute();
      await sql`insert into configuration_versions_new (id, workspace_id, status, source, auto_queue_runs, speculative, provisional, archive, archive_size, created_at, uploaded_at)
        select id, workspace_id, status, source, auto_queue_runs, speculative, provisional, archive, archive_size, created_at, uploaded_at from configuration_versions`.execute(
        db,
      );
      await db.schema.dropTable('configuration_versions').execute();
      await db.schema.alterTable('configuration_versions_new').renameTo('configuration_versions').execute();
      await db.schema.createIndex('configuration_versions_workspace').on('configuration_versions').columns(['workspace_id', 'created_at']).execute();
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`rebuilding configuration_versions broke ${broken.rows.length} foreign keys`);
      await sql`commit`.execute(db);
    } catch (e) {
      await sql`rollback`.execute(db);
      throw e;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

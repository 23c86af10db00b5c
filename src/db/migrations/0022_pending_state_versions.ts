// A pending state version remembers what its create was told and by whom, so the upload that
// finalizes it applies the same rules: `force` (replace a state of another lineage or a lower
// serial, as `terraform state push -force` asks), and the lock its creator held (who, since
// when) and the token it used, so the version is finalized only while that lock stands and
// that token may still write the state. A version left pending from before this migration has
// none of these and can no longer be finalized; its URL lived ten minutes anyway. And the locks
// of a holder are found by holder, for a deleted team's to be released.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('state_versions')
    .addColumn('force', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('state_versions').addColumn('lock_holder_type', 'text').execute();
  await db.schema.alterTable('state_versions').addColumn('lock_holder_id', 'text').execute();
  await db.schema.alterTable('state_versions').addColumn('lock_locked_at', 'text').execute();
  await db.schema.alterTable('state_versions').addColumn('created_by_token', 'text').execute();
  // A deleted team's locks are released by holder.
  await db.schema.createIndex('workspace_locks_holder').on('workspace_locks').columns(['holder_type', 'holder_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

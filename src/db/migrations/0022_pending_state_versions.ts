// A pending state version remembers what its create was told, so the upload that finalizes it
// applies the same rules: `force` (replace a state of another lineage or a lower serial, as
// `terraform state push -force` asks).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('state_versions').addColumn('force', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

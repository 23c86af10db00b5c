// The site-admin workspace list (`/admin/workspaces`) spans every organization in creation
// order, so workspaces get the database-issued creation key (db/creation-order.ts) and an index
// on it alone. Configuration versions can be archived (their bytes dropped): when is kept.
import type { Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await addCreationOrder(db, 'workspaces');
  await db.schema.createIndex('workspaces_seq').on('workspaces').column('seq').execute();
  await db.schema.alterTable('configuration_versions').addColumn('archived_at', 'text').execute();
}

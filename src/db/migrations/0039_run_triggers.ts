// Run triggers, as TFE has them: a workspace (`workspace_id`) gets a run queued whenever a run of
// another workspace of its organization (`sourceable_id`) applies successfully. One trigger per
// pair (the unique constraint), gone with either workspace; read in both directions (inbound: a
// workspace's sources; outbound: the workspaces a source triggers), each in creation order.
import type { Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('run_triggers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('sourceable_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('run_triggers_pair', ['workspace_id', 'sourceable_id'])
    .execute();
  await addCreationOrder(db, 'run_triggers');
  await db.schema.createIndex('run_triggers_workspace_seq').on('run_triggers').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('run_triggers_sourceable_seq').on('run_triggers').columns(['sourceable_id', 'seq']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

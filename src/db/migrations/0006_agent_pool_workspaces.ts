// The workspaces an agent pool is allowed to serve (`allowed-workspaces`). Both foreign keys
// cascade: deleting a workspace takes it off every pool's list, deleting a pool drops its list,
// in the same statement, so no list can name a workspace or pool that is gone.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_pool_allowed_workspaces')
    .addColumn('agent_pool_id', 'text', (c) => c.notNull().references('agent_pools.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Also the index behind "the lists of this page of pools".
    .addPrimaryKeyConstraint('agent_pool_allowed_workspaces_pk', ['agent_pool_id', 'workspace_id'])
    .execute();
  // Behind the cascade when a workspace is deleted.
  await db.schema.createIndex('agent_pool_allowed_workspaces_workspace').on('agent_pool_allowed_workspaces').column('workspace_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

// The workspaces a policy set applies to, alongside the projects of 0003. Either side going away
// takes its attachments with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policy_set_workspaces')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_set_workspaces_pk', ['policy_set_id', 'workspace_id'])
    .execute();
  // The primary key serves lookups by set; this one serves the cascade when a workspace is deleted.
  await db.schema.createIndex('policy_set_workspaces_workspace').on('policy_set_workspaces').column('workspace_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

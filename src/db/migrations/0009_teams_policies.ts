// Teams gain the two settings real clients send (`sso-team-id`, `allow-member-token-management`),
// and policy sets a list of excluded workspaces. Either side of an exclusion going away takes the
// exclusion with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('teams').addColumn('sso_team_id', 'text').execute();
  await db.schema
    .alterTable('teams')
    .addColumn('allow_member_token_management', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute();

  await db.schema
    .createTable('policy_set_workspace_exclusions')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_set_workspace_exclusions_pk', ['policy_set_id', 'workspace_id'])
    .execute();
  // The primary key serves lookups by set; this one serves the cascade when a workspace is deleted.
  await db.schema.createIndex('policy_set_workspace_exclusions_workspace').on('policy_set_workspace_exclusions').column('workspace_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

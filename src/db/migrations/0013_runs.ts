// Team tokens, teams' access to single workspaces, configuration versions (their uploaded
// tarballs kept in the database) and runs. Hangar executes no run: a run is a record that holds
// its workspace's lock until it is discarded or canceled.
import { sql, type Kysely } from 'kysely';
import { binaryType } from '../sql.ts';

export async function up(db: Kysely<any>): Promise<void> {
  // A team token belongs to its team: deleting the team deletes it. At most one per team (TFE's
  // "legacy" team token: creating another replaces it).
  await db.schema
    .alterTable('auth_tokens')
    .addColumn('team_id', 'text', (c) => c.references('teams.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('auth_tokens_one_team_token').on('auth_tokens').column('team_id').unique().where(sql.ref('kind'), '=', 'team').execute();

  await db.schema
    .createTable('team_workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('access', 'text', (c) => c.notNull().check(sql`access in ('read', 'plan', 'write', 'admin', 'custom')`))
    .addColumn('runs', 'text', (c) => c.notNull().check(sql`runs in ('read', 'plan', 'apply')`))
    .addColumn('variables', 'text', (c) => c.notNull().check(sql`variables in ('none', 'read', 'write')`))
    .addColumn('state_versions', 'text', (c) => c.notNull().check(sql`state_versions in ('none', 'read-outputs', 'read', 'write')`))
    .addColumn('sentinel_mocks', 'text', (c) => c.notNull().check(sql`sentinel_mocks in ('none', 'read')`))
    .addColumn('workspace_locking', 'boolean', (c) => c.notNull())
    .addColumn('run_tasks', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('team_workspaces_team_workspace', ['team_id', 'workspace_id'])
    .execute();
  // The unique constraint serves lookups by team; this one lists a workspace's grants (and the cascade).
  await db.schema.createIndex('team_workspaces_workspace').on('team_workspaces').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('configuration_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'uploaded', 'errored', 'archived')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('auto_queue_runs', 'boolean', (c) => c.notNull())
    .addColumn('speculative', 'boolean', (c) => c.notNull())
    .addColumn('provisional', 'boolean', (c) => c.notNull())
    // The upload URL's secret, as a SHA-256 digest, until it is used or expires.
    .addColumn('upload_digest', 'text', (c) => c.unique())
    .addColumn('upload_expires_at', 'text')
    .addColumn('archive', binaryType(db))
    .addColumn('archive_size', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text')
    .addCheckConstraint('configuration_versions_uploaded_has_archive', sql`(status = 'uploaded') = (archive is not null)`)
    .execute();
  await db.schema.createIndex('configuration_versions_workspace').on('configuration_versions').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('configuration_version_id', 'text', (c) => c.notNull().references('configuration_versions.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'discarded', 'canceled')`))
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('is_destroy', 'boolean', (c) => c.notNull())
    .addColumn('refresh', 'boolean', (c) => c.notNull())
    .addColumn('refresh_only', 'boolean', (c) => c.notNull())
    .addColumn('plan_only', 'boolean', (c) => c.notNull())
    .addColumn('auto_apply', 'boolean', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('discarded_at', 'text')
    .addColumn('canceled_at', 'text')
    .execute();
  await db.schema.createIndex('runs_workspace').on('runs').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('runs_configuration_version').on('runs').column('configuration_version_id').execute();
  await db.schema.createIndex('runs_created_by').on('runs').column('created_by_user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

// Workspaces and team access to projects, on top of the foundation's projects table.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The default project list order is creation order.
  await db.schema.createIndex('projects_org_created').on('projects').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // NO ACTION, not CASCADE: a project that still holds workspaces can never be deleted, not even
    // by a request racing a move. NO ACTION is checked at the end of the statement, so deleting an
    // organization (which cascades to both tables in one statement) still works.
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('no action'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // The workspace's own duration; only in effect when it does not inherit its project's.
    .addColumn('auto_destroy_activity_duration', 'text')
    .addColumn('inherits_project_auto_destroy', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workspaces_org_name_unique')
    .on('workspaces')
    .column('organization_id')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  await db.schema.createIndex('workspaces_project').on('workspaces').column('project_id').execute();

  // One row per (team, project): the access level and the effective value of every permission it
  // implies, so that "which projects may this caller update" is a plain indexed condition.
  await db.schema
    .createTable('team_projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('project_settings', 'text', (c) => c.notNull())
    .addColumn('project_teams', 'text', (c) => c.notNull())
    .addColumn('project_variable_sets', 'text', (c) => c.notNull())
    .addColumn('workspace_runs', 'text', (c) => c.notNull())
    .addColumn('workspace_sentinel_mocks', 'text', (c) => c.notNull())
    .addColumn('workspace_state_versions', 'text', (c) => c.notNull())
    .addColumn('workspace_variables', 'text', (c) => c.notNull())
    .addColumn('workspace_create', 'boolean', (c) => c.notNull())
    .addColumn('workspace_locking', 'boolean', (c) => c.notNull())
    .addColumn('workspace_delete', 'boolean', (c) => c.notNull())
    .addColumn('workspace_move', 'boolean', (c) => c.notNull())
    .addColumn('workspace_run_tasks', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A team holds at most one access per project; the index also serves "grants of these teams".
  await db.schema.createIndex('team_projects_team_project_unique').on('team_projects').columns(['team_id', 'project_id']).unique().execute();
  await db.schema.createIndex('team_projects_project').on('team_projects').columns(['project_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

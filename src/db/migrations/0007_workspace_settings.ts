// Workspace settings as TFE serves them, execution modes (the organization's default and a
// workspace's own), and remote state consumers.
import { sql, type Kysely } from 'kysely';

const MODES = sql`('remote', 'local', 'agent')`;

export async function up(db: Kysely<any>): Promise<void> {
  // Each setting is one column holding TFE's default for a new workspace.
  const settings: Array<[string, 'boolean' | 'text', unknown]> = [
    ['auto_apply', 'boolean', false],
    ['auto_apply_run_trigger', 'boolean', false],
    ['allow_destroy_plan', 'boolean', true],
    ['assessments_enabled', 'boolean', false],
    ['file_triggers_enabled', 'boolean', true],
    ['global_remote_state', 'boolean', false],
    ['queue_all_runs', 'boolean', false],
    ['speculative_enabled', 'boolean', true],
    ['structured_run_output_enabled', 'boolean', true],
    // `latest` is TFE's pseudo-version; the Terraform CLI skips its version check for it.
    ['terraform_version', 'text', 'latest'],
    ['working_directory', 'text', ''],
    // JSON arrays of strings.
    ['trigger_prefixes', 'text', '[]'],
    ['trigger_patterns', 'text', '[]'],
  ];
  for (const [name, type, value] of settings) {
    await db.schema
      .alterTable('workspaces')
      .addColumn(name, type, (c) => c.notNull().defaultTo(value))
      .execute();
  }
  for (const name of ['source_name', 'source_url', 'auto_destroy_at']) {
    await db.schema.alterTable('workspaces').addColumn(name, 'text').execute();
  }
  // null: the workspace follows its organization's default (setting-overwrites false).
  await db.schema
    .alterTable('workspaces')
    .addColumn('execution_mode', 'text', (c) => c.check(sql`execution_mode is null or execution_mode in ${MODES}`))
    .execute();
  // NO ACTION: a pool that workspaces run on, or that is its organization's default, cannot be
  // deleted (its deletion along with the whole organization still goes through: the statement's
  // cascades remove the workspaces and the organization row too).
  await db.schema
    .alterTable('workspaces')
    .addColumn('agent_pool_id', 'text', (c) =>
      // A pool exactly when the workspace's own mode is `agent`.
      c
        .references('agent_pools.id')
        .onDelete('no action')
        .check(sql`(agent_pool_id is not null) = (coalesce(execution_mode, '') = 'agent')`),
    )
    .execute();
  await db.schema.createIndex('workspaces_agent_pool').on('workspaces').column('agent_pool_id').execute();

  await db.schema
    .alterTable('organizations')
    .addColumn('default_execution_mode', 'text', (c) =>
      c
        .notNull()
        .defaultTo('remote')
        .check(sql`default_execution_mode in ${MODES}`),
    )
    .execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('default_agent_pool_id', 'text', (c) =>
      // A pool exactly when the default mode is `agent`.
      c
        .references('agent_pools.id')
        .onDelete('no action')
        .check(sql`(default_agent_pool_id is not null) = (default_execution_mode = 'agent')`),
    )
    .execute();
  await db.schema.createIndex('organizations_default_agent_pool').on('organizations').column('default_agent_pool_id').execute();

  // Workspaces that may read a workspace's state although it does not share it globally. Both
  // keys cascade: deleting either workspace drops the pair.
  await db.schema
    .createTable('workspace_remote_state_consumers')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('consumer_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_remote_state_consumers_pk', ['workspace_id', 'consumer_id'])
    .execute();
  // Behind the cascade when a consumer is deleted.
  await db.schema.createIndex('workspace_remote_state_consumers_consumer').on('workspace_remote_state_consumers').column('consumer_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

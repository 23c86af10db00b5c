// Hangar as Terraform's state backend: workspace locks, state versions, their outputs and the
// state bytes themselves. Everything hangs off its workspace and goes with it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per locked workspace: the primary key is the lock, so two lockers racing cannot
  // both win, whatever the engine.
  await db.schema
    .createTable('workspace_locks')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('holder_type', 'text', (c) => c.notNull().check(sqlIn('holder_type', ['users', 'teams', 'runs'])))
    .addColumn('holder_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('locked_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('state_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('serial', 'bigint', (c) => c.notNull().check(sqlGe('serial', 0)))
    .addColumn('lineage', 'text')
    .addColumn('md5', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', ['pending', 'finalized', 'discarded'])))
    // The order in which versions became final in their workspace: the highest is current.
    // Null while pending; unique, so two uploads finishing at once cannot share a place.
    .addColumn('position', 'integer')
    .addColumn('state_size', 'integer')
    .addColumn('state_format_version', 'integer')
    .addColumn('terraform_version', 'text')
    .addColumn('resources', 'text')
    .addColumn('providers', 'text')
    .addColumn('modules', 'text')
    .addColumn('billable_rum_count', 'integer')
    .addColumn('json_state_uploaded', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('run_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('state_versions_position').on('state_versions').columns(['workspace_id', 'position']).unique().execute();
  await db.schema.createIndex('state_versions_workspace_created').on('state_versions').columns(['workspace_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('state_versions_created_by').on('state_versions').column('created_by').execute();

  // The bytes (sealed with the keyring), apart from the metadata that lists read, so that a
  // list never loads a state file. `kind` is `state` or `json-state`.
  await db.schema
    .createTable('state_version_blobs')
    .addColumn('state_version_id', 'text', (c) => c.notNull().references('state_versions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['state', 'json-state'])))
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('state_version_blobs_pk', ['state_version_id', 'kind'])
    .execute();

  await db.schema
    .createTable('state_version_outputs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('state_version_id', 'text', (c) => c.notNull().references('state_versions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sensitive', 'boolean', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('detailed_type', 'text')
    // The value as JSON, sealed: outputs come from the state, and the state is a secret.
    .addColumn('sealed_value', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('state_version_outputs_version').on('state_version_outputs').columns(['state_version_id', 'position']).unique().execute();
}

function sqlIn(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}
function sqlGe(column: string, min: number) {
  return sql`${sql.ref(column)} >= ${sql.lit(min)}`;
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

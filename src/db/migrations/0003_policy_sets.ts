// Policy sets, the projects they apply to, and their parameters. Sensitive parameter values are
// stored only as ciphertext; a check constraint makes a clear-text sensitive row impossible.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policy_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('global', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('overridable', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('agent_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('policy_tool_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Also serves the organization filter of every list.
  await db.schema
    .createIndex('policy_sets_org_name_unique')
    .on('policy_sets')
    .column('organization_id')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  await db.schema.createIndex('policy_sets_org_kind').on('policy_sets').columns(['organization_id', 'kind']).execute();

  await db.schema
    .createTable('policy_set_projects')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_set_projects_pk', ['policy_set_id', 'project_id'])
    .execute();
  await db.schema.createIndex('policy_set_projects_project').on('policy_set_projects').column('project_id').execute();

  await db.schema
    .createTable('policy_set_parameters')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('sensitive', 'boolean', (c) => c.notNull().defaultTo(false))
    // Clear text, for parameters that are not sensitive.
    .addColumn('value', 'text')
    // Ciphertext (crypto/keyring.ts), for those that are.
    .addColumn('encrypted_value', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'policy_set_parameters_value_at_rest',
      sql`(sensitive = true and value is null and encrypted_value is not null)
        or (sensitive = false and value is not null and encrypted_value is null)`,
    )
    .execute();
  // Keys are unique within a set, case-sensitively (both engines compare text byte-wise here).
  await db.schema.createIndex('policy_set_parameters_set_key_unique').on('policy_set_parameters').columns(['policy_set_id', 'key']).unique().execute();
  await db.schema.createIndex('policy_set_parameters_set_created').on('policy_set_parameters').columns(['policy_set_id', 'created_at', 'id']).execute();
  // `hangar rotate-key` walks the sensitive rows by id.
  await db.schema.createIndex('policy_set_parameters_sensitive').on('policy_set_parameters').column('id').where(sql.ref('sensitive'), '=', true).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

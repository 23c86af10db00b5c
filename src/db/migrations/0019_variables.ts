// Workspace variables and variable sets. One `variables` table holds both kinds of variable: a
// row belongs to exactly one workspace or exactly one variable set (a check says so), so the
// rules on keys, values and sealing are written once. Sensitive values are stored only as
// ciphertext; a check makes a clear-text sensitive row impossible.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('variable_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // Set for a set owned by a project (TFE's `parent`); it goes with its project.
    .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('global', 'boolean', (c) => c.notNull())
    .addColumn('priority', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('variable_sets_organization_name', ['organization_id', 'name'])
    .execute();
  await addCreationOrder(db, 'variable_sets');
  await db.schema.createIndex('variable_sets_organization_seq').on('variable_sets').columns(['organization_id', 'seq']).execute();
  await db.schema.createIndex('variable_sets_project').on('variable_sets').column('project_id').execute();
  // forRun finds the global sets of an organization.
  await db.schema.createIndex('variable_sets_global').on('variable_sets').column('organization_id').where(sql.ref('global'), '=', true).execute();

  for (const [table, column, target] of [
    ['variable_set_workspaces', 'workspace_id', 'workspaces.id'],
    ['variable_set_projects', 'project_id', 'projects.id'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('variable_set_id', 'text', (c) => c.notNull().references('variable_sets.id').onDelete('cascade'))
      .addColumn(column, 'text', (c) => c.notNull().references(target).onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['variable_set_id', column])
      .execute();
    // The primary key serves "this set's workspaces"; this one "the sets on this workspace" (and the cascade).
    await db.schema.createIndex(`${table}_${column}`).on(table).columns([column, 'variable_set_id']).execute();
  }

  await db.schema
    .createTable('variables')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('variable_set_id', 'text', (c) => c.references('variable_sets.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull().check(sql`category in ('terraform', 'env')`))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('hcl', 'boolean', (c) => c.notNull())
    .addColumn('sensitive', 'boolean', (c) => c.notNull())
    // Clear text, for variables that are not sensitive.
    .addColumn('value', 'text')
    // Ciphertext (crypto/keyring.ts, the variable id as associated data), for those that are.
    .addColumn('encrypted_value', 'text')
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('variables_one_owner', sql`(workspace_id is null) <> (variable_set_id is null)`)
    .addCheckConstraint(
      'variables_sealed_when_sensitive',
      sql`(sensitive and value is null and encrypted_value is not null) or (not sensitive and value is not null and encrypted_value is null)`,
    )
    .execute();
  await addCreationOrder(db, 'variables');
  // A key is unique within its owner and category (NULL owners never collide).
  await db.schema.createIndex('variables_workspace_key').on('variables').columns(['workspace_id', 'category', 'key']).unique().execute();
  await db.schema.createIndex('variables_set_key').on('variables').columns(['variable_set_id', 'category', 'key']).unique().execute();
  await db.schema.createIndex('variables_workspace_seq').on('variables').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('variables_set_seq').on('variables').columns(['variable_set_id', 'seq']).execute();
  // `hangar rotate-key` walks the sensitive rows by id.
  await db.schema.createIndex('variables_sensitive').on('variables').column('id').where(sql.ref('sensitive'), '=', true).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

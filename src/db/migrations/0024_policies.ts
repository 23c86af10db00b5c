// Policies, the policy sets that hold them, and policy set versions (a set's policies uploaded as
// one archive). A policy's source and a version's archive are kept in their own rows, as a
// configuration version's archive is: lists and shows never load them.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';
import { binaryType } from '../sql.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('sentinel', 'opa')`))
    .addColumn('query', 'text')
    .addColumn('enforcement_level', 'text', (c) => c.notNull().check(sql`enforcement_level in ('advisory', 'soft-mandatory', 'hard-mandatory', 'mandatory')`))
    // The file name `enforce` reports once the source is uploaded, when the client named one
    // (null: `<name>.sentinel`, or `.rego`).
    .addColumn('enforce_path', 'text')
    .addColumn('source', binaryType(db))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('policies_query_opa_only', sql`kind = 'opa' or query is null`)
    .execute();
  await addCreationOrder(db, 'policies');
  await db.schema
    .createIndex('policies_org_name_unique')
    .on('policies')
    .column('organization_id')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  // The list's order, with and without its kind filter.
  await db.schema.createIndex('policies_org_seq').on('policies').columns(['organization_id', 'seq']).execute();
  await db.schema.createIndex('policies_org_kind_seq').on('policies').columns(['organization_id', 'kind', 'seq']).execute();

  await db.schema
    .createTable('policy_set_policies')
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('policy_id', 'text', (c) => c.notNull().references('policies.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('policy_set_policies_pk', ['policy_set_id', 'policy_id'])
    .execute();
  // A policy's sets (its policy-set-count), and the cascade when a policy is deleted.
  await db.schema.createIndex('policy_set_policies_policy').on('policy_set_policies').column('policy_id').execute();

  await db.schema
    .createTable('policy_set_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('policy_set_id', 'text', (c) => c.notNull().references('policy_sets.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'ready', 'errored')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    // What sentinel.hcl declared (JSON), once ready; the archive itself as uploaded.
    .addColumn('manifest', 'text')
    .addColumn('policy_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archive', binaryType(db))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('ready_at', 'text')
    .addColumn('errored_at', 'text')
    .addCheckConstraint('policy_set_versions_ready_has_manifest', sql`(status = 'ready') = (manifest is not null)`)
    .addCheckConstraint('policy_set_versions_errored_has_error', sql`(status = 'errored') = (error is not null)`)
    .execute();
  await addCreationOrder(db, 'policy_set_versions');
  // A set's newest version, and its newest ready one (the current version).
  await db.schema.createIndex('policy_set_versions_set_seq').on('policy_set_versions').columns(['policy_set_id', 'seq']).execute();
  await db.schema.createIndex('policy_set_versions_set_status_seq').on('policy_set_versions').columns(['policy_set_id', 'status', 'seq']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

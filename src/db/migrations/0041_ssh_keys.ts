// SSH keys, as TFE has them: an organization's named private keys, which a workspace may name
// (`ssh_key_id`) so that `terraform init` in its runs can clone modules over git+ssh. The key
// itself is write-only and always sealed (crypto/keyring.ts, the row's id as associated data),
// as sensitive variables are; there is no clear column at all. Deleting a key unassigns it from
// every workspace (SET NULL), as in TFE; deleting the organization takes its keys.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ssh_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('encrypted_value', 'text', (c) => c.notNull().check(sql`encrypted_value <> ''`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await addCreationOrder(db, 'ssh_keys');
  // The organization's list, in creation order.
  await db.schema.createIndex('ssh_keys_organization_seq').on('ssh_keys').columns(['organization_id', 'seq']).execute();

  await db.schema
    .alterTable('workspaces')
    .addColumn('ssh_key_id', 'text', (c) => c.references('ssh_keys.id').onDelete('set null'))
    .execute();
  // The foreign key's own lookups (a key deleted: which workspaces to unassign).
  await db.schema.createIndex('workspaces_ssh_key').on('workspaces').column('ssh_key_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

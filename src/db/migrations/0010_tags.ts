// Tags on projects and workspaces. A tag binding is a key with a value ("" for a key-only tag,
// which is what the older flat workspace tags are); a resource holds each key at most once, in
// the order the keys arrived. `tags` gives every key used on a workspace of an organization the
// stable id the flat tag API names it by (go-tfe adds a tag to a workspace by that id).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, owner, parent] of [
    ['workspace_tag_bindings', 'workspace_id', 'workspaces.id'],
    ['project_tag_bindings', 'project_id', 'projects.id'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn(owner, 'text', (c) => c.notNull().references(parent).onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // One value per key on a resource; also serves loading a page's bindings, the correlated
    // filters (`filter[tagged]`, `search[tags]`) and the cascade from the resource.
    await db.schema.createIndex(`${table}_owner_key`).on(table).columns([owner, 'key']).unique().execute();
    // Lists filtered by a tag start from the few rows holding that key (and value).
    await db.schema.createIndex(`${table}_key_value`).on(table).columns(['key', 'value', owner]).execute();
  }

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tags_org_name').on('tags').columns(['organization_id', 'name']).unique().execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

// Users, organizations, teams, API tokens and the bare project row every organization needs.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('is_site_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_service_account', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('users_username_unique')
    .on('users')
    .expression(sql`lower(username)`)
    .unique()
    .execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('service_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organizations_name_unique')
    .on('organizations')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  await db.schema.createIndex('organizations_service_user').on('organizations').column('service_user_id').execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('is_owners', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('organization_access', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('teams_org_name_unique')
    .on('teams')
    .columns(['organization_id'])
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  // At most one owners team per organization, enforced by the schema.
  await db.schema.createIndex('teams_one_owners_team').on('teams').column('organization_id').unique().where(sql.ref('is_owners'), '=', true).execute();

  await db.schema
    .createTable('team_memberships')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_memberships_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_memberships_user').on('team_memberships').column('user_id').execute();

  await db.schema
    .createTable('auth_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expired_at', 'text')
    .execute();
  await db.schema.createIndex('auth_tokens_user').on('auth_tokens').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('auth_tokens_org').on('auth_tokens').columns(['organization_id', 'kind']).execute();
  await db.schema.createIndex('auth_tokens_created_by').on('auth_tokens').column('created_by_user_id').execute();
  // One organization token per organization: a second insert fails even under a race.
  await db.schema
    .createIndex('auth_tokens_one_org_token')
    .on('auth_tokens')
    .column('organization_id')
    .unique()
    .where(sql.ref('kind'), '=', 'organization')
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('auto_destroy_activity_duration', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('projects_org_name_unique')
    .on('projects')
    .column('organization_id')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  await db.schema.createIndex('projects_one_default').on('projects').column('organization_id').unique().where(sql.ref('is_default'), '=', true).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

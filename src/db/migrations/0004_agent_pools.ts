// Agent pools, the agents that register with them, and the pool's agent tokens (rows of
// auth_tokens with kind 'agent'). Deleting a pool deletes its tokens and agents in the same
// statement, through the foreign keys, so a token of a deleted pool cannot authenticate.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_pools')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('organization_scoped', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Unique per organization, case-insensitively; also the index behind `sort=name`.
  await db.schema
    .createIndex('agent_pools_org_name_unique')
    .on('agent_pools')
    .column('organization_id')
    .expression(sql`lower(name)`)
    .unique()
    .execute();
  await db.schema.createIndex('agent_pools_org_created').on('agent_pools').columns(['organization_id', 'created_at']).execute();

  await db.schema
    .alterTable('auth_tokens')
    .addColumn('agent_pool_id', 'text', (c) => c.references('agent_pools.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('auth_tokens_agent_pool').on('auth_tokens').columns(['agent_pool_id', 'created_at']).execute();

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_pool_id', 'text', (c) => c.notNull().references('agent_pools.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('last_ping_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agents_pool_created').on('agents').columns(['agent_pool_id', 'created_at']).execute();
  // Behind the grouped agent-count query of a page of pools.
  await db.schema.createIndex('agents_pool_status').on('agents').columns(['agent_pool_id', 'status']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

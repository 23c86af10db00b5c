// Migrations are TypeScript modules listed here in order; Kysely records what has run.
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from './index.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as agentPools from './migrations/0004_agent_pools.ts';

const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0004_agent_pools': agentPools,
};

export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

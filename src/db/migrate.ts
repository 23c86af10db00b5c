// Migrations are TypeScript modules listed here in order; Kysely records what has run.
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from './index.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as policySets from './migrations/0003_policy_sets.ts';

const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0003_policy_sets': policySets,
};

export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    // Kysely looks for its bookkeeping tables in every schema unless told which one is ours; two
    // schemas migrating at once (parallel test files) would otherwise each see the other's.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

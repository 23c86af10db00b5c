// Migration tests start from a database as it was before the migration they test.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from '../../src/db/index.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/db/migrations');

/** Runs every migration whose name sorts before `name`, as a database made before it would have. */
export async function migrateBefore(database: Database, name: string): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const file of readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const migration = file.replace(/\.ts$/, '');
    if (migration < name) migrations[migration] = await import(path.join(MIGRATIONS, file));
  }
  const schema = database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s : undefined;
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

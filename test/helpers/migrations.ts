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

/**
 * The rows most migration tests start from, written straight into the tables as they were:
 * `user-1`, organization `org-1`, its default project `prj-1` and workspace `ws-1`.
 * Returns the timestamp used and the dialect's way of writing a boolean.
 */
export async function seedWorkspace(database: Database): Promise<{ at: string; bool: (b: boolean) => boolean | number }> {
  const db = database.db as any;
  const at = new Date().toISOString();
  const bool = (b: boolean) => (database.dialect === 'postgres' ? b : Number(b));
  await db.insertInto('users').values({ id: 'user-1', username: 'u1', email: 'u1@example.test', created_at: at }).execute();
  await db.insertInto('organizations').values({ id: 'org-1', name: 'org-1', email: 'o@example.test', service_user_id: 'user-1', created_at: at }).execute();
  await db
    .insertInto('projects')
    .values({ id: 'prj-1', organization_id: 'org-1', name: 'p', is_default: bool(true), created_at: at })
    .execute();
  await db.insertInto('workspaces').values({ id: 'ws-1', organization_id: 'org-1', project_id: 'prj-1', name: 'w', created_at: at, updated_at: at }).execute();
  return { at, bool };
}

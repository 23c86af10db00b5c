// Performance (issue 12).
//
// PostgreSQL: every write to a table that authentication or authorization reads notifies
// `hangar_auth` when it commits, so that every instance drops what it has cached (db/changes.ts).
// Statement-level triggers: one notification per statement at most, and PostgreSQL folds equal
// notifications of one transaction into one. Writes to `auth_tokens.last_used_at` alone notify
// nobody (bookkeeping, written once a minute per token in use).
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { NOTIFY_CHANNEL } from '../changes.ts';

const NOTIFYING: ReadonlyArray<readonly [table: string, events: string]> = [
  ['auth_tokens', 'insert or delete or truncate or update of kind, digest, user_id, organization_id, agent_pool_id, expired_at'],
  ['users', 'insert or update or delete or truncate'],
  ['organizations', 'insert or update or delete or truncate'],
  ['teams', 'insert or update or delete or truncate'],
  ['team_memberships', 'insert or update or delete or truncate'],
  ['team_projects', 'insert or update or delete or truncate'],
  ['agent_pools', 'insert or update or delete or truncate'],
];

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  if (postgres) {
    await sql`
      create function hangar_auth_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(NOTIFY_CHANNEL)}, '');
        return null;
      end
      $$`.execute(db);
    for (const [table, events] of NOTIFYING) {
      await sql`create trigger ${sql.id(`${table}_auth_changed`)} after ${sql.raw(events)} on ${sql.table(table)}
        for each statement execute function hangar_auth_changed()`.execute(db);
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

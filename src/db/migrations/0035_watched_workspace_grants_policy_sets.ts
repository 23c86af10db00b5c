// Workspace grants and policy sets join the change feed (db/changes.ts, issue 32): a team member's
// grants on a workspace, and the policy set every request on its parameters starts from, are
// cached until they change.
//
// PostgreSQL: writes to `team_workspaces` and `policy_sets` notify `hangar_auth` when they commit,
// with the statement-level triggers and the function of migration 0012, so that every instance
// drops what it has cached. Cascades (a team, workspace or organization deleted) are statements
// on these tables too, and fire the triggers; even one that deletes no row does, so deleting any
// workspace notifies (rare, as deleting a project does through `team_projects`).
//
// SQLite: nothing to add. The serving process sees its own writes in its query plugin; the
// `hangar` commands' commits move SQLite's count of other connections' commits.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../sql.ts';

const NOTIFYING: ReadonlyArray<readonly [table: string, events: string]> = [
  ['team_workspaces', 'insert or update or delete or truncate'],
  ['policy_sets', 'insert or update or delete or truncate'],
];

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const [table, events] of NOTIFYING) {
    await sql`create trigger ${sql.id(`${table}_auth_changed`)} after ${sql.raw(events)} on ${sql.table(table)}
      for each statement execute function hangar_auth_changed()`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

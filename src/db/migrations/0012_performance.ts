// Performance (issue 12).
//
// PostgreSQL: every write to a table that authentication or authorization reads notifies
// `hangar_auth` when it commits, so that every instance drops what it has cached (db/changes.ts).
// Statement-level triggers: one notification per statement at most, and PostgreSQL folds equal
// notifications of one transaction into one. Writes to `auth_tokens.last_used_at` alone notify
// nobody (bookkeeping, written once a minute per token in use).
//
// Both: `organization_project_counts`, each organization's number of projects, kept by triggers
// on `projects` in the transaction that inserts or deletes (so exact under any concurrency: on
// PostgreSQL the counter row is locked until the writer commits), so that a list's total is one
// row read instead of a count over every project of the organization.
//
// Both: project names indexed by trigrams for `q=` of three characters or more: an FTS5 table with
// the trigram tokenizer (SQLite, kept by triggers) and a pg_trgm GIN index on lower(name)
// (PostgreSQL).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../sql.ts';
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

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('organization_project_counts')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('projects', 'integer', (c) => c.notNull().check(sql`projects >= 0`))
    .execute();
  await sql`insert into organization_project_counts (organization_id, projects)
    select organization_id, count(*) from projects group by organization_id`.execute(db);
  // A first project creates the organization's row; a delete always finds it (the check would
  // refuse an insert of -1 before any conflict clause is considered).
  const bumpCount = (org: string, by: '1' | '-1') =>
    sql.raw(
      by === '1'
        ? `insert into organization_project_counts (organization_id, projects) values (${org}, 1)
           on conflict (organization_id) do update set projects = organization_project_counts.projects + 1`
        : `update organization_project_counts set projects = projects - 1 where organization_id = ${org}`,
    );
  if (postgres) {
    // Statement-level, over the transition tables: one counter update per organization per
    // statement, not one per row (a bulk insert of 100,000 rows would otherwise update one row
    // 100,000 times in a transaction).
    await sql`
      create function hangar_count_projects_inserted() returns trigger language plpgsql as $$
      begin
        insert into organization_project_counts (organization_id, projects)
          select organization_id, count(*) from inserted group by organization_id
          on conflict (organization_id) do update set projects = organization_project_counts.projects + excluded.projects;
        return null;
      end
      $$`.execute(db);
    await sql`
      create function hangar_count_projects_deleted() returns trigger language plpgsql as $$
      begin
        update organization_project_counts c set projects = c.projects - d.n
          from (select organization_id, count(*) as n from deleted group by organization_id) d
          where c.organization_id = d.organization_id;
        return null;
      end
      $$`.execute(db);
    // Transition tables allow no column list, so every update of projects comes here; only rows
    // whose organization changed count (none do today, renames included).
    await sql`
      create function hangar_count_projects_moved() returns trigger language plpgsql as $$
      begin
        update organization_project_counts c set projects = c.projects - d.n
          from (select o.organization_id, count(*) as n from old_rows o join new_rows n using (id)
                where o.organization_id <> n.organization_id group by o.organization_id) d
          where c.organization_id = d.organization_id;
        insert into organization_project_counts (organization_id, projects)
          select n.organization_id, count(*) from old_rows o join new_rows n using (id)
          where o.organization_id <> n.organization_id group by n.organization_id
          on conflict (organization_id) do update set projects = organization_project_counts.projects + excluded.projects;
        return null;
      end
      $$`.execute(db);
    await sql`create trigger projects_count_inserted after insert on projects referencing new table as inserted
      for each statement execute function hangar_count_projects_inserted()`.execute(db);
    await sql`create trigger projects_count_deleted after delete on projects referencing old table as deleted
      for each statement execute function hangar_count_projects_deleted()`.execute(db);
    await sql`create trigger projects_count_moved after update on projects referencing old table as old_rows new table as new_rows
      for each statement execute function hangar_count_projects_moved()`.execute(db);
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index projects_name_trgm on projects using gin (lower(name) gin_trgm_ops)`.execute(db);
  } else {
    await sql`create trigger projects_count_insert after insert on projects begin ${bumpCount('new.organization_id', '1')}; end`.execute(db);
    await sql`create trigger projects_count_delete after delete on projects begin ${bumpCount('old.organization_id', '-1')}; end`.execute(db);
    await sql`create trigger projects_count_move after update of organization_id on projects when old.organization_id <> new.organization_id begin
      ${bumpCount('old.organization_id', '-1')}; ${bumpCount('new.organization_id', '1')}; end`.execute(db);
    // The names, lower-cased, by project rowid (external content would read `name` unlowered).
    await sql`create virtual table projects_name_search using fts5(name, tokenize = 'trigram')`.execute(db);
    await sql`insert into projects_name_search (rowid, name) select rowid, lower(name) from projects`.execute(db);
    await sql`create trigger projects_search_insert after insert on projects begin
      insert into projects_name_search (rowid, name) values (new.rowid, lower(new.name)); end`.execute(db);
    await sql`create trigger projects_search_delete after delete on projects begin
      delete from projects_name_search where rowid = old.rowid; end`.execute(db);
    await sql`create trigger projects_search_rename after update of name on projects begin
      update projects_name_search set name = lower(new.name) where rowid = old.rowid; end`.execute(db);
  }
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

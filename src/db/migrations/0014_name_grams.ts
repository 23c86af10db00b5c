// Project name grams (issue 12): `project_name_grams`, for each organization and each string of
// one or two characters ("gram"), how many of its projects' lower-cased names contain it. Kept by
// triggers on `projects` in the writing transaction, like `organization_project_counts`
// (migration 0012), so that the exact count of a `q=` of one or two characters, too short for the
// trigram index, is one row read instead of a scan of the organization's names.
//
// A project counts once per distinct gram of its name. The grams are cut from the name as each
// engine's search folds it, so that a counter equals the search's count exactly: SQLite's LIKE
// folds ASCII letters only, as its lower() does; PostgreSQL's search is `lower(name) like`, so the
// grams are cut from lower(name). Only searches of ASCII text read the counters (projects/store.ts).
//
// No CHECK (projects >= 0): PostgreSQL checks a proposed row before it looks for a conflict, and
// a rename's gains and losses go through one upsert of signed deltas in gram order, so that two
// concurrent writers lock the counter rows they share in the same order and cannot deadlock.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../sql.ts';

/**
 * SQLite: the distinct (id, organization_id, gram) of the project row `r` (`new`, `old`, or an
 * alias of `projects` in `from`). Triggers may not use WITH, so the positions 0 … length - 1 are
 * the keys of a JSON array of that many zeros (`hex(zeroblob(n))` is n × "00"): exact for a name of
 * any length, with no table of positions to outgrow.
 */
const sqliteGrams = (r: string, from = '') => `
  select distinct ${r}.id, ${r}.organization_id, lower(substr(${r}.name, positions.key + 1, widths.w)) as gram
  from ${from} json_each('[' || rtrim(replace(hex(zeroblob(length(${r}.name))), '00', '0,'), ',') || ']') as positions,
    (select 1 as w union all select 2) as widths
  where positions.key + widths.w <= length(${r}.name)`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_name_grams')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('gram', 'text', (c) => c.notNull())
    .addColumn('projects', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_name_grams_pkey', ['organization_id', 'gram'])
    .execute();

  if (isPostgres(db)) {
    // The distinct grams of one name, as `lower(name) like` sees it (lower() takes the collation
    // of the caller's argument, the column's).
    await sql`
      create function hangar_name_grams(name text) returns setof text language sql stable as $$
        select distinct substr(lower(name), i, w)
        from generate_series(1, length(lower(name))) as i, (values (1), (2)) as widths (w)
        where i + w - 1 <= length(lower(name))
      $$`.execute(db);
    await sql`insert into project_name_grams (organization_id, gram, projects)
      select p.organization_id, g.gram, count(*) from projects p cross join lateral hangar_name_grams(p.name) as g (gram)
      group by p.organization_id, g.gram`.execute(db);
    // Statement-level, over the transition tables (as in 0012): a bulk insert of 100,000 projects
    // updates each counter once. Every statement writes its counters in (organization, gram)
    // order, in one statement, so concurrent writers never wait on each other in a circle.
    await sql`
      create function hangar_grams_projects_inserted() returns trigger language plpgsql as $$
      begin
        insert into project_name_grams (organization_id, gram, projects)
          select r.organization_id, g.gram, count(*) from inserted r cross join lateral hangar_name_grams(r.name) as g (gram)
          group by r.organization_id, g.gram order by r.organization_id, g.gram
          on conflict (organization_id, gram) do update set projects = project_name_grams.projects + excluded.projects;
        return null;
      end
      $$`.execute(db);
    // A delete only decrements, and finds no row when the organization's counters went first in
    // the same cascade, hence an update (an upsert would insert a row for a deleted organization);
    // its rows are locked in order first.
    await sql`
      create function hangar_grams_projects_deleted() returns trigger language plpgsql as $$
      begin
        with gone as materialized (
          select d.organization_id, g.gram, count(*) as n from deleted d cross join lateral hangar_name_grams(d.name) as g (gram)
          group by d.organization_id, g.gram
        ), locked as materialized (
          select c.organization_id, c.gram, gone.n from project_name_grams c join gone using (organization_id, gram)
          order by c.organization_id, c.gram for update of c
        )
        update project_name_grams c set projects = c.projects - locked.n from locked
          where c.organization_id = locked.organization_id and c.gram = locked.gram;
        return null;
      end
      $$`.execute(db);
    // Renames (and a change of organization, which nothing does today): the old name's grams
    // count -1, the new name's +1, summed per gram; grams both names hold cancel out.
    await sql`
      create function hangar_grams_projects_updated() returns trigger language plpgsql as $$
      begin
        insert into project_name_grams (organization_id, gram, projects)
          select organization_id, gram, sum(n) from (
            select o.organization_id, g.gram, -1 as n from old_rows o join new_rows r using (id)
              cross join lateral hangar_name_grams(o.name) as g (gram)
              where o.name <> r.name or o.organization_id <> r.organization_id
            union all
            select r.organization_id, g.gram, 1 as n from old_rows o join new_rows r using (id)
              cross join lateral hangar_name_grams(r.name) as g (gram)
              where o.name <> r.name or o.organization_id <> r.organization_id
          ) as d
          group by organization_id, gram having sum(n) <> 0 order by organization_id, gram
          on conflict (organization_id, gram) do update set projects = project_name_grams.projects + excluded.projects;
        return null;
      end
      $$`.execute(db);
    await sql`create trigger projects_grams_inserted after insert on projects referencing new table as inserted
      for each statement execute function hangar_grams_projects_inserted()`.execute(db);
    await sql`create trigger projects_grams_deleted after delete on projects referencing old table as deleted
      for each statement execute function hangar_grams_projects_deleted()`.execute(db);
    await sql`create trigger projects_grams_updated after update on projects referencing old table as old_rows new table as new_rows
      for each statement execute function hangar_grams_projects_updated()`.execute(db);
  } else {
    await sql`insert into project_name_grams (organization_id, gram, projects)
      select organization_id, gram, count(*) from (${sql.raw(sqliteGrams('p', 'projects as p,'))})
      group by organization_id, gram`.execute(db);
    // Row-level: SQLite runs one writer at a time. `where true` tells SQLite the ON CONFLICT
    // belongs to the insert, not to a join.
    const add = (r: 'new') => `insert into project_name_grams (organization_id, gram, projects)
      select organization_id, gram, 1 from (${sqliteGrams(r)}) where true
      on conflict (organization_id, gram) do update set projects = projects + 1`;
    // A delete in an organization's cascade may find its counters gone already: nothing to do.
    const remove = (r: 'old') => `update project_name_grams set projects = projects - 1
      where organization_id = ${r}.organization_id and gram in (select gram from (${sqliteGrams(r)}))`;
    await sql`create trigger projects_grams_insert after insert on projects begin ${sql.raw(add('new'))}; end`.execute(db);
    await sql`create trigger projects_grams_delete after delete on projects begin ${sql.raw(remove('old'))}; end`.execute(db);
    await sql`create trigger projects_grams_rename after update of name, organization_id on projects
      when old.name <> new.name or old.organization_id <> new.organization_id
      begin ${sql.raw(remove('old'))}; ${sql.raw(add('new'))}; end`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

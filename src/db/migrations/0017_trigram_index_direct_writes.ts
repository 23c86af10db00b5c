// PostgreSQL's GIN indexes buffer new entries in a pending list by default (`fastupdate`), and
// every search reads that whole list until VACUUM, or the list outgrowing its limit, merges it
// into the index. The projects' trigram index (0012) answers every `q=` of three characters or
// more, in every organization, and names are searched far more often than projects are created:
// in the bench, a few thousand creates in another organization made a search at 100,000 projects
// cost PostgreSQL 3.2-3.9 ms a request instead of about 2 ms; by hand, 5,000 inserts took a
// 0.6 ms count of matches to 1.6 ms, and with the list off it stayed at 0.6 ms. Written straight
// into the index, a create costs a little more and a search stays flat. What is already pending
// is merged now.
// SQLite's FTS5 index keeps no such list.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../sql.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter index projects_name_trgm set (fastupdate = off)`.execute(db);
  await sql`select gin_clean_pending_list('projects_name_trgm'::regclass)`.execute(db);
}

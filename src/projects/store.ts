import { sql, type Expression, type ExpressionBuilder, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import { compiledOnce } from '../db/compiled.ts';
import { countedPages, matchingOf, totalOf } from '../db/counted-page.ts';
import { filterKey, type RowFilter } from '../db/filter.ts';
import type { Window } from '../db/list.ts';
import type { ProjectsTable, Schema } from '../db/schema.ts';
import { containsInsensitive, containsInsensitiveSqlite, supportsRowLocks } from '../db/sql.ts';

export interface Project {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  autoDestroyActivityDuration: string | null;
  isDefault: boolean;
  createdAt: string;
}

export const DEFAULT_PROJECT_NAME = 'Default Project';

const PROJECTS = columns<ProjectsTable, Project>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  description: 'description',
  autoDestroyActivityDuration: 'auto_destroy_activity_duration',
  isDefault: bool('is_default'),
  createdAt: 'created_at',
});
const changes = PROJECTS.patch('name', 'description', 'autoDestroyActivityDuration');

/** A project from its columns read elsewhere (a workspace list carries each workspace's project). */
export const readProject = (row: Selectable<ProjectsTable>): Project => PROJECTS.read(row);

export async function insertProject(q: Queryable, p: Project): Promise<void> {
  await q.insertInto('projects').values(PROJECTS.write(p)).execute();
}

export async function insertDefaultProject(q: Queryable, row: { id: string; organizationId: string; createdAt: string }): Promise<void> {
  await insertProject(q, {
    id: row.id,
    organizationId: row.organizationId,
    name: DEFAULT_PROJECT_NAME,
    description: null,
    autoDestroyActivityDuration: null,
    isDefault: true,
    createdAt: row.createdAt,
  });
}

/** organization id → default project id, for the given organizations (one query). */
export async function defaultProjectIds(q: Queryable, organizationIds: readonly string[]): Promise<Map<string, string>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('projects')
    .select(['id', 'organization_id'])
    .where('organization_id', 'in', organizationIds)
    .where('is_default', '=', true)
    .execute();
  return new Map(rows.map((r) => [r.organization_id, r.id]));
}

/** Which of `ids` are projects of the organization (one query). */
export async function projectIdsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.selectFrom('projects').select('id').where('organization_id', '=', organizationId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

export type RowLock = 'share' | 'update';

/**
 * `lock` takes a row lock on PostgreSQL until the transaction ends: `share` keeps the project
 * from being deleted (moves and creates into it), `update` waits for those to finish (delete).
 */
export async function findProjectById(q: Queryable, id: string, lock?: RowLock): Promise<Project | undefined> {
  let query = q.selectFrom('projects').selectAll().where('id', '=', id);
  if (lock && supportsRowLocks(q)) query = lock === 'share' ? query.forShare() : query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && PROJECTS.read(r);
}

/** How many workspaces and teams a project has: subqueries beside its columns, one statement for a show or a page. */
const withCounts = <Q extends SelectQueryBuilder<Schema, 'projects', Selectable<ProjectsTable>>>(query: Q) =>
  query.select((eb) => [
    eb
      .selectFrom('workspaces')
      .select((w) => w.fn.countAll<number>().as('n'))
      .whereRef('workspaces.project_id', '=', 'projects.id')
      .as('workspace_count'),
    eb
      .selectFrom('team_projects')
      .select((t) => t.fn.countAll<number>().as('n'))
      .whereRef('team_projects.project_id', '=', 'projects.id')
      .as('team_count'),
  ]);

/** A project with the counts `withCounts` added. */
export interface CountedProject {
  project: Project;
  workspaceCount: number;
  teamCount: number;
}

// The reader takes the project's columns and ignores the counts beside them.
const counted = (r: Selectable<ProjectsTable> & { workspace_count: unknown; team_count: unknown }): CountedProject => ({
  project: PROJECTS.read(r),
  workspaceCount: Number(r.workspace_count ?? 0),
  teamCount: Number(r.team_count ?? 0),
});

/**
 * A project and how many workspaces and teams it has, in one statement (a show: one round trip
 * on PostgreSQL). The counts read `workspaces` and `team_projects`, the one place this store
 * looks beyond its table, so that a show needs no second query.
 */
const projectWithCounts = compiledOnce((q: Queryable, id: string) => withCounts(q.selectFrom('projects').selectAll('projects')).where('projects.id', '=', id));

export async function findProjectWithCounts(q: Queryable, id: string): Promise<CountedProject | undefined> {
  const [r] = await projectWithCounts(q, id);
  return r && counted(r);
}

export async function findProjectsByIds(q: Queryable, ids: readonly string[]): Promise<Project[]> {
  if (ids.length === 0) return [];
  const rows = await q
    .selectFrom('projects')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows.map(PROJECTS.read);
}

export async function findDefaultProject(q: Queryable, organizationId: string): Promise<Project | undefined> {
  const r = await q.selectFrom('projects').selectAll().where('organization_id', '=', organizationId).where('is_default', '=', true).executeTakeFirst();
  return r && PROJECTS.read(r);
}

export async function updateProject(
  q: Queryable,
  id: string,
  patch: Partial<Pick<Project, 'name' | 'description' | 'autoDestroyActivityDuration'>>,
): Promise<void> {
  const set = changes(patch);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('projects').set(set).where('id', '=', id).execute();
}

export async function deleteProject(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** By name (case-insensitive), or null for the default order: creation, newest first. */
export type ProjectSort = { descending: boolean } | null;

export interface ProjectListFilter {
  organizationId: string;
  /** The projects the caller may see: `total` counts these. */
  visible: RowFilter<'projects'>;
  /** Case-insensitive exact names, any of them; wins over `search`. */
  names?: readonly string[];
  /** Case-insensitive substring of the name. */
  search?: string;
  /** Permission filters: a project must pass every one of these. */
  required: ReadonlyArray<RowFilter<'projects'>>;
  sort: ProjectSort;
}

/**
 * Search text the gram counters answer exactly: one or two printable ASCII characters, which
 * JavaScript, SQLite and PostgreSQL lower-case alike (other characters fold differently on each).
 */
const COUNTED_GRAM = /^[\x20-\x7e]{1,2}$/;

/** Search text this long or longer is looked up by trigram (FTS5 on SQLite, pg_trgm on PostgreSQL). */
const TRIGRAM = 3;

/** A search the trigram index answers: no name filter, and search text of TRIGRAM characters or more. */
const trigramSearch = (f: ProjectListFilter) => !f.names?.length && [...(f.search ?? '')].length >= TRIGRAM;

/**
 * Case-insensitive substring of the name. On SQLite, three characters or more are first looked
 * up in the trigram index (`projects_name_search`, by rowid; Hangar never runs VACUUM, which
 * could renumber the rowids of a table without an integer key); the LIKE stays the exact test.
 * PostgreSQL's planner picks the pg_trgm index for the LIKE by itself.
 */
function nameContains(eb: ExpressionBuilder<Schema, 'projects'>, text: string, fts: boolean): Expression<SqlBool> {
  if (!fts) return containsInsensitive('projects.name', text);
  const like = containsInsensitiveSqlite('projects.name', text);
  if ([...text].length < TRIGRAM) return like;
  const phrase = `"${text.toLowerCase().replace(/"/g, '""')}"`;
  return eb.and([sql<SqlBool>`projects.rowid in (select rowid from projects_name_search where projects_name_search match ${phrase})`, like]);
}

/** The organization's project counter (migration 0012), as a subquery. */
const counterOf = (q: Queryable, organizationId: string) =>
  q.selectFrom('organization_project_counts').select('projects').where('organization_id', '=', organizationId);

/** A page's row: a project, its counts, and the list's counts beside it. */
type PageRow = Selectable<ProjectsTable> & { workspace_count: unknown; team_count: unknown };
const projectPages = countedPages<PageRow>({ matching: true });

/** The list's queries, built only when needed (a page compiled before is not built again). */
function listQueries(q: Queryable, f: ProjectListFilter, page: Window, fts: boolean) {
  const required = f.required.filter((r) => r !== null);
  // SQLite, without statistics, takes the organization index for selective and walks every
  // project of a large organization testing each against the grants or the trigram match.
  // When either narrows the list, `+` keeps it off that index, so the plan starts from the few
  // granted or matching ids (primary key lookups) instead. PostgreSQL plans by its statistics.
  const trigram = trigramSearch(f);
  const narrowed = fts && (f.visible !== null || trigram);
  let base = narrowed
    ? q.selectFrom('projects').where(sql<string>`+projects.organization_id`, '=', f.organizationId)
    : q.selectFrom('projects').where('organization_id', '=', f.organizationId);
  if (f.visible) base = base.where(f.visible);
  const names = f.names?.length ? f.names.map((n) => n.toLowerCase()) : null;
  const matching = (eb: ExpressionBuilder<Schema, 'projects'>) => {
    const parts: Expression<SqlBool>[] = required.map((filter) => filter(eb));
    if (names) parts.push(eb(eb.fn('lower', ['projects.name']), 'in', names));
    else if (f.search) parts.push(nameContains(eb, f.search, fts));
    return eb.and(parts);
  };
  // Unqualified columns: it orders the trigram search's matches (below) as it orders projects.
  const ordered = <Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q => {
    if (f.sort === null) return query.orderBy('seq', 'desc') as Q;
    const direction = f.sort.descending ? 'desc' : 'asc';
    return query.orderBy(sql`lower(name)`, direction).orderBy('id', direction) as Q;
  };
  const matched = base.selectAll().where(matching);
  const filtered = required.length > 0 || names !== null || Boolean(f.search);
  const countOf = (query: typeof base) => query.select((eb) => eb.fn.countAll<number>().as('n'));
  // A caller who sees every project, searching one or two characters (too short for the trigram
  // index) and filtering nothing else, matches exactly the projects the gram's counter counts:
  // one row read instead of a scan of every name. The page itself is still the LIKE over the
  // ordering, which stops once the page is full.
  const byGram = f.visible === null && required.length === 0 && names === null && f.search !== undefined && COUNTED_GRAM.test(f.search);
  const total = f.visible === null ? counterOf(q, f.organizationId) : countOf(base);
  const matches = byGram
    ? q.selectFrom('project_name_grams').select('projects').where('organization_id', '=', f.organizationId).where('gram', '=', f.search!.toLowerCase())
    : filtered
      ? countOf(base.where(matching))
      : total;
  const window = <Q extends SelectQueryBuilder<Schema, 'projects', any>>(query: Q) => ordered(withCounts(query)).limit(page.size).offset(page.offset);
  // SQLite, a trigram search: the page and the matching count both need the matches, and the
  // match (the trigram lookup, then each candidate's row and LIKE) costs more than the rest of
  // the page. So the matches are made once, a materialized CTE of their rowids and ordering
  // columns; the window is taken from it, and only the page's rows are read in full with their
  // workspace and team counts (a page read from `matched` computes those for every match before
  // sorting). SQLite materializes the CTE once for both readers (EXPLAIN: one MATERIALIZE, one
  // FTS5 filter); figures in docs/performance.md.
  const fromMatches = () => {
    const matches = base.where(matching).select([sql<number>`projects.rowid`.as('rid'), 'seq', 'name', 'id']);
    // The subqueries come from the statement's own builder: one from `q.with` would repeat the WITH.
    const rows = q
      .with(
        (w) => w('name_matches').materialized(),
        () => matches,
      )
      .selectFrom('projects')
      .where((eb) => eb(sql`projects.rowid`, 'in', ordered(eb.selectFrom('name_matches').select('rid')).limit(page.size).offset(page.offset)))
      .selectAll()
      .select((eb) => [total.as('total_count'), eb.selectFrom('name_matches').select(eb.fn.countAll<number>().as('n')).as('matching_count')]);
    return ordered(withCounts(rows));
  };
  return {
    /** The page, each row with its counts and the list's. */
    // Without a filter the two counts are one: counted once.
    page: () =>
      fts && trigram
        ? fromMatches()
        : window(matched.select(matches === total ? [total.as('total_count')] : [total.as('total_count'), matches.as('matching_count')])),
    /** The page alone, read from the matches first when `fromMatches` (see below). */
    pageAlone: (fromMatches: boolean) => window(fromMatches ? q.selectFrom(matched.offset(0).as('projects')).selectAll() : matched),
    counts: () => q.selectNoFrom([total.as('total_count'), matches.as('matching_count')]),
  };
}

/**
 * The page and its counts in one statement, whatever the page size: the counts are subqueries
 * beside each row (SQLite and PostgreSQL evaluate such an uncorrelated subquery once), and so are
 * each project's workspace and team counts. Only a page past the end, which has no row to carry
 * them, takes a second statement for the counts; so does a trigram search on PostgreSQL, which
 * needs them first (below). The total of a caller who sees every project is the organization's
 * counter, not a count. A page asked for again (the same organization, caller's filter, search,
 * sort and window) is not built or compiled again.
 */
export async function listProjects(q: Queryable, f: ProjectListFilter, page: Window): Promise<{ items: CountedProject[]; total: number; matching: number }> {
  // SQLite's trigram index is a table of its own; PostgreSQL's is an index the LIKE uses.
  const fts = !supportsRowLocks(q);
  let built: ReturnType<typeof listQueries> | undefined;
  const queries = () => (built ??= listQueries(q, f, page, fts));
  // PostgreSQL, a trigram search: walking the organization's ordered index until the page is
  // full reads about window × total / matching rows, starting from the trigram matches reads
  // `matching` rows and sorts them. The planner's guess at a LIKE's matches is rough (names that
  // repeat across organizations made it think a search matching 300 of 100,000 matched 1,000, and
  // walk 10,000 rows), while the count, exact and cheap through the trigram index, knows. So the
  // counts come first, and when the matches are few the page is read from them, behind an
  // OFFSET 0 that keeps the planner from folding the ordering into the walk.
  if (!fts && trigramSearch(f)) {
    const counts = await queries().counts().executeTakeFirstOrThrow();
    const [t, m] = [totalOf(counts), matchingOf(counts)];
    const rows = await queries()
      .pageAlone(m * m < (page.offset + page.size) * t)
      .execute();
    return { items: rows.map(counted), total: t, matching: m };
  }
  // JSON: names and search text may hold any character, and no two lists may share a key.
  const filters = [filterKey(f.visible), ...f.required.map(filterKey)];
  const key = filters.includes(null) ? null : JSON.stringify([f.organizationId, filters, f.names ?? null, f.search ?? null, f.sort, page.size, page.offset]);
  const { rows, total, matching } = await projectPages(q, key, { page: () => queries().page(), total: () => queries().counts() });
  return { items: rows.map(counted), total, matching };
}

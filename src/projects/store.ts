import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listed, type Window } from '../db/list.ts';
import type { ProjectsTable, Schema } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';

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

export async function findProjectsByIds(q: Queryable, ids: readonly string[]): Promise<Project[]> {
  if (ids.length === 0) return [];
  const rows = await q.selectFrom('projects').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  return rows.map(PROJECTS.read);
}

export async function findDefaultProject(q: Queryable, organizationId: string): Promise<Project | undefined> {
  const r = await q
    .selectFrom('projects')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('is_default', '=', true)
    .executeTakeFirst();
  return r && PROJECTS.read(r);
}

export async function updateProject(q: Queryable, id: string, patch: Partial<Pick<Project, 'name' | 'description' | 'autoDestroyActivityDuration'>>): Promise<void> {
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

/** One query for the page, one for both counts, whatever the page size. */
export async function listProjects(q: Queryable, f: ProjectListFilter, page: Window) {
  let base = q.selectFrom('projects').where('organization_id', '=', f.organizationId);
  if (f.visible) base = base.where(f.visible);
  const required = f.required.filter((r) => r !== null);
  const names = f.names?.length ? f.names.map((n) => n.toLowerCase()) : null;
  const matching = (eb: ExpressionBuilder<Schema, 'projects'>) => {
    const parts: Expression<SqlBool>[] = required.map((filter) => filter(eb));
    if (names) parts.push(eb(eb.fn('lower', ['projects.name']), 'in', names));
    else if (f.search) parts.push(containsInsensitive('projects.name', f.search));
    return eb.and(parts);
  };
  let rows = base.selectAll().where(matching);
  if (f.sort === null) rows = rows.orderBy('created_at', 'desc').orderBy('id', 'desc');
  else {
    const direction = f.sort.descending ? 'desc' : 'asc';
    rows = rows.orderBy(sql`lower(name)`, direction).orderBy('id', direction);
  }
  const filtered = required.length > 0 || names !== null || Boolean(f.search);
  // Without filters every visible project matches: counting once, with no per-row CASE, halves
  // the cost of the count that dominates large organizations.
  const counts = filtered
    ? base
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(matching(eb)).then(1).else(0).end()), eb.lit(0)).as('matching'),
        ])
        .executeTakeFirstOrThrow()
    : base
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow()
        .then((c) => ({ total: c.total, matching: c.total }));
  const { items, counts: c } = await listed(rows, page, PROJECTS.read, counts);
  return { items, total: Number(c.total), matching: Number(c.matching) };
}

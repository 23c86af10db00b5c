import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { ProjectsTable, Schema } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';
import type { ProjectScope } from '../auth/permissions.ts';
import { projectsGrantedTo } from '../team-projects/store.ts';

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

function toProject(r: Selectable<ProjectsTable>): Project {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    autoDestroyActivityDuration: r.auto_destroy_activity_duration,
    isDefault: Boolean(r.is_default),
    createdAt: r.created_at,
  };
}

export async function insertProject(q: Queryable, p: Project): Promise<void> {
  await q
    .insertInto('projects')
    .values({
      id: p.id,
      organization_id: p.organizationId,
      name: p.name,
      description: p.description,
      auto_destroy_activity_duration: p.autoDestroyActivityDuration,
      is_default: p.isDefault,
      created_at: p.createdAt,
    })
    .execute();
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
  return r && toProject(r);
}

export async function findProjectsByIds(q: Queryable, ids: readonly string[]): Promise<Project[]> {
  if (ids.length === 0) return [];
  const rows = await q.selectFrom('projects').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  return rows.map(toProject);
}

export async function findDefaultProject(q: Queryable, organizationId: string): Promise<Project | undefined> {
  const r = await q
    .selectFrom('projects')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('is_default', '=', true)
    .executeTakeFirst();
  return r && toProject(r);
}

export async function updateProject(
  q: Queryable,
  id: string,
  patch: { name?: string; description?: string | null; autoDestroyActivityDuration?: string | null },
): Promise<void> {
  const set: Updateable<ProjectsTable> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.autoDestroyActivityDuration !== undefined) set.auto_destroy_activity_duration = patch.autoDestroyActivityDuration;
  if (Object.keys(set).length === 0) return;
  await q.updateTable('projects').set(set).where('id', '=', id).execute();
}

export async function deleteProject(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

type ProjectsEb = ExpressionBuilder<Schema & { p: ProjectsTable }, 'p'>;

/** A ProjectScope (auth/permissions.ts) as a condition on `projects as p`. */
function inScope(q: Queryable, eb: ProjectsEb, scope: ProjectScope) {
  if (scope.all) return eb.and([]);
  const parts: Expression<SqlBool>[] = [];
  if (scope.defaultProject) parts.push(eb('p.is_default', '=', true));
  if (scope.teamIds.length) parts.push(eb('p.id', 'in', projectsGrantedTo(q, scope.teamIds, scope.grant)));
  return eb.or(parts);
}

/**
 * Subquery: ids of the organization's projects in `scope`, or null when that is all of them
 * (no condition needed). For other domains' lists, e.g. the workspaces the caller may see.
 */
export function projectIdsInScope(q: Queryable, organizationId: string, scope: ProjectScope) {
  if (scope.all) return null;
  return q
    .selectFrom('projects as p')
    .select('p.id')
    .where('p.organization_id', '=', organizationId)
    .where((eb) => inScope(q, eb, scope));
}

/** By name (case-insensitive), or null for the default order: creation, oldest first. */
export type ProjectSort = { descending: boolean } | null;

export interface ProjectListFilter {
  organizationId: string;
  /** The projects the caller may see: `total` counts these. */
  visible: ProjectScope;
  /** Case-insensitive exact names, any of them; wins over `search`. */
  names?: readonly string[];
  /** Case-insensitive substring of the name. */
  search?: string;
  /** Permission filters: a project must be in every one of these scopes. */
  required: readonly ProjectScope[];
  sort: ProjectSort;
}

/** One query for the page, one for both counts, whatever the page size. */
export async function listProjects(q: Queryable, f: ProjectListFilter, page: { offset: number; size: number }) {
  const base = q
    .selectFrom('projects as p')
    .where('p.organization_id', '=', f.organizationId)
    .where((eb) => inScope(q, eb, f.visible));
  const matching = (eb: ProjectsEb) => {
    const parts: Expression<SqlBool>[] = f.required.map((scope) => inScope(q, eb, scope));
    if (f.names && f.names.length) parts.push(eb(eb.fn('lower', ['p.name']), 'in', f.names.map((n) => n.toLowerCase())));
    else if (f.search) parts.push(containsInsensitive('p.name', f.search));
    return eb.and(parts);
  };
  let pageQuery = base.selectAll('p').where(matching);
  if (f.sort === null) pageQuery = pageQuery.orderBy('p.created_at').orderBy('p.id');
  else {
    const direction = f.sort.descending ? 'desc' : 'asc';
    pageQuery = pageQuery.orderBy(sql`lower(p.name)`, direction).orderBy('p.id', direction);
  }
  const filtered = f.required.length > 0 || Boolean(f.names?.length) || Boolean(f.search);
  const [rows, counts] = await Promise.all([
    pageQuery.limit(page.size).offset(page.offset).execute(),
    // Without filters every visible project matches: counting once, with no per-row CASE, halves
    // the cost of the count that dominates large organizations.
    filtered
      ? base
          .select((eb) => [
            eb.fn.countAll<number>().as('total'),
            eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(matching(eb)).then(1).else(0).end()), eb.lit(0)).as('matching'),
          ])
          .executeTakeFirstOrThrow()
      : base
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .executeTakeFirstOrThrow()
          .then((c) => ({ total: c.total, matching: c.total })),
  ]);
  return { items: rows.map(toProject), total: Number(counts.total), matching: Number(counts.matching) };
}

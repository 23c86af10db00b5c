import { sql } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { WorkspacesTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';

export interface Workspace {
  id: string;
  organizationId: string;
  projectId: string;
  name: string;
  description: string | null;
  /** The workspace's own duration, in effect only when it does not inherit its project's. */
  autoDestroyActivityDuration: string | null;
  inheritsProjectAutoDestroy: boolean;
  createdAt: string;
  updatedAt: string;
}

const WORKSPACES = columns<WorkspacesTable, Workspace>({
  id: 'id',
  organizationId: 'organization_id',
  projectId: 'project_id',
  name: 'name',
  description: 'description',
  autoDestroyActivityDuration: 'auto_destroy_activity_duration',
  inheritsProjectAutoDestroy: bool('inherits_project_auto_destroy'),
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});
const changes = WORKSPACES.patch('name', 'description', 'autoDestroyActivityDuration', 'inheritsProjectAutoDestroy', 'updatedAt');

export async function insertWorkspace(q: Queryable, w: Workspace): Promise<void> {
  await q.insertInto('workspaces').values(WORKSPACES.write(w)).execute();
}

export async function findWorkspaceById(q: Queryable, id: string): Promise<Workspace | undefined> {
  const r = await q.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return r && WORKSPACES.read(r);
}

export async function findWorkspaceByName(q: Queryable, organizationId: string, name: string): Promise<Workspace | undefined> {
  const r = await q
    .selectFrom('workspaces')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && WORKSPACES.read(r);
}

export async function findWorkspacesByIds(q: Queryable, ids: readonly string[]): Promise<Workspace[]> {
  if (ids.length === 0) return [];
  return (await q.selectFrom('workspaces').selectAll().where('id', 'in', [...new Set(ids)]).execute()).map(WORKSPACES.read);
}

/** Which of `ids` are workspaces of the organization (one query). */
export async function workspaceIdsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.selectFrom('workspaces').select('id').where('organization_id', '=', organizationId).where('id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The listed workspaces, locked on PostgreSQL until the transaction ends so that a concurrent
 * move or delete of the same rows waits; locked in id order so two moves cannot deadlock.
 */
export async function lockWorkspaces(q: Queryable, ids: readonly string[]): Promise<Workspace[]> {
  if (ids.length === 0) return [];
  let query = q.selectFrom('workspaces').selectAll().where('id', 'in', [...ids]).orderBy('id');
  if (supportsRowLocks(q)) query = query.forUpdate();
  return (await query.execute()).map(WORKSPACES.read);
}

export type WorkspacePatch = Partial<Pick<Workspace, 'name' | 'description' | 'autoDestroyActivityDuration' | 'inheritsProjectAutoDestroy'>> & {
  updatedAt: string;
};

export async function updateWorkspace(q: Queryable, id: string, patch: WorkspacePatch): Promise<void> {
  await q.updateTable('workspaces').set(changes(patch)).where('id', '=', id).execute();
}

/** One statement however many workspaces move; rows already in the project are left alone. */
export async function moveWorkspaces(q: Queryable, ids: readonly string[], projectId: string, updatedAt: string): Promise<void> {
  if (ids.length === 0) return;
  await q
    .updateTable('workspaces')
    .set({ project_id: projectId, updated_at: updatedAt })
    .where('id', 'in', [...ids])
    .where('project_id', '<>', projectId)
    .execute();
}

export async function deleteWorkspace(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('workspaces').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** project id → number of workspaces in it (one grouped query); absent projects count 0. */
export async function countByProject(q: Queryable, projectIds: readonly string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('workspaces')
    .select((eb) => ['project_id', eb.fn.countAll<number>().as('n')])
    .where('project_id', 'in', [...new Set(projectIds)])
    .groupBy('project_id')
    .execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
}

export interface WorkspaceListFilter {
  organizationId: string;
  /** The workspaces the caller may see. */
  visible: RowFilter<'workspaces'>;
  projectId?: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  descending: boolean;
}

export async function listWorkspaces(q: Queryable, f: WorkspaceListFilter, page: Window) {
  let base = q.selectFrom('workspaces').where('organization_id', '=', f.organizationId);
  if (f.visible) base = base.where(f.visible);
  if (f.projectId !== undefined) base = base.where('project_id', '=', f.projectId);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  const direction = f.descending ? 'desc' : 'asc';
  return listWithTotal(base, base.selectAll().orderBy(sql`lower(name)`, direction).orderBy('id', direction), page, WORKSPACES.read);
}

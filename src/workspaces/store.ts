import { sql, type Selectable, type Updateable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { WorkspacesTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';
import type { ProjectScope } from '../auth/permissions.ts';
import { projectIdsInScope } from '../projects/store.ts';

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

function toWorkspace(r: Selectable<WorkspacesTable>): Workspace {
  return {
    id: r.id,
    organizationId: r.organization_id,
    projectId: r.project_id,
    name: r.name,
    description: r.description,
    autoDestroyActivityDuration: r.auto_destroy_activity_duration,
    inheritsProjectAutoDestroy: Boolean(r.inherits_project_auto_destroy),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function insertWorkspace(q: Queryable, w: Workspace): Promise<void> {
  await q
    .insertInto('workspaces')
    .values({
      id: w.id,
      organization_id: w.organizationId,
      project_id: w.projectId,
      name: w.name,
      description: w.description,
      auto_destroy_activity_duration: w.autoDestroyActivityDuration,
      inherits_project_auto_destroy: w.inheritsProjectAutoDestroy,
      created_at: w.createdAt,
      updated_at: w.updatedAt,
    })
    .execute();
}

export async function findWorkspaceById(q: Queryable, id: string): Promise<Workspace | undefined> {
  const r = await q.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toWorkspace(r);
}

export async function findWorkspaceByName(q: Queryable, organizationId: string, name: string): Promise<Workspace | undefined> {
  const r = await q
    .selectFrom('workspaces')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && toWorkspace(r);
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
  return (await query.execute()).map(toWorkspace);
}

export async function updateWorkspace(
  q: Queryable,
  id: string,
  patch: {
    name?: string;
    description?: string | null;
    autoDestroyActivityDuration?: string | null;
    inheritsProjectAutoDestroy?: boolean;
    updatedAt: string;
  },
): Promise<void> {
  const set: Updateable<WorkspacesTable> = { updated_at: patch.updatedAt };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.autoDestroyActivityDuration !== undefined) set.auto_destroy_activity_duration = patch.autoDestroyActivityDuration;
  if (patch.inheritsProjectAutoDestroy !== undefined) set.inherits_project_auto_destroy = patch.inheritsProjectAutoDestroy;
  await q.updateTable('workspaces').set(set).where('id', '=', id).execute();
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
  /** The projects whose workspaces the caller may see. */
  visible: ProjectScope;
  projectId?: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  descending: boolean;
}

export async function listWorkspaces(q: Queryable, f: WorkspaceListFilter, page: { offset: number; size: number }) {
  let base = q.selectFrom('workspaces').where('organization_id', '=', f.organizationId);
  const visibleProjects = projectIdsInScope(q, f.organizationId, f.visible);
  if (visibleProjects) base = base.where('project_id', 'in', visibleProjects);
  if (f.projectId !== undefined) base = base.where('project_id', '=', f.projectId);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  const direction = f.descending ? 'desc' : 'asc';
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy(sql`lower(name)`, direction).orderBy('id', direction).limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toWorkspace), total: Number(count.n) };
}

import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import { links } from '../db/links.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { VariableSetsTable } from '../db/schema.ts';
import { containsInsensitive } from '../db/sql.ts';

export interface VariableSet {
  id: string;
  organizationId: string;
  /** The project that owns the set (TFE's `parent`); null when the organization does. */
  projectId: string | null;
  name: string;
  description: string;
  global: boolean;
  priority: boolean;
  createdAt: string;
  updatedAt: string;
}

const SETS = columns<VariableSetsTable, VariableSet>({
  id: 'id',
  organizationId: 'organization_id',
  projectId: 'project_id',
  name: 'name',
  description: 'description',
  global: bool('global'),
  priority: bool('priority'),
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});

export const setWorkspaces = links('variable_set_workspaces', { from: 'variable_set_id', to: 'workspace_id' });
export const setProjects = links('variable_set_projects', { from: 'variable_set_id', to: 'project_id' });

export async function insertSet(q: Queryable, set: VariableSet): Promise<void> {
  await q.insertInto('variable_sets').values(SETS.write(set)).execute();
}

export async function findSet(q: Queryable, id: string): Promise<VariableSet | undefined> {
  const r = await q.selectFrom('variable_sets').selectAll().where('id', '=', id).executeTakeFirst();
  return r && SETS.read(r);
}

const setChanges = SETS.patch('name', 'description', 'global', 'priority', 'updatedAt');

export async function updateSet(q: Queryable, id: string, changes: Parameters<typeof setChanges>[0]): Promise<void> {
  await q.updateTable('variable_sets').set(setChanges(changes)).where('id', '=', id).execute();
}

export async function deleteSet(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('variable_sets').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Which sets a list holds: an organization's, those applied to a workspace, or to a project. */
export type SetScope =
  | { kind: 'organization'; organizationId: string }
  | { kind: 'workspace'; organizationId: string; workspaceId: string; projectId: string }
  | { kind: 'project'; organizationId: string; projectId: string };

/** In creation order; `search` is a case-insensitive part of the name. */
export async function listSets(q: Queryable, scope: SetScope, search: string | undefined, page: Window) {
  let base = q.selectFrom('variable_sets').where('organization_id', '=', scope.organizationId);
  if (scope.kind === 'workspace') {
    const { workspaceId, projectId } = scope;
    base = base.where((eb) =>
      eb.or([
        eb('global', '=', true),
        eb('id', 'in', eb.selectFrom('variable_set_workspaces').select('variable_set_id').where('workspace_id', '=', workspaceId)),
        eb('id', 'in', eb.selectFrom('variable_set_projects').select('variable_set_id').where('project_id', '=', projectId)),
      ]),
    );
  } else if (scope.kind === 'project') {
    const { projectId } = scope;
    base = base.where((eb) =>
      eb.or([
        eb('project_id', '=', projectId),
        eb('id', 'in', eb.selectFrom('variable_set_projects').select('variable_set_id').where('project_id', '=', projectId)),
      ]),
    );
  }
  if (search) base = base.where(containsInsensitive('name', search));
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, SETS.read);
}

/** A set that applies to a workspace, and how: the scope decides its precedence. */
export interface AppliedSet {
  id: string;
  name: string;
  priority: boolean;
  scope: 'workspace' | 'project' | 'global';
}

/**
 * The sets whose variables a workspace gets (one query): global ones, those applied to it and
 * those applied to its project. A set applied in several ways counts in the closest way.
 */
export async function setsApplyingTo(q: Queryable, w: { organizationId: string; workspaceId: string; projectId: string }): Promise<AppliedSet[]> {
  const rows = await q
    .selectFrom('variable_sets as s')
    .select((eb) => [
      's.id',
      's.name',
      's.priority',
      's.global',
      eb
        .exists(
          eb
            .selectFrom('variable_set_workspaces as vw')
            .select('vw.workspace_id')
            .whereRef('vw.variable_set_id', '=', 's.id')
            .where('vw.workspace_id', '=', w.workspaceId),
        )
        .as('on_workspace'),
      eb
        .exists(
          eb
            .selectFrom('variable_set_projects as vp')
            .select('vp.project_id')
            .whereRef('vp.variable_set_id', '=', 's.id')
            .where('vp.project_id', '=', w.projectId),
        )
        .as('on_project'),
    ])
    .where('s.organization_id', '=', w.organizationId)
    .where((eb) =>
      eb.or([
        eb('s.global', '=', true),
        eb('s.id', 'in', eb.selectFrom('variable_set_workspaces').select('variable_set_id').where('workspace_id', '=', w.workspaceId)),
        eb('s.id', 'in', eb.selectFrom('variable_set_projects').select('variable_set_id').where('project_id', '=', w.projectId)),
      ]),
    )
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    priority: Boolean(r.priority),
    // A global set reaches every workspace as a global set, whatever else it is applied to.
    scope: Boolean(r.global) ? 'global' : Boolean(r.on_workspace) ? 'workspace' : 'project',
  }));
}

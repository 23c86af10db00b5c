import type { Queryable } from '../db/index.ts';
import { bool, columns, typed } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { TeamWorkspacesTable } from '../db/schema.ts';
import type { WorkspaceAccessLevel, WorkspaceGrant } from '../grants.ts';

export interface TeamWorkspace extends WorkspaceGrant {
  id: string;
  teamId: string;
  workspaceId: string;
  createdAt: string;
}

const TEAM_WORKSPACES = columns<TeamWorkspacesTable, TeamWorkspace>({
  id: 'id',
  teamId: 'team_id',
  workspaceId: 'workspace_id',
  access: typed<WorkspaceAccessLevel>()('access'),
  runs: typed<WorkspaceGrant['runs']>()('runs'),
  variables: typed<WorkspaceGrant['variables']>()('variables'),
  'state-versions': typed<WorkspaceGrant['state-versions']>()('state_versions'),
  'sentinel-mocks': typed<WorkspaceGrant['sentinel-mocks']>()('sentinel_mocks'),
  'workspace-locking': bool('workspace_locking'),
  'run-tasks': bool('run_tasks'),
  createdAt: 'created_at',
});
const grantChanges = TEAM_WORKSPACES.patch('access', 'runs', 'variables', 'state-versions', 'sentinel-mocks', 'workspace-locking', 'run-tasks');

/** workspace id → the grants the given teams hold on it: the data behind a caller's authority. */
export async function grantsOf(q: Queryable, teamIds: readonly string[], workspaceIds: readonly string[]): Promise<Map<string, TeamWorkspace[]>> {
  const result = new Map<string, TeamWorkspace[]>();
  if (teamIds.length === 0 || workspaceIds.length === 0) return result;
  const rows = await q
    .selectFrom('team_workspaces')
    .selectAll()
    .where('team_id', 'in', [...teamIds])
    .where('workspace_id', 'in', [...new Set(workspaceIds)])
    .execute();
  for (const r of rows.map(TEAM_WORKSPACES.read)) {
    const list = result.get(r.workspaceId) ?? [];
    list.push(r);
    result.set(r.workspaceId, list);
  }
  return result;
}

/** Every grant one team holds, on any workspace (at most one per workspace). */
export async function grantsOfTeam(q: Queryable, teamId: string): Promise<TeamWorkspace[]> {
  return (await q.selectFrom('team_workspaces').selectAll().where('team_id', '=', teamId).execute()).map(TEAM_WORKSPACES.read);
}

export async function insertTeamWorkspace(q: Queryable, t: TeamWorkspace): Promise<void> {
  await q.insertInto('team_workspaces').values(TEAM_WORKSPACES.write(t)).execute();
}

export async function updateTeamWorkspace(q: Queryable, id: string, g: WorkspaceGrant): Promise<number> {
  const r = await q.updateTable('team_workspaces').set(grantChanges(g)).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function deleteTeamWorkspace(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('team_workspaces').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function findTeamWorkspace(q: Queryable, id: string): Promise<TeamWorkspace | undefined> {
  const r = await q.selectFrom('team_workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return r && TEAM_WORKSPACES.read(r);
}

export interface TeamWorkspaceFilter {
  workspaceId: string;
  /** The grants on the workspace the caller may see. */
  visible: RowFilter<'team_workspaces'>;
}

export async function listTeamWorkspaces(q: Queryable, f: TeamWorkspaceFilter, page: Window) {
  let base = q.selectFrom('team_workspaces').where('workspace_id', '=', f.workspaceId);
  if (f.visible) base = base.where(f.visible);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, TEAM_WORKSPACES.read);
}

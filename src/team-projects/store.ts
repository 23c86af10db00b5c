import type { Queryable } from '../db/index.ts';
import { bool, columns, typed } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { TeamProjectsTable } from '../db/schema.ts';
import type { ProjectAccessLevel, ProjectAccessValues as P, ProjectGrant, WorkspaceAccessValues as W } from '../grants.ts';

export interface TeamProject extends ProjectGrant {
  id: string;
  teamId: string;
  projectId: string;
  createdAt: string;
}

const TEAM_PROJECTS = columns<TeamProjectsTable, TeamProject>({
  id: 'id',
  teamId: 'team_id',
  projectId: 'project_id',
  access: typed<ProjectAccessLevel>()('access'),
  project: {
    settings: typed<P['settings']>()('project_settings'),
    teams: typed<P['teams']>()('project_teams'),
    'variable-sets': typed<P['variable-sets']>()('project_variable_sets'),
  },
  workspace: {
    runs: typed<W['runs']>()('workspace_runs'),
    'sentinel-mocks': typed<W['sentinel-mocks']>()('workspace_sentinel_mocks'),
    'state-versions': typed<W['state-versions']>()('workspace_state_versions'),
    variables: typed<W['variables']>()('workspace_variables'),
    create: bool('workspace_create'),
    locking: bool('workspace_locking'),
    delete: bool('workspace_delete'),
    move: bool('workspace_move'),
    'run-tasks': bool('workspace_run_tasks'),
  },
  createdAt: 'created_at',
});
const grantChanges = TEAM_PROJECTS.patch('access', 'project', 'workspace');

/** project id → the grants the given teams hold on it: the data behind a caller's authority. */
export async function grantsOf(q: Queryable, teamIds: readonly string[], projectIds: readonly string[]): Promise<Map<string, TeamProject[]>> {
  const result = new Map<string, TeamProject[]>();
  if (teamIds.length === 0 || projectIds.length === 0) return result;
  const rows = await q
    .selectFrom('team_projects')
    .selectAll()
    .where('team_id', 'in', [...teamIds])
    .where('project_id', 'in', [...new Set(projectIds)])
    .execute();
  for (const r of rows.map(TEAM_PROJECTS.read)) {
    const list = result.get(r.projectId) ?? [];
    list.push(r);
    result.set(r.projectId, list);
  }
  return result;
}

/** Every grant one team holds, on any project (a team holds at most one per project). */
export async function grantsOfTeam(q: Queryable, teamId: string): Promise<TeamProject[]> {
  const rows = await q.selectFrom('team_projects').selectAll().where('team_id', '=', teamId).execute();
  return rows.map(TEAM_PROJECTS.read);
}

/** project id → number of teams with access to it, for a page of projects (one grouped query). */
export async function countTeams(q: Queryable, projectIds: readonly string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('team_projects')
    .select((eb) => ['project_id', eb.fn.countAll<number>().as('n')])
    .where('project_id', 'in', [...projectIds])
    .groupBy('project_id')
    .execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
}

export async function insertTeamProject(q: Queryable, t: TeamProject): Promise<void> {
  await q.insertInto('team_projects').values(TEAM_PROJECTS.write(t)).execute();
}

export async function updateTeamProject(q: Queryable, id: string, g: ProjectGrant): Promise<number> {
  const r = await q.updateTable('team_projects').set(grantChanges(g)).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function deleteTeamProject(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('team_projects').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function findTeamProject(q: Queryable, id: string): Promise<TeamProject | undefined> {
  const r = await q.selectFrom('team_projects').selectAll().where('id', '=', id).executeTakeFirst();
  return r && TEAM_PROJECTS.read(r);
}

export interface TeamProjectFilter {
  projectId: string;
  teamId?: string;
  /** The grants on the project the caller may see. */
  visible: RowFilter<'team_projects'>;
}

export async function listTeamProjects(q: Queryable, f: TeamProjectFilter, page: Window) {
  let base = q.selectFrom('team_projects').where('project_id', '=', f.projectId);
  if (f.teamId !== undefined) base = base.where('team_id', '=', f.teamId);
  if (f.visible) base = base.where(f.visible);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, TEAM_PROJECTS.read);
}

import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { Schema, TeamProjectsTable } from '../db/schema.ts';
import { GRANT_TESTS, type GrantCondition, type ProjectAccessLevel, type ProjectGrant } from '../auth/permissions.ts';

export interface TeamProject extends ProjectGrant {
  id: string;
  teamId: string;
  projectId: string;
  createdAt: string;
}

function toTeamProject(r: Selectable<TeamProjectsTable>): TeamProject {
  return {
    id: r.id,
    teamId: r.team_id,
    projectId: r.project_id,
    access: r.access as ProjectAccessLevel,
    project: {
      settings: r.project_settings as TeamProject['project']['settings'],
      teams: r.project_teams as TeamProject['project']['teams'],
      'variable-sets': r.project_variable_sets as TeamProject['project']['variable-sets'],
    },
    workspace: {
      runs: r.workspace_runs as TeamProject['workspace']['runs'],
      'sentinel-mocks': r.workspace_sentinel_mocks as TeamProject['workspace']['sentinel-mocks'],
      'state-versions': r.workspace_state_versions as TeamProject['workspace']['state-versions'],
      variables: r.workspace_variables as TeamProject['workspace']['variables'],
      create: Boolean(r.workspace_create),
      locking: Boolean(r.workspace_locking),
      delete: Boolean(r.workspace_delete),
      move: Boolean(r.workspace_move),
      'run-tasks': Boolean(r.workspace_run_tasks),
    },
    createdAt: r.created_at,
  };
}

function grantColumns(g: ProjectGrant) {
  return {
    access: g.access,
    project_settings: g.project.settings,
    project_teams: g.project.teams,
    project_variable_sets: g.project['variable-sets'],
    workspace_runs: g.workspace.runs,
    workspace_sentinel_mocks: g.workspace['sentinel-mocks'],
    workspace_state_versions: g.workspace['state-versions'],
    workspace_variables: g.workspace.variables,
    workspace_create: g.workspace.create,
    workspace_locking: g.workspace.locking,
    workspace_delete: g.workspace.delete,
    workspace_move: g.workspace.move,
    workspace_run_tasks: g.workspace['run-tasks'],
  };
}

const PROJECT_COLUMNS = { settings: 'project_settings', teams: 'project_teams' } as const;
const WORKSPACE_FLAG_COLUMNS = {
  create: 'workspace_create',
  locking: 'workspace_locking',
  delete: 'workspace_delete',
  move: 'workspace_move',
  'run-tasks': 'workspace_run_tasks',
} as const;

/** GRANT_TESTS (auth/permissions.ts) in SQL, for a row of `team_projects as tp`. */
function passes(eb: ExpressionBuilder<Schema & { tp: TeamProjectsTable }, 'tp'>, condition: GrantCondition) {
  const t = GRANT_TESTS[condition];
  switch (t.kind) {
    case 'any':
      return eb.and([]);
    case 'project':
      return eb(`tp.${PROJECT_COLUMNS[t.key]}`, 'in', [...t.values]);
    case 'workspace':
      return eb(`tp.${WORKSPACE_FLAG_COLUMNS[t.key]}`, '=', true);
    case 'level':
      return eb('tp.access', 'in', [...t.levels]);
  }
}

/**
 * Subquery: ids of the projects where one of `teamIds` holds a grant passing `condition`. Other
 * domains' stores put it in their WHERE clauses (`project_id in (…)`), so the question "which
 * projects may this caller …" is answered by the database, never by loading every project.
 */
export function projectsGrantedTo(q: Queryable, teamIds: readonly string[], condition: GrantCondition) {
  return q
    .selectFrom('team_projects as tp')
    .select('tp.project_id')
    // An empty list is `1 = 0` (Kysely), never the invalid `in ()`.
    .where((eb) => (teamIds.length ? eb('tp.team_id', 'in', [...teamIds]) : eb.or([])))
    .where((eb) => passes(eb, condition));
}

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
  for (const r of rows.map(toTeamProject)) {
    const list = result.get(r.projectId) ?? [];
    list.push(r);
    result.set(r.projectId, list);
  }
  return result;
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
  await q
    .insertInto('team_projects')
    .values({ id: t.id, team_id: t.teamId, project_id: t.projectId, created_at: t.createdAt, ...grantColumns(t) })
    .execute();
}

export async function updateTeamProject(q: Queryable, id: string, g: ProjectGrant): Promise<number> {
  const r = await q.updateTable('team_projects').set(grantColumns(g)).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function deleteTeamProject(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('team_projects').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function findTeamProject(q: Queryable, id: string): Promise<TeamProject | undefined> {
  const r = await q.selectFrom('team_projects').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toTeamProject(r);
}

export interface TeamProjectFilter {
  projectId: string;
  teamId?: string;
  /** null = every grant on the project; otherwise only those of these teams. */
  visibleTeamIds: readonly string[] | null;
}

export async function listTeamProjects(q: Queryable, f: TeamProjectFilter, page: { offset: number; size: number }) {
  let base = q.selectFrom('team_projects').where('project_id', '=', f.projectId);
  if (f.teamId !== undefined) base = base.where('team_id', '=', f.teamId);
  if (f.visibleTeamIds !== null) {
    const ids = f.visibleTeamIds;
    base = base.where((eb) => (ids.length ? eb('team_id', 'in', [...ids]) : eb.or([])));
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at').orderBy('id').limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toTeamProject), total: Number(count.n) };
}

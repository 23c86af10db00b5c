// What a team's grant on a project allows. A grant has a level; each level implies a value for
// every project and workspace permission (TFE's levels: `read` reads; `write` also runs, locks
// and writes state and variables; `maintain` also creates and deletes workspaces; `admin` also
// changes and deletes the project, manages its team access and moves workspaces; `custom` sets
// each permission itself). The tests a grant can pass are written once, as data, and read both
// here in JavaScript and below in SQL, so the two cannot disagree.
import type { ExpressionBuilder } from 'kysely';
import type { Schema, TeamProjectsTable } from '../db/schema.ts';
import {
  PROJECT_ACCESS_SCALES,
  WORKSPACE_ACCESS_FLAGS,
  WORKSPACE_ACCESS_SCALES,
  type CustomAccess,
  type ProjectAccessLevel,
  type ProjectAccessValues,
  type ProjectGrant,
  type WorkspaceAccessFlag,
  type WorkspaceAccessValues,
} from '../grants.ts';

type Implied = Omit<ProjectGrant, 'access'>;

function implied(
  settings: ProjectAccessValues['settings'],
  teams: ProjectAccessValues['teams'],
  variableSets: ProjectAccessValues['variable-sets'],
  runs: WorkspaceAccessValues['runs'],
  sentinelMocks: WorkspaceAccessValues['sentinel-mocks'],
  stateVersions: WorkspaceAccessValues['state-versions'],
  variables: WorkspaceAccessValues['variables'],
  flags: { create: boolean; locking: boolean; delete: boolean; move: boolean; runTasks: boolean },
): Implied {
  return {
    project: { settings, teams, 'variable-sets': variableSets },
    workspace: {
      runs,
      'sentinel-mocks': sentinelMocks,
      'state-versions': stateVersions,
      variables,
      create: flags.create,
      locking: flags.locking,
      delete: flags.delete,
      move: flags.move,
      'run-tasks': flags.runTasks,
    },
  };
}

/**
 * Every level's permissions; `custom` holds the defaults a custom grant starts from. TFE states no
 * levels for `variable-sets`: Hangar grants `write` to admins only.
 */
export const IMPLIED: Record<ProjectAccessLevel, Implied> = {
  read: implied('read', 'none', 'none', 'read', 'none', 'read', 'read', { create: false, locking: false, delete: false, move: false, runTasks: false }),
  write: implied('read', 'none', 'none', 'apply', 'read', 'write', 'write', { create: false, locking: true, delete: false, move: false, runTasks: false }),
  maintain: implied('read', 'none', 'none', 'apply', 'read', 'write', 'write', { create: true, locking: true, delete: true, move: false, runTasks: true }),
  admin: implied('delete', 'manage', 'write', 'apply', 'read', 'write', 'write', { create: true, locking: true, delete: true, move: true, runTasks: true }),
  custom: implied('read', 'none', 'none', 'read', 'none', 'none', 'none', { create: false, locking: false, delete: false, move: false, runTasks: false }),
};

/**
 * The effective values of a grant at `access`. For `custom`, the given values are laid over
 * `base` (the grant's current values when it is already custom) or over the custom defaults.
 */
export function projectGrant(access: ProjectAccessLevel, custom: CustomAccess = {}, base?: Implied): ProjectGrant {
  const start = access === 'custom' && base ? base : IMPLIED[access];
  const project = { ...start.project };
  const workspace = { ...start.workspace };
  if (access === 'custom') {
    // Only the permissions Hangar models; clients may send newer keys, which are ignored.
    const p = custom.project ?? {};
    const w = custom.workspace ?? {};
    for (const k of Object.keys(PROJECT_ACCESS_SCALES) as Array<keyof ProjectAccessValues>) if (p[k] !== undefined) project[k] = p[k] as never;
    for (const k of Object.keys(WORKSPACE_ACCESS_SCALES) as Array<keyof typeof WORKSPACE_ACCESS_SCALES>) if (w[k] !== undefined) workspace[k] = w[k] as never;
    for (const k of WORKSPACE_ACCESS_FLAGS) if (w[k] !== undefined) workspace[k] = w[k];
  }
  return { access, project, workspace };
}

/** What one grant must hold to pass a test. */
export type GrantCondition =
  | 'any'
  | 'update'
  | 'destroy'
  | 'create-workspace'
  | 'move-workspace'
  | 'delete-workspace'
  | 'read-teams'
  | 'manage-teams'
  | 'manage-workspaces'
  | 'lock-workspace'
  | 'queue-run'
  | 'apply-run'
  | 'read-state-outputs'
  | 'read-state'
  | 'write-state'
  | 'read-variables'
  | 'write-variables'
  | 'download-sentinel-mocks'
  | 'read-variable-sets'
  | 'manage-variable-sets';

type GrantTest =
  | { kind: 'any' }
  | { kind: 'project'; key: 'settings' | 'teams' | 'variable-sets'; values: readonly string[] }
  | { kind: 'workspace'; key: WorkspaceAccessFlag }
  | { kind: 'runs'; values: readonly string[] }
  | { kind: 'workspace-scale'; key: 'state-versions' | 'variables' | 'sentinel-mocks'; values: readonly string[] }
  | { kind: 'level'; levels: readonly ProjectAccessLevel[] };

function atLeast<T extends readonly string[]>(scale: T, min: T[number]): readonly string[] {
  return scale.slice(scale.indexOf(min));
}

/** The single definition of each condition, read by both halves below. */
export const GRANT_TESTS: Record<GrantCondition, GrantTest> = {
  any: { kind: 'any' },
  update: { kind: 'project', key: 'settings', values: atLeast(PROJECT_ACCESS_SCALES.settings, 'update') },
  destroy: { kind: 'project', key: 'settings', values: atLeast(PROJECT_ACCESS_SCALES.settings, 'delete') },
  'read-teams': { kind: 'project', key: 'teams', values: atLeast(PROJECT_ACCESS_SCALES.teams, 'read') },
  'manage-teams': { kind: 'project', key: 'teams', values: atLeast(PROJECT_ACCESS_SCALES.teams, 'manage') },
  'create-workspace': { kind: 'workspace', key: 'create' },
  'move-workspace': { kind: 'workspace', key: 'move' },
  'delete-workspace': { kind: 'workspace', key: 'delete' },
  // Changing a workspace's settings takes workspace admin, which maintain and admin imply.
  'manage-workspaces': { kind: 'level', levels: ['maintain', 'admin'] },
  'lock-workspace': { kind: 'workspace', key: 'locking' },
  'queue-run': { kind: 'runs', values: atLeast(WORKSPACE_ACCESS_SCALES.runs, 'plan') },
  'apply-run': { kind: 'runs', values: atLeast(WORKSPACE_ACCESS_SCALES.runs, 'apply') },
  'read-state-outputs': { kind: 'workspace-scale', key: 'state-versions', values: atLeast(WORKSPACE_ACCESS_SCALES['state-versions'], 'read-outputs') },
  'read-state': { kind: 'workspace-scale', key: 'state-versions', values: atLeast(WORKSPACE_ACCESS_SCALES['state-versions'], 'read') },
  'write-state': { kind: 'workspace-scale', key: 'state-versions', values: atLeast(WORKSPACE_ACCESS_SCALES['state-versions'], 'write') },
  'read-variables': { kind: 'workspace-scale', key: 'variables', values: atLeast(WORKSPACE_ACCESS_SCALES.variables, 'read') },
  'write-variables': { kind: 'workspace-scale', key: 'variables', values: atLeast(WORKSPACE_ACCESS_SCALES.variables, 'write') },
  'download-sentinel-mocks': { kind: 'workspace-scale', key: 'sentinel-mocks', values: atLeast(WORKSPACE_ACCESS_SCALES['sentinel-mocks'], 'read') },
  'read-variable-sets': { kind: 'project', key: 'variable-sets', values: atLeast(PROJECT_ACCESS_SCALES['variable-sets'], 'read') },
  'manage-variable-sets': { kind: 'project', key: 'variable-sets', values: atLeast(PROJECT_ACCESS_SCALES['variable-sets'], 'write') },
};

/** The conditions only a level passes, whatever a custom grant's values (workspace admin). */
export const LEVEL_CONDITIONS = (Object.keys(GRANT_TESTS) as GrantCondition[]).filter((c) => GRANT_TESTS[c].kind === 'level');

/** JavaScript: whether one grant passes `condition`. */
export function grantAllows(g: ProjectGrant, condition: GrantCondition): boolean {
  const t = GRANT_TESTS[condition];
  switch (t.kind) {
    case 'any':
      return true;
    case 'project':
      return t.values.includes(g.project[t.key]);
    case 'workspace':
      return g.workspace[t.key];
    case 'runs':
      return t.values.includes(g.workspace.runs);
    case 'workspace-scale':
      return t.values.includes(g.workspace[t.key]);
    case 'level':
      return t.levels.includes(g.access);
  }
}

const PROJECT_COLUMNS = { settings: 'project_settings', teams: 'project_teams', 'variable-sets': 'project_variable_sets' } as const;
const WORKSPACE_SCALE_COLUMNS = {
  'state-versions': 'workspace_state_versions',
  variables: 'workspace_variables',
  'sentinel-mocks': 'workspace_sentinel_mocks',
} as const;
const WORKSPACE_FLAG_COLUMNS = {
  create: 'workspace_create',
  locking: 'workspace_locking',
  delete: 'workspace_delete',
  move: 'workspace_move',
  'run-tasks': 'workspace_run_tasks',
} as const;

type GrantsEb = ExpressionBuilder<Schema & { tp: TeamProjectsTable }, 'tp'>;

/** SQL: whether a row of `team_projects as tp` passes `condition`. */
function grantPasses(eb: GrantsEb, condition: GrantCondition) {
  const t = GRANT_TESTS[condition];
  switch (t.kind) {
    case 'any':
      return eb.and([]);
    case 'project':
      return eb(`tp.${PROJECT_COLUMNS[t.key]}`, 'in', [...t.values]);
    case 'workspace':
      return eb(`tp.${WORKSPACE_FLAG_COLUMNS[t.key]}`, '=', true);
    case 'runs':
      return eb('tp.workspace_runs', 'in', [...t.values]);
    case 'workspace-scale':
      return eb(`tp.${WORKSPACE_SCALE_COLUMNS[t.key]}`, 'in', [...t.values]);
    case 'level':
      return eb('tp.access', 'in', [...t.levels]);
  }
}

/**
 * SQL subquery: ids of the projects where one of `teamIds` holds a grant passing `condition`, so
 * that "which projects may this caller …" is answered by the database, never by loading every
 * project.
 */
export function projectsGrantedTo(eb: ExpressionBuilder<Schema, 'projects'>, teamIds: readonly string[], condition: GrantCondition) {
  return (
    eb
      .selectFrom('team_projects as tp')
      .select('tp.project_id')
      // An empty list is `1 = 0` (Kysely), never the invalid `in ()`.
      .where((inner) => (teamIds.length ? inner('tp.team_id', 'in', [...teamIds]) : inner.or([])))
      .where((inner) => grantPasses(inner, condition))
  );
}

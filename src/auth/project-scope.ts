// A caller's authority over projects and the workspaces in them: the JavaScript rule for one
// project (projectAuthority), and the same rule in SQL for lists (projectFilter and
// workspaceFilter), which stores apply without knowing it. A test checks the two agree.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { RowFilter } from '../db/filter.ts';
import type { Schema } from '../db/schema.ts';
import type { ProjectGrant } from '../grants.ts';
import { holds, type Standing } from './organization.ts';
import { grantAllows, projectsGrantedTo, type GrantCondition } from './project-grants.ts';

/** The grants the given teams hold on the given projects, by project id (one query). */
export type ProjectGrantLoader = (q: Queryable, teamIds: readonly string[], projectIds: readonly string[]) => Promise<Map<string, ProjectGrant[]>>;

/** What a caller may do with one project and the workspaces in it. */
export interface ProjectAuthority {
  read: boolean;
  update: boolean;
  /** Authorised to delete; the default project still cannot be deleted (409). */
  destroy: boolean;
  createWorkspace: boolean;
  /** Move workspaces into and out of the project (needed on both ends of a move). */
  moveWorkspace: boolean;
  readTeams: boolean;
  manageTeams: boolean;
  readWorkspaces: boolean;
  /** Change the settings of the project's workspaces. */
  manageWorkspaces: boolean;
  deleteWorkspaces: boolean;
  /** Lock and unlock the project's workspaces (TFE's `locking`). */
  lockWorkspaces: boolean;
  /** Read the outputs of their state versions (`state-versions: read-outputs` and above). */
  readStateOutputs: boolean;
  /** Read their state versions, the state itself included (`state-versions: read`). */
  readState: boolean;
  /** Create state versions (`state-versions: write`). */
  writeState: boolean;
  /** Queue runs (plans at least) in the project's workspaces. */
  queueRuns: boolean;
  /** Confirm applies and queue destroy runs (`runs: apply`). */
  applyRuns: boolean;
  /** Read the variables of the project's workspaces (`variables: read`). */
  readVariables: boolean;
  /** Create, change and delete them (`variables: write`). */
  writeVariables: boolean;
  downloadSentinelMocks: boolean;
  /** Read the variable sets the project owns or has applied (`variable-sets: read`). */
  readVariableSets: boolean;
  /** Manage the variable sets the project owns (`variable-sets: write`). */
  manageVariableSets: boolean;
}

const NO_AUTHORITY: ProjectAuthority = {
  read: false,
  update: false,
  destroy: false,
  createWorkspace: false,
  moveWorkspace: false,
  readTeams: false,
  manageTeams: false,
  readWorkspaces: false,
  manageWorkspaces: false,
  deleteWorkspaces: false,
  lockWorkspaces: false,
  queueRuns: false,
  applyRuns: false,
  readStateOutputs: false,
  readState: false,
  writeState: false,
  readVariables: false,
  writeVariables: false,
  downloadSentinelMocks: false,
  readVariableSets: false,
  manageVariableSets: false,
};
const FULL_AUTHORITY = Object.fromEntries(Object.keys(NO_AUTHORITY).map((k) => [k, true])) as unknown as ProjectAuthority;

/** Whoever may manage every project holds everything already: no grant can add to it, so none need loading. */
export const needsGrants = (s: Standing) => !holds(s, 'manage-all-projects');

/**
 * Highest grant wins: organization-access flags and every grant the caller's teams hold on the
 * project are each enough on their own. Owners, the organization token and `manage-projects`
 * may do everything; `read-projects` reads every project; `manage-workspaces` manages every
 * workspace but creates new ones only in the default project.
 */
export function projectAuthority(s: Standing, project: { isDefault: boolean }, grants: readonly ProjectGrant[]): ProjectAuthority {
  if (!s.member) return { ...NO_AUTHORITY };
  if (holds(s, 'manage-all-projects')) return { ...FULL_AUTHORITY };
  const any = (c: GrantCondition) => grants.some((g) => grantAllows(g, c));
  const workspaceManager = holds(s, 'manage-all-workspaces');
  const defaultForWorkspaceManager = project.isDefault && workspaceManager;
  return {
    read: holds(s, 'read-all-projects') || grants.length > 0 || defaultForWorkspaceManager,
    update: any('update'),
    destroy: any('destroy'),
    createWorkspace: any('create-workspace') || defaultForWorkspaceManager,
    moveWorkspace: any('move-workspace'),
    readTeams: holds(s, 'manage-teams') || any('read-teams'),
    manageTeams: any('manage-teams'),
    readWorkspaces: holds(s, 'read-all-workspaces') || grants.length > 0,
    manageWorkspaces: workspaceManager || any('manage-workspaces'),
    deleteWorkspaces: workspaceManager || any('delete-workspace'),
    // `manage-workspaces` is admin of every workspace; `read-workspaces` reads every one, state included.
    lockWorkspaces: workspaceManager || any('lock-workspace'),
    readStateOutputs: holds(s, 'read-all-workspaces') || any('read-state-outputs'),
    readState: holds(s, 'read-all-workspaces') || any('read-state'),
    writeState: workspaceManager || any('write-state'),
    queueRuns: workspaceManager || any('queue-run'),
    applyRuns: workspaceManager || any('apply-run'),
    readVariables: holds(s, 'read-all-workspaces') || any('read-variables'),
    writeVariables: workspaceManager || any('write-variables'),
    downloadSentinelMocks: workspaceManager || any('download-sentinel-mocks'),
    readVariableSets: holds(s, 'read-variable-sets') || any('read-variable-sets'),
    manageVariableSets: holds(s, 'manage-variable-sets') || any('manage-variable-sets'),
  };
}

/** The authority fields a list can filter on; each has its SQL form below. */
export type ScopedAuthority = 'read' | 'update' | 'createWorkspace' | 'readWorkspaces';

/**
 * The projects for which projectAuthority(...)[field] holds, described for SQL: all of them, or
 * the default project and those where one of the caller's teams holds a grant passing `grant`.
 */
interface ProjectScope {
  all: boolean;
  defaultProject: boolean;
  teamIds: readonly string[];
  grant: GrantCondition;
}

function projectScope(s: Standing, field: ScopedAuthority): ProjectScope {
  const none: ProjectScope = { all: false, defaultProject: false, teamIds: [], grant: 'any' };
  if (!s.member) return none;
  if (holds(s, 'manage-all-projects')) return { ...none, all: true };
  const workspaceManager = holds(s, 'manage-all-workspaces');
  switch (field) {
    case 'read':
      return { all: holds(s, 'read-all-projects'), defaultProject: workspaceManager, teamIds: s.teamIds, grant: 'any' };
    case 'update':
      return { all: false, defaultProject: false, teamIds: s.teamIds, grant: 'update' };
    case 'createWorkspace':
      return { all: false, defaultProject: workspaceManager, teamIds: s.teamIds, grant: 'create-workspace' };
    case 'readWorkspaces':
      return { all: holds(s, 'read-all-workspaces'), defaultProject: false, teamIds: s.teamIds, grant: 'any' };
  }
}

function inScope(eb: ExpressionBuilder<Schema, 'projects'>, scope: ProjectScope): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (scope.defaultProject) parts.push(eb('projects.is_default', '=', true));
  if (scope.teamIds.length) parts.push(eb('projects.id', 'in', projectsGrantedTo(eb, scope.teamIds, scope.grant)));
  return eb.or(parts);
}

/** SQL: the projects for which the caller's authority has `field` (null: every project). */
export function projectFilter(s: Standing, field: ScopedAuthority): RowFilter<'projects'> {
  const scope = projectScope(s, field);
  if (scope.all) return null;
  // What inScope's SQL depends on, all of it.
  const key = `projects ${scope.defaultProject ? 'default' : '-'} ${scope.grant} ${scope.teamIds.join(',')}`;
  return Object.assign((eb: ExpressionBuilder<Schema, 'projects'>) => inScope(eb, scope), { key });
}

/** SQL subquery: ids of the workspaces on which one of `teamIds` holds any grant (workspace-grants.ts). */
function workspacesGrantedTo(eb: ExpressionBuilder<Schema, 'workspaces'>, teamIds: readonly string[]) {
  return eb
    .selectFrom('team_workspaces as tw')
    .select('tw.workspace_id')
    .where((inner) => (teamIds.length ? inner('tw.team_id', 'in', [...teamIds]) : inner.or([])));
}

/**
 * SQL: the workspaces of the organization the caller may read, through their project or a grant
 * on the workspace itself (null: all). The JavaScript half: projectAuthority, then workspaceAuthority.
 */
export function workspaceFilter(s: Standing): RowFilter<'workspaces'> {
  const scope = projectScope(s, 'readWorkspaces');
  if (scope.all) return null;
  return (eb) =>
    eb.or([
      eb(
        'workspaces.project_id',
        'in',
        eb
          .selectFrom('projects')
          .select('projects.id')
          .where('projects.organization_id', '=', s.organizationId)
          .where((inner) => inScope(inner, scope)),
      ),
      ...(scope.teamIds.length ? [eb('workspaces.id', 'in', workspacesGrantedTo(eb, scope.teamIds))] : []),
    ]);
}

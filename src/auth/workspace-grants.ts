// What a team's grant on a single workspace allows, and how it adds to what the caller holds
// through the workspace's project: the JavaScript rule for one workspace (workspaceAuthority) and
// its SQL half (project-scope.ts's workspaceFilter). TFE's
// levels: `read` reads; `plan` also queues plans; `write` also applies, locks, writes state and
// variables; `admin` also changes and deletes the workspace and manages its team access;
// `custom` sets each permission itself.
import type { Queryable } from '../db/index.ts';
import type { CustomWorkspaceAccess, ProjectGrant, WorkspaceAccessLevel, WorkspaceGrant } from '../grants.ts';
import type { ProjectAuthority } from './project-scope.ts';

/** The grants the given teams hold on the given workspaces, by workspace id (one query). */
export type WorkspaceGrantLoader = (q: Queryable, teamIds: readonly string[], workspaceIds: readonly string[]) => Promise<Map<string, WorkspaceGrant[]>>;

const level = (
  access: WorkspaceAccessLevel,
  runs: WorkspaceGrant['runs'],
  variables: WorkspaceGrant['variables'],
  stateVersions: WorkspaceGrant['state-versions'],
  sentinelMocks: WorkspaceGrant['sentinel-mocks'],
  locking: boolean,
  runTasks: boolean,
): WorkspaceGrant => ({
  access,
  runs,
  variables,
  'state-versions': stateVersions,
  'sentinel-mocks': sentinelMocks,
  'workspace-locking': locking,
  'run-tasks': runTasks,
});

/** Every level's permissions; `custom` holds the defaults a custom grant starts from. */
export const WORKSPACE_IMPLIED: Record<WorkspaceAccessLevel, WorkspaceGrant> = {
  read: level('read', 'read', 'read', 'read', 'none', false, false),
  plan: level('plan', 'plan', 'read', 'read', 'none', false, false),
  write: level('write', 'apply', 'write', 'write', 'read', true, false),
  admin: level('admin', 'apply', 'write', 'write', 'read', true, true),
  custom: level('custom', 'read', 'none', 'none', 'none', false, false),
};

const CUSTOM_KEYS = ['runs', 'variables', 'state-versions', 'sentinel-mocks', 'workspace-locking', 'run-tasks'] as const;

/**
 * The effective values of a grant at `access`. For `custom`, the given values are laid over
 * `base` (the grant's current values when it is already custom) or over the custom defaults.
 */
export function workspaceGrant(access: WorkspaceAccessLevel, custom: CustomWorkspaceAccess = {}, base?: WorkspaceGrant): WorkspaceGrant {
  const grant = { ...(access === 'custom' && base ? base : WORKSPACE_IMPLIED[access]), access };
  if (access === 'custom') for (const k of CUSTOM_KEYS) if (custom[k] !== undefined) (grant as Record<string, unknown>)[k] = custom[k];
  return grant;
}

/** The workspace-level permissions a project grant implies, in a workspace grant's terms. */
export function fromProjectGrant(g: ProjectGrant): WorkspaceGrant {
  const w = g.workspace;
  const admin = g.access === 'maintain' || g.access === 'admin';
  return {
    access: admin ? 'admin' : 'custom',
    runs: w.runs,
    variables: w.variables,
    'state-versions': w['state-versions'],
    'sentinel-mocks': w['sentinel-mocks'],
    'workspace-locking': w.locking,
    'run-tasks': w['run-tasks'],
  };
}

/**
 * The caller's authority over one workspace: what its project allows, raised by the grants the
 * caller's teams hold on the workspace itself (highest grant wins). Any grant reads it; `admin`
 * changes and deletes it and manages its team access.
 */
export function workspaceAuthority(project: ProjectAuthority, grants: readonly WorkspaceGrant[]): ProjectAuthority {
  if (grants.length === 0) return project;
  const admin = grants.some((g) => g.access === 'admin');
  return {
    ...project,
    readWorkspaces: true,
    manageWorkspaces: project.manageWorkspaces || admin,
    deleteWorkspaces: project.deleteWorkspaces || admin,
    lockWorkspaces: project.lockWorkspaces || grants.some((g) => g['workspace-locking']),
    queueRuns: project.queueRuns || grants.some((g) => g.runs !== 'read'),
    applyRuns: project.applyRuns || grants.some((g) => g.runs === 'apply'),
    readStateOutputs: project.readStateOutputs || grants.some((g) => g['state-versions'] !== 'none'),
    readState: project.readState || grants.some((g) => g['state-versions'] === 'read' || g['state-versions'] === 'write'),
    writeState: project.writeState || grants.some((g) => g['state-versions'] === 'write'),
    readVariables: project.readVariables || grants.some((g) => g.variables !== 'none'),
    writeVariables: project.writeVariables || grants.some((g) => g.variables === 'write'),
    downloadSentinelMocks: project.downloadSentinelMocks || grants.some((g) => g['sentinel-mocks'] === 'read'),
  };
}

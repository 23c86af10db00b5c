// What a team can be granted, as data: its organization-access flags, and its access to one
// project (a level, and the value of every project and workspace permission). Stores keep these
// in columns, schemas accept them in bodies; what each one allows is auth/'s business.

/** Organization-access flags a team can hold (the `organization-access` object of a team). */
export const ORGANIZATION_ACCESS_KEYS = [
  'manage-policies',
  'manage-policy-overrides',
  'delegate-policy-overrides',
  'manage-run-tasks',
  'manage-workspaces',
  'read-workspaces',
  'manage-projects',
  'read-projects',
  'manage-vcs-settings',
  'manage-agent-pools',
  'manage-providers',
  'manage-modules',
  'manage-membership',
  'manage-teams',
  'manage-organization-access',
  'access-secret-teams',
] as const;
export type OrganizationAccessKey = (typeof ORGANIZATION_ACCESS_KEYS)[number];
export type OrganizationAccess = Record<OrganizationAccessKey, boolean>;

// Every request's standing starts from one of these: copies of fixed templates (a spread of an
// object literal's shape), not objects rebuilt key by key.
const NO_ACCESS = Object.freeze(Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, false])) as OrganizationAccess);
const ALL_ACCESS = Object.freeze(Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, true])) as OrganizationAccess);

export function emptyAccess(): OrganizationAccess {
  return { ...NO_ACCESS };
}

export function fullAccess(): OrganizationAccess {
  return { ...ALL_ACCESS };
}

/** `base` with the known flags of `changes` applied; unknown keys are dropped, not stored. */
export function withAccess(base: OrganizationAccess, changes: Partial<Record<string, unknown>> = {}): OrganizationAccess {
  const next = { ...base };
  for (const k of ORGANIZATION_ACCESS_KEYS) if (typeof changes[k] === 'boolean') next[k] = changes[k];
  return next;
}

export const PROJECT_ACCESS_LEVELS = ['read', 'write', 'maintain', 'admin', 'custom'] as const;
export type ProjectAccessLevel = (typeof PROJECT_ACCESS_LEVELS)[number];

/** Each permission's values from weakest to strongest, so "highest grant wins" compares positions. */
export const PROJECT_ACCESS_SCALES = {
  settings: ['read', 'update', 'delete'],
  teams: ['none', 'read', 'manage'],
  'variable-sets': ['none', 'read', 'write'],
} as const;
export const WORKSPACE_ACCESS_SCALES = {
  runs: ['read', 'plan', 'apply'],
  'sentinel-mocks': ['none', 'read'],
  'state-versions': ['none', 'read-outputs', 'read', 'write'],
  variables: ['none', 'read', 'write'],
} as const;
export const WORKSPACE_ACCESS_FLAGS = ['create', 'locking', 'delete', 'move', 'run-tasks'] as const;

type Values<T extends Record<string, readonly string[]>> = { -readonly [K in keyof T]: T[K][number] };
export type ProjectAccessValues = Values<typeof PROJECT_ACCESS_SCALES>;
export type WorkspaceAccessFlag = (typeof WORKSPACE_ACCESS_FLAGS)[number];
export type WorkspaceAccessValues = Values<typeof WORKSPACE_ACCESS_SCALES> & Record<WorkspaceAccessFlag, boolean>;

/** One team's access to one project, every permission at its effective value. */
export interface ProjectGrant {
  access: ProjectAccessLevel;
  project: ProjectAccessValues;
  workspace: WorkspaceAccessValues;
}

/** The permissions a custom grant sets; anything left out keeps its value. */
export interface CustomAccess {
  project?: Partial<ProjectAccessValues>;
  workspace?: Partial<WorkspaceAccessValues>;
}

/** A team's access to one workspace: TFE's levels (`plan` exists only here). */
export const WORKSPACE_ACCESS_LEVELS = ['read', 'plan', 'write', 'admin', 'custom'] as const;
export type WorkspaceAccessLevel = (typeof WORKSPACE_ACCESS_LEVELS)[number];

/** One team's access to one workspace, every permission at its effective value (TFE's attribute names). */
export interface WorkspaceGrant {
  access: WorkspaceAccessLevel;
  runs: WorkspaceAccessValues['runs'];
  variables: WorkspaceAccessValues['variables'];
  'state-versions': WorkspaceAccessValues['state-versions'];
  'sentinel-mocks': WorkspaceAccessValues['sentinel-mocks'];
  'workspace-locking': boolean;
  'run-tasks': boolean;
}

/** The permissions a custom workspace grant sets; anything left out keeps its value. */
export type CustomWorkspaceAccess = Partial<Omit<WorkspaceGrant, 'access'>>;

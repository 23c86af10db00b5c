// The permission model: who may do what. Pure functions over a caller's standing in an
// organization; the data behind a standing is loaded by auth/caller.ts. Every domain asks here.

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

export function emptyAccess(): OrganizationAccess {
  return Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, false])) as OrganizationAccess;
}

export function fullAccess(): OrganizationAccess {
  return Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, true])) as OrganizationAccess;
}

/** `base` with the known flags of `changes` applied; unknown keys are dropped, not stored. */
export function withAccess(base: OrganizationAccess, changes: Partial<Record<string, unknown>> = {}): OrganizationAccess {
  const next = { ...base };
  for (const k of ORGANIZATION_ACCESS_KEYS) if (typeof changes[k] === 'boolean') next[k] = changes[k];
  return next;
}

/**
 * Managing implies reading, as in TFE: a `manage-projects` team can see every project even when
 * `read-projects` is not ticked.
 */
export function normaliseAccess(access: OrganizationAccess): OrganizationAccess {
  const a = { ...access };
  if (a['manage-projects']) a['read-projects'] = true;
  if (a['manage-workspaces']) a['read-workspaces'] = true;
  return a;
}

/** What a caller is in one organization. `member` false means: the organization is invisible. */
export interface Standing {
  organizationId: string;
  organizationName: string;
  /** Belongs to any team of the organization, or is its organization token, or a site admin. */
  member: boolean;
  /** Owners team member, organization token, or site admin: may do everything. */
  owner: boolean;
  viaOrganizationToken: boolean;
  /** The caller's teams in this organization (empty for tokens and site admins). */
  teamIds: readonly string[];
  /** Union of the organization-access flags of those teams (all true for owners). */
  access: OrganizationAccess;
}

/** Organization-wide actions. Project-, workspace- and pool-level rules build on these. */
export type OrganizationAction =
  | 'read'
  | 'update'
  | 'destroy'
  | 'manage-organization-token'
  | 'read-teams'
  | 'manage-teams'
  | 'manage-membership'
  | 'manage-organization-access'
  | 'see-secret-teams'
  | 'create-project'
  | 'read-all-projects'
  | 'manage-all-projects'
  | 'read-all-workspaces'
  | 'manage-all-workspaces'
  | 'read-policies'
  | 'manage-policies'
  | 'read-agent-pools'
  | 'manage-agent-pools';

export function can(s: Standing, action: OrganizationAction): boolean {
  if (!s.member) return false;
  if (s.owner) return true;
  const a = s.access;
  switch (action) {
    case 'read':
    case 'read-teams':
    case 'read-policies':
    case 'read-agent-pools':
      return true;
    case 'update':
    case 'destroy':
    case 'manage-organization-token':
      return false;
    case 'manage-teams':
      return a['manage-teams'];
    case 'manage-membership':
      return a['manage-membership'] || a['manage-teams'];
    // Handing out organization permissions is its own permission, as in TFE: otherwise a team
    // manager could grant its own team everything.
    case 'manage-organization-access':
      return a['manage-organization-access'];
    case 'see-secret-teams':
      return a['access-secret-teams'];
    case 'create-project':
    case 'manage-all-projects':
      return a['manage-projects'];
    case 'read-all-projects':
      return a['read-projects'] || a['manage-projects'];
    case 'read-all-workspaces':
      return a['read-workspaces'] || a['manage-workspaces'] || a['manage-projects'];
    case 'manage-all-workspaces':
      return a['manage-workspaces'] || a['manage-projects'];
    case 'manage-policies':
      return a['manage-policies'];
    case 'manage-agent-pools':
      return a['manage-agent-pools'];
  }
}

// ---------------------------------------------------------------------------------------------
// Projects. A team's access to a project (a `team-projects` row) has a level; each level implies
// a value for every project and workspace permission (facts §4.5). A caller's authority over one
// project is the highest of its organization-access flags and all its teams' grants.

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

function implied(
  settings: ProjectAccessValues['settings'],
  teams: ProjectAccessValues['teams'],
  variableSets: ProjectAccessValues['variable-sets'],
  runs: WorkspaceAccessValues['runs'],
  sentinelMocks: WorkspaceAccessValues['sentinel-mocks'],
  stateVersions: WorkspaceAccessValues['state-versions'],
  variables: WorkspaceAccessValues['variables'],
  flags: { create: boolean; locking: boolean; delete: boolean; move: boolean; runTasks: boolean },
): Omit<ProjectGrant, 'access'> {
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
 * The table of facts §4.5; `custom` holds the defaults a custom grant starts from. The facts give
 * no levels for `variable-sets`: Hangar grants `write` to admins only.
 */
const IMPLIED: Record<ProjectAccessLevel, Omit<ProjectGrant, 'access'>> = {
  read: implied('read', 'none', 'none', 'read', 'none', 'read', 'read', { create: false, locking: false, delete: false, move: false, runTasks: false }),
  write: implied('read', 'none', 'none', 'apply', 'read', 'write', 'write', { create: false, locking: true, delete: false, move: false, runTasks: false }),
  maintain: implied('read', 'none', 'none', 'apply', 'read', 'write', 'write', { create: true, locking: true, delete: true, move: false, runTasks: true }),
  admin: implied('delete', 'manage', 'write', 'apply', 'read', 'write', 'write', { create: true, locking: true, delete: true, move: true, runTasks: true }),
  custom: implied('read', 'none', 'none', 'read', 'none', 'none', 'none', { create: false, locking: false, delete: false, move: false, runTasks: false }),
};

export interface CustomAccess {
  project?: Partial<ProjectAccessValues>;
  workspace?: Partial<WorkspaceAccessValues>;
}

/**
 * The effective values of a grant at `access`. For `custom`, the given values are laid over
 * `base` (the grant's current values when it is already custom) or over the custom defaults.
 */
export function projectGrant(access: ProjectAccessLevel, custom: CustomAccess = {}, base?: Omit<ProjectGrant, 'access'>): ProjectGrant {
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

/** What one grant must hold to pass a test; stores express the same tests in SQL (see GRANT_TESTS). */
export type GrantCondition =
  | 'any'
  | 'update'
  | 'destroy'
  | 'create-workspace'
  | 'move-workspace'
  | 'delete-workspace'
  | 'read-teams'
  | 'manage-teams'
  | 'manage-workspaces';

export type GrantTest =
  | { kind: 'any' }
  | { kind: 'project'; key: 'settings' | 'teams'; values: readonly string[] }
  | { kind: 'workspace'; key: WorkspaceAccessFlag }
  | { kind: 'level'; levels: readonly ProjectAccessLevel[] };

function atLeast<T extends readonly string[]>(scale: T, min: T[number]): readonly string[] {
  return scale.slice(scale.indexOf(min));
}

/** The single definition of each condition, as data, so JavaScript and SQL cannot disagree. */
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
};

export function grantAllows(g: ProjectGrant, condition: GrantCondition): boolean {
  const t = GRANT_TESTS[condition];
  switch (t.kind) {
    case 'any':
      return true;
    case 'project':
      return t.values.includes(g.project[t.key]);
    case 'workspace':
      return g.workspace[t.key];
    case 'level':
      return t.levels.includes(g.access);
  }
}

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
};

/**
 * Highest grant wins: organization-access flags and every grant the caller's teams hold on the
 * project are each enough on their own. Owners, the organization token and `manage-projects`
 * may do everything; `read-projects` reads every project; `manage-workspaces` manages every
 * workspace but creates new ones only in the default project.
 */
export function projectAuthority(s: Standing, project: { isDefault: boolean }, grants: readonly ProjectGrant[]): ProjectAuthority {
  if (!s.member) return { ...NO_AUTHORITY };
  if (can(s, 'manage-all-projects')) return Object.fromEntries(Object.keys(NO_AUTHORITY).map((k) => [k, true])) as unknown as ProjectAuthority;
  const any = (c: GrantCondition) => grants.some((g) => grantAllows(g, c));
  const workspaceManager = can(s, 'manage-all-workspaces');
  const defaultForWorkspaceManager = project.isDefault && workspaceManager;
  return {
    read: can(s, 'read-all-projects') || grants.length > 0 || defaultForWorkspaceManager,
    update: any('update'),
    destroy: any('destroy'),
    createWorkspace: any('create-workspace') || defaultForWorkspaceManager,
    moveWorkspace: any('move-workspace'),
    readTeams: can(s, 'manage-teams') || any('read-teams'),
    manageTeams: any('manage-teams'),
    readWorkspaces: can(s, 'read-all-workspaces') || grants.length > 0,
    manageWorkspaces: workspaceManager || any('manage-workspaces'),
    deleteWorkspaces: workspaceManager || any('delete-workspace'),
  };
}

/**
 * The projects of one organization for which the caller passes `action`, described so a store
 * can select them in SQL instead of loading every project: all of them, or the default project
 * and those where one of `teamIds` holds a grant passing `grant`. Must agree with
 * projectAuthority (a test checks it does).
 */
export interface ProjectScope {
  all: boolean;
  defaultProject: boolean;
  teamIds: readonly string[];
  grant: GrantCondition;
}

export type ScopedProjectAction = 'read' | 'update' | 'create-workspace' | 'read-workspaces';

export function projectScope(s: Standing, action: ScopedProjectAction): ProjectScope {
  const none: ProjectScope = { all: false, defaultProject: false, teamIds: [], grant: 'any' };
  if (!s.member) return none;
  if (can(s, 'manage-all-projects')) return { ...none, all: true };
  const workspaceManager = can(s, 'manage-all-workspaces');
  switch (action) {
    case 'read':
      return { all: can(s, 'read-all-projects'), defaultProject: workspaceManager, teamIds: s.teamIds, grant: 'any' };
    case 'update':
      return { all: false, defaultProject: false, teamIds: s.teamIds, grant: 'update' };
    case 'create-workspace':
      return { all: false, defaultProject: workspaceManager, teamIds: s.teamIds, grant: 'create-workspace' };
    case 'read-workspaces':
      return { all: can(s, 'read-all-workspaces'), defaultProject: false, teamIds: s.teamIds, grant: 'any' };
  }
}

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

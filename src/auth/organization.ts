// A caller's standing in an organization and the organization-wide permissions it holds: the
// base every other rule builds on. Pure functions, except `organizationFilter`, the same rule
// ("which organizations may the caller see") in SQL for the organization list.
import type { RowFilter } from '../db/filter.ts';
import type { OrganizationAccess } from '../grants.ts';
import type { Principal } from './principal.ts';

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

/** Organization-wide permissions. Project-, workspace- and pool-level rules build on these. */
export const ORGANIZATION_PERMISSIONS = [
  'read',
  'update',
  'destroy',
  'manage-organization-token',
  'read-teams',
  'manage-teams',
  'manage-membership',
  'manage-organization-access',
  'see-secret-teams',
  'create-project',
  'read-all-projects',
  'manage-all-projects',
  'read-all-workspaces',
  'manage-all-workspaces',
  'read-policies',
  'manage-policies',
  'read-agent-pools',
  'manage-agent-pools',
  'read-variable-sets',
  'manage-variable-sets',
  'read-ssh-keys',
  'manage-ssh-keys',
] as const;
export type OrganizationPermission = (typeof ORGANIZATION_PERMISSIONS)[number];

/** Whether the standing holds an organization-wide permission. Owners hold every one. */
export function holds(s: Standing, permission: OrganizationPermission): boolean {
  if (!s.member) return false;
  if (s.owner) return true;
  const a = s.access;
  switch (permission) {
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
    // Hangar models no `manage-var-sets` flag: a set reaches every workspace it is applied to,
    // so whoever administers every workspace manages them, and whoever reads every one reads them.
    case 'read-variable-sets':
      return a['read-workspaces'] || a['manage-workspaces'] || a['manage-projects'];
    case 'manage-variable-sets':
      return a['manage-workspaces'] || a['manage-projects'];
    // TFE: SSH keys are VCS settings. Listing them also needs admin access to a workspace (to
    // assign one); Hangar takes the organization-wide workspace admins for that, not a team that
    // administers only some workspaces through a project grant.
    case 'manage-ssh-keys':
      return a['manage-vcs-settings'];
    case 'read-ssh-keys':
      return a['manage-vcs-settings'] || a['manage-workspaces'] || a['manage-projects'];
  }
}

/**
 * The organizations a principal belongs to, in SQL (the JavaScript half is `member` in a
 * Standing): an organization token its own organization, a site admin every one, a user those
 * where it is on a team.
 */
export function organizationFilter(p: Principal): RowFilter<'organizations'> {
  if (p.kind !== 'user') return (eb) => eb('organizations.id', '=', p.organizationId);
  if (p.user.isSiteAdmin) return null;
  const userId = p.user.id;
  return (eb) =>
    eb(
      'organizations.id',
      'in',
      eb.selectFrom('team_memberships as m').innerJoin('teams as t', 't.id', 'm.team_id').select('t.organization_id').where('m.user_id', '=', userId),
    );
}

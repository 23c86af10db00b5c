// No caller gives anyone, itself included, a permission it does not hold. A "gift" is what a change
// would hand out: the organization-access flags a team gains, or that a new member gains by joining
// a team; and the project grants a team gains, or that a new member gains with its team. Owners
// (the organization token and site admins among them) hold everything, so they may give anything.
// This is stricter than TFE, where membership rights or a project's `teams: manage` are enough to
// hand out whatever the team in question holds.
import {
  PROJECT_ACCESS_SCALES,
  WORKSPACE_ACCESS_FLAGS,
  WORKSPACE_ACCESS_SCALES,
  type OrganizationAccessKey,
  type ProjectGrant,
  type WorkspaceGrant,
} from '../grants.ts';
import { holds, type Standing } from './organization.ts';
import { grantAllows, LEVEL_CONDITIONS } from './project-grants.ts';

/** One project grant a change creates or raises. */
export interface ProjectGift {
  projectId: string;
  /** The grant as it would be afterwards. */
  to: ProjectGrant;
  /** The grant as it is now (undefined: the team has no access to the project yet). */
  from?: ProjectGrant;
  /** The grants the caller's own teams hold on the project. */
  held: readonly ProjectGrant[];
}

/** One workspace grant a change creates or raises. */
export interface WorkspaceGift {
  workspaceId: string;
  to: WorkspaceGrant;
  from?: WorkspaceGrant;
  /**
   * What the caller holds on the workspace: its teams' grants on the workspace, and their grants
   * on its project in a workspace grant's terms (workspace-grants.ts's fromProjectGrant).
   */
  held: readonly WorkspaceGrant[];
}

/** Everything a change would give: the subject of the `give-access` action. */
export interface GiftSubject {
  standing: Standing;
  /** Organization-access flags the change gives (turned on for a team, or held by the team a user joins). */
  organizationAccess: readonly OrganizationAccessKey[];
  projects: readonly ProjectGift[];
  workspaces?: readonly WorkspaceGift[];
}

/**
 * The flags a flag stands for, beyond itself: managing teams includes managing membership,
 * `manage-projects` manages every project and workspace, `manage-workspaces` reads every
 * workspace (the same implications the organization permissions in organization.ts make).
 */
const COVERED_BY: Partial<Record<OrganizationAccessKey, readonly OrganizationAccessKey[]>> = {
  'manage-membership': ['manage-teams'],
  'read-projects': ['manage-projects'],
  'manage-workspaces': ['manage-projects'],
  'read-workspaces': ['manage-workspaces', 'manage-projects'],
};

function holdsFlag(s: Standing, flag: OrganizationAccessKey): boolean {
  return s.owner || s.access[flag] || (COVERED_BY[flag] ?? []).some((k) => s.access[k]);
}

type Values = Record<string, string>;
const rank = (scale: readonly string[], values: unknown, key: string) => scale.indexOf((values as Values)[key]!);

/**
 * What `to` gives beyond `from` that none of `held` holds: each permission raised above its
 * current value must be held at least at its new value by one of the caller's grants (the highest
 * grant wins, permission by permission), and so must what the level itself allows (`maintain` and
 * `admin` manage workspaces). Lowering a permission gives nothing.
 */
function ungivenGrant({ to, from, held }: ProjectGift): string[] {
  const missing: string[] = [];
  const scales = [
    ['project-access', PROJECT_ACCESS_SCALES, to.project, from?.project, held.map((h) => h.project)],
    ['workspace-access', WORKSPACE_ACCESS_SCALES, to.workspace, from?.workspace, held.map((h) => h.workspace)],
  ] as const;
  for (const [group, scaleSet, next, now, mine] of scales) {
    for (const [key, scale] of Object.entries(scaleSet) as Array<[string, readonly string[]]>) {
      const wanted = rank(scale, next, key);
      const current = now ? rank(scale, now, key) : -1;
      const best = Math.max(-1, ...mine.map((m) => rank(scale, m, key)));
      if (wanted > current && best < wanted) missing.push(`${group}.${key} ${(next as Values)[key]}`);
    }
  }
  for (const flag of WORKSPACE_ACCESS_FLAGS) {
    if (to.workspace[flag] && !from?.workspace[flag] && !held.some((h) => h.workspace[flag])) missing.push(`workspace-access.${flag}`);
  }
  for (const condition of LEVEL_CONDITIONS) {
    const gained = grantAllows(to, condition) && !(from && grantAllows(from, condition));
    if (gained && !held.some((h) => grantAllows(h, condition))) missing.push(`access ${to.access}`);
  }
  return missing;
}

const WORKSPACE_GRANT_SCALES = {
  runs: WORKSPACE_ACCESS_SCALES.runs,
  variables: WORKSPACE_ACCESS_SCALES.variables,
  'state-versions': WORKSPACE_ACCESS_SCALES['state-versions'],
  'sentinel-mocks': WORKSPACE_ACCESS_SCALES['sentinel-mocks'],
} as const;
const WORKSPACE_GRANT_FLAGS = ['workspace-locking', 'run-tasks'] as const;

/** The same rule as ungivenGrant, for a grant on one workspace: `admin` is a level only admins hold. */
function ungivenWorkspaceGrant({ to, from, held }: WorkspaceGift): string[] {
  const missing: string[] = [];
  for (const [key, scale] of Object.entries(WORKSPACE_GRANT_SCALES) as Array<[keyof typeof WORKSPACE_GRANT_SCALES, readonly string[]]>) {
    const wanted = scale.indexOf(to[key]);
    const current = from ? scale.indexOf(from[key]) : -1;
    const best = Math.max(-1, ...held.map((h) => scale.indexOf(h[key])));
    if (wanted > current && best < wanted) missing.push(`${key} ${to[key]}`);
  }
  for (const flag of WORKSPACE_GRANT_FLAGS) if (to[flag] && !from?.[flag] && !held.some((h) => h[flag])) missing.push(flag);
  if (to.access === 'admin' && from?.access !== 'admin' && !held.some((h) => h.access === 'admin')) missing.push('access admin');
  return missing;
}

/** The permissions of the gift the caller does not hold, named for the 403 (empty: it may give it all). */
export function ungiven(g: GiftSubject): string[] {
  if (g.standing.owner) return [];
  const missing: string[] = g.organizationAccess.filter((flag) => !holdsFlag(g.standing, flag));
  // Managing every project is holding every permission on each of them.
  if (holds(g.standing, 'manage-all-projects')) return missing;
  for (const gift of g.projects) {
    const lacking = ungivenGrant(gift);
    if (lacking.length) missing.push(`on project ${gift.projectId}: ${lacking.join(', ')}`);
  }
  // Managing every workspace is holding every permission on each of them.
  if (holds(g.standing, 'manage-all-workspaces')) return missing;
  for (const gift of g.workspaces ?? []) {
    const lacking = ungivenWorkspaceGrant(gift);
    if (lacking.length) missing.push(`on workspace ${gift.workspaceId}: ${lacking.join(', ')}`);
  }
  return missing;
}

// The front door of authorization. Every permission decision is one row of ACTIONS: the kind of
// subject the action is checked against, the rule, and how a refusal is answered. A refusal
// HIDEs (404, as if the thing did not exist, so ids cannot be probed) or FORBIDs (403). Either
// way, a caller who does not see the subject at all (SEE below) gets 404 first. Services call
// `authorize` (throws) or `can` (a boolean) before they act.
//
// To add an action: add a row here (pick the subject kind, write the rule from the standing or
// authority, choose HIDE or forbid(detail)), call authorize(subject, 'the-action') first thing in
// the service method, and add the endpoint's row to test/access/matrix.ts.
import { errors, type ApiError } from '../jsonapi/errors.ts';
import { ungiven, type GiftSubject } from './gifts.ts';
import { holds, type Standing } from './organization.ts';
import type { Principal } from './principal.ts';
import type { ProjectAuthority } from './project-scope.ts';
import { seesTeam, seesTeamGrant, seesWorkspaceTeamGrant } from './teams.ts';

/** Who is calling, for actions that depend on nothing else. */
export interface PrincipalSubject {
  principal: Principal;
}
/** A user's own account and what hangs off it (its tokens, its e-mail address). */
export interface AccountSubject {
  principal: Principal;
  userId: string;
}
/** The caller's standing in an organization: the subject of organization-wide actions. */
export interface OrganizationSubject {
  standing: Standing;
}
export interface TeamSubject {
  standing: Standing;
  team: { id: string; visibility: string; isOwners: boolean };
}
/** A project, or a workspace through its project: the caller's authority there. */
export interface ProjectSubject {
  standing: Standing;
  authority: ProjectAuthority;
}
/** A team's grant on a project the caller may read. */
export interface TeamGrantSubject extends ProjectSubject {
  grant: { teamId: string };
}
/** One user's membership of an organization: its user, and the caller's standing there. */
export interface MembershipSubject {
  principal: Principal;
  standing: Standing;
  membership: { userId: string };
}
/** A team's grant on a workspace the caller may read (authority: over that workspace). */
export type WorkspaceTeamGrantSubject = TeamGrantSubject;

export type { GiftSubject };

interface Subjects {
  principal: PrincipalSubject;
  account: AccountSubject;
  organization: OrganizationSubject;
  team: TeamSubject;
  project: ProjectSubject;
  'team-grant': TeamGrantSubject;
  workspace: ProjectSubject;
  'workspace-team-grant': WorkspaceTeamGrantSubject;
  gift: GiftSubject;
  membership: MembershipSubject;
}
export type Kind = keyof Subjects;

/** A 403's detail: fixed, or worded from the subject (to name what exactly is missing). */
type Detail<S> = string | ((subject: S) => string);
export type Deny<S = never> = { status: 404 } | { status: 403; detail?: Detail<S> };
export const HIDE: Deny = { status: 404 };
export const forbid = <S = never>(detail?: Detail<S>): Deny<S> => ({ status: 403, ...(detail ? { detail } : {}) });

interface Row<K extends Kind> {
  on: K;
  deny: Deny<Subjects[K]>;
  allows: (subject: Subjects[K]) => boolean;
}
const row = <K extends Kind>(on: K, deny: Deny<Subjects[K]>, allows: (subject: Subjects[K]) => boolean): Row<K> => ({ on, deny, allows });

const MANAGE_TEAMS = 'You are not allowed to manage teams';
const NO_ORG_TOKEN_SSH = 'SSH keys cannot be used with an organization token';

/** The membership is the caller's own (its user's token, not an organization's or a team's). */
const ownMembership = ({ principal, membership }: MembershipSubject) => principal.kind === 'user' && principal.user.id === membership.userId;

/** Every action: what it is checked against, the rule, and how a refusal is answered. */
export const ACTIONS = {
  // Anyone authenticated
  'create-organization': row('principal', forbid('Only users can create organizations'), ({ principal }) => principal.kind === 'user'),
  // TFE's site-admin API (`/admin/…`): site admins only; to anyone else it does not exist.
  'administer-site': row('principal', HIDE, ({ principal }) => principal.kind === 'user' && principal.user.isSiteAdmin),
  'manage-user-tokens': row('account', HIDE, ({ principal, userId }) => principal.kind === 'user' && principal.user.id === userId),
  'read-user-email': row('account', HIDE, ({ principal, userId }) => principal.kind === 'user' && principal.user.id === userId),
  // The service account behind an organization token sees itself, but is not a person to rename.
  'update-account': row(
    'account',
    forbid('The account of an organization token cannot be changed'),
    ({ principal, userId }) => principal.kind === 'user' && principal.user.id === userId,
  ),

  // Organization-wide
  'read-organization': row('organization', HIDE, ({ standing }) => holds(standing, 'read')),
  'update-organization': row('organization', forbid(), ({ standing }) => holds(standing, 'update')),
  'destroy-organization': row('organization', forbid(), ({ standing }) => holds(standing, 'destroy')),
  'manage-organization-token': row('organization', HIDE, ({ standing }) => holds(standing, 'manage-organization-token')),
  'read-teams': row('organization', forbid(), ({ standing }) => holds(standing, 'read-teams')),
  'create-team': row('organization', forbid(), ({ standing }) => holds(standing, 'manage-teams')),
  // Whoever may issue, show and revoke a team's token (`manage-team-token`) may list them all;
  // to anyone else the list does not exist (TFE answers 404), as with the organization token.
  'list-team-tokens': row('organization', HIDE, ({ standing }) => holds(standing, 'manage-teams')),
  'grant-organization-access': row('organization', forbid('Changing organization access needs the manage-organization-access permission'), ({ standing }) =>
    holds(standing, 'manage-organization-access'),
  ),
  // Whatever else an action needs, nobody but an owner hands out a permission it does not hold
  // itself: not to a team (organization access, project access) and not by putting a user on a
  // team. Otherwise a membership or `teams: manage` right would be a way to every permission.
  'give-access': row(
    'gift',
    forbid((gift) => `You cannot give permissions you do not hold: ${ungiven(gift).join('; ')}`),
    (gift) => ungiven(gift).length === 0,
  ),
  'create-project': row('organization', forbid(), ({ standing }) => holds(standing, 'create-project')),
  'read-policies': row('organization', forbid(), ({ standing }) => holds(standing, 'read-policies')),
  'manage-policies': row('organization', forbid(), ({ standing }) => holds(standing, 'manage-policies')),
  // TFE's `manage-policy-overrides`; Hangar's teams have no such permission yet, so those who may
  // manage the policies may override a soft-mandatory failure.
  'override-policy-check': row('organization', forbid('Overriding a policy check needs the manage-policies permission'), ({ standing }) =>
    holds(standing, 'manage-policies'),
  ),
  'read-agent-pools': row('organization', forbid(), ({ standing }) => holds(standing, 'read-agent-pools')),
  'manage-agent-pools': row('organization', forbid(), ({ standing }) => holds(standing, 'manage-agent-pools')),
  // A pool's tokens are invisible, as in TFE, to members who may not manage pools.
  'manage-agent-tokens': row('organization', HIDE, ({ standing }) => holds(standing, 'manage-agent-pools')),
  // Variable sets the organization owns (see organization.ts for who holds these).
  'read-variable-sets': row('organization', forbid('You are not allowed to read variable sets'), ({ standing }) => holds(standing, 'read-variable-sets')),
  'manage-variable-sets': row('organization', forbid('You are not allowed to manage variable sets'), ({ standing }) => holds(standing, 'manage-variable-sets')),
  // SSH keys (TFE: "manage VCS settings"; reading also for workspace admins). TFE refuses
  // organization tokens on every SSH key endpoint: the key is a person's choice to trust.
  'read-ssh-keys': row(
    'organization',
    forbid(({ standing }) => (standing.viaOrganizationToken ? NO_ORG_TOKEN_SSH : 'You are not allowed to read SSH keys')),
    ({ standing }) => !standing.viaOrganizationToken && holds(standing, 'read-ssh-keys'),
  ),
  'manage-ssh-keys': row(
    'organization',
    forbid(({ standing }) => (standing.viaOrganizationToken ? NO_ORG_TOKEN_SSH : 'You are not allowed to manage SSH keys')),
    ({ standing }) => !standing.viaOrganizationToken && holds(standing, 'manage-ssh-keys'),
  ),

  // Organization memberships (invitations): `manage-membership` (which `manage-teams` implies)
  // invites and removes people. The list exists for every member, but only they may read it:
  // it holds everyone's e-mail address.
  'read-memberships': row('organization', forbid("You are not allowed to view the organization's memberships"), ({ standing }) =>
    holds(standing, 'manage-membership'),
  ),
  'invite-member': row('organization', forbid('You are not allowed to invite members'), ({ standing }) => holds(standing, 'manage-membership')),
  // A membership exists for its own user (invited, and so no member yet) and for those who manage
  // memberships; its user alone accepts it, and its user (leaving) or a manager removes it.
  'read-membership': row('membership', HIDE, (m) => ownMembership(m) || holds(m.standing, 'manage-membership')),
  'accept-membership': row('membership', forbid('Only the invited user may accept an invitation'), ownMembership),
  'destroy-membership': row('membership', forbid('You are not allowed to remove members'), (m) => ownMembership(m) || holds(m.standing, 'manage-membership')),

  // Teams
  'read-team': row('team', HIDE, ({ standing, team }) => seesTeam(standing, team)),
  'update-team': row('team', forbid(MANAGE_TEAMS), ({ standing }) => holds(standing, 'manage-teams')),
  'destroy-team': row('team', forbid(MANAGE_TEAMS), ({ standing }) => holds(standing, 'manage-teams')),
  // A team token acts as the team: only those who manage teams issue, show or revoke one.
  'manage-team-token': row('team', forbid('You are not allowed to manage team tokens'), ({ standing }) => holds(standing, 'manage-teams')),
  'manage-team-membership': row('team', forbid('You are not allowed to manage team membership'), ({ standing }) => holds(standing, 'manage-membership')),
  // Being on the owners team is being an owner, so only owners decide who is on it; otherwise
  // membership rights would be a way to become owner (and to remove the real owners).
  'manage-owners-team-membership': row(
    'team',
    forbid('Only owners may change who is on the owners team'),
    ({ standing, team }) => !team.isOwners || standing.owner,
  ),

  // Projects and their team access
  'read-project': row('project', HIDE, ({ authority }) => authority.read),
  'update-project': row('project', forbid('You are not allowed to update this project'), ({ authority }) => authority.update),
  'destroy-project': row('project', forbid('You are not allowed to delete this project'), ({ authority }) => authority.destroy),
  'create-workspace': row('project', forbid('You are not allowed to create workspaces in this project'), ({ authority }) => authority.createWorkspace),
  'move-workspaces-into': row('project', HIDE, ({ authority }) => authority.moveWorkspace),
  'manage-team-access': row('project', forbid("You are not allowed to manage this project's team access"), ({ authority }) => authority.manageTeams),
  // Tags: read with the project; written by whoever may update it.
  'manage-project-tags': row('project', forbid('You are not allowed to manage the tags of this project'), ({ authority }) => authority.update),
  // Variable sets a project owns or has applied: TFE's project `variable-sets` permission.
  'read-project-variable-sets': row(
    'project',
    forbid("You are not allowed to read this project's variable sets"),
    ({ authority }) => authority.readVariableSets,
  ),
  'manage-project-variable-sets': row(
    'project',
    forbid("You are not allowed to manage this project's variable sets"),
    ({ authority }) => authority.manageVariableSets,
  ),
  'read-team-grant': row('team-grant', HIDE, ({ standing, authority, grant }) => seesTeamGrant(standing, authority, grant)),

  // Workspaces, through their project
  'read-workspace': row('workspace', HIDE, ({ authority }) => authority.readWorkspaces),
  'update-workspace': row('workspace', forbid('You are not allowed to change the settings of this workspace'), ({ authority }) => authority.manageWorkspaces),
  'destroy-workspace': row('workspace', forbid('You are not allowed to delete this workspace'), ({ authority }) => authority.deleteWorkspaces),
  // Locks and state, as TFE's workspace permissions: `locking`, `state-versions` read-outputs/read/write.
  'lock-workspace': row('workspace', forbid('You are not allowed to lock or unlock this workspace'), ({ authority }) => authority.lockWorkspaces),
  // Releasing someone else's lock takes workspace admin, as in TFE.
  'force-unlock-workspace': row('workspace', forbid('You are not allowed to force-unlock this workspace'), ({ authority }) => authority.manageWorkspaces),
  'read-state-outputs': row('workspace', forbid('You are not allowed to read the state of this workspace'), ({ authority }) => authority.readStateOutputs),
  'read-state': row('workspace', forbid('You are not allowed to read the state of this workspace'), ({ authority }) => authority.readState),
  'write-state': row('workspace', forbid('You are not allowed to write the state of this workspace'), ({ authority }) => authority.writeState),
  // Workspace admins (a workspace's own `admin` grant, a project's `maintain` or `admin`,
  // `manage-workspaces`) manage who else has access to it.
  'manage-workspace-team-access': row(
    'workspace',
    forbid("You are not allowed to manage this workspace's team access"),
    ({ authority }) => authority.manageWorkspaces,
  ),
  'read-workspace-team-grant': row('workspace-team-grant', HIDE, ({ standing, authority, grant }) => seesWorkspaceTeamGrant(standing, authority, grant)),
  // Uploading configuration and queueing, cancelling or discarding runs take `plan` runs
  // permission at least; confirming an apply and queueing a destroy take `apply`.
  'queue-run': row('workspace', forbid('You are not allowed to queue runs in this workspace'), ({ authority }) => authority.queueRuns),
  'apply-run': row('workspace', forbid('You are not allowed to apply runs in this workspace'), ({ authority }) => authority.applyRuns),
  // Refused moves are answered together, naming every workspace (see `denied`).
  'move-workspace-out': row('workspace', forbid(), ({ authority }) => authority.readWorkspaces && authority.moveWorkspace),
  // Variables, as TFE's workspace `variables` permission: none, read or write.
  'read-variables': row('workspace', forbid('You are not allowed to read the variables of this workspace'), ({ authority }) => authority.readVariables),
  'write-variables': row('workspace', forbid('You are not allowed to change the variables of this workspace'), ({ authority }) => authority.writeVariables),
  // Sentinel mocks of a run's plan, as TFE's workspace `sentinel-mocks` permission (write and admin imply it).
  'download-sentinel-mocks': row(
    'workspace',
    forbid('You are not allowed to download Sentinel mocks of this workspace'),
    ({ authority }) => authority.downloadSentinelMocks,
  ),
  // Tags: read with the workspace; written by whoever may change its settings.
  'manage-workspace-tags': row('workspace', forbid('You are not allowed to manage the tags of this workspace'), ({ authority }) => authority.manageWorkspaces),
  // Notification configurations: read with the workspace; managed (and verified) by its admins, as in TFE.
  'manage-notifications': row(
    'workspace',
    forbid("You are not allowed to manage this workspace's notifications"),
    ({ authority }) => authority.manageWorkspaces,
  ),
} as const;

export type Action = keyof typeof ACTIONS;
export type SubjectOf<A extends Action> = Subjects[(typeof ACTIONS)[A]['on']];
/** The actions checked against one kind of subject, e.g. ActionOn<'organization'>. */
export type ActionOn<K extends Kind> = { [A in Action]: (typeof ACTIONS)[A]['on'] extends K ? A : never }[Action];

/** The action that decides whether a caller sees a subject at all (null: every caller does). */
export const SEE: Record<Kind, Action | null> = {
  principal: null,
  account: null,
  organization: 'read-organization',
  team: 'read-team',
  project: 'read-project',
  'team-grant': 'read-team-grant',
  workspace: 'read-workspace',
  'workspace-team-grant': 'read-workspace-team-grant',
  gift: 'read-organization',
  membership: 'read-membership',
};

type Rule = (subject: unknown) => boolean;
const rule = (action: Action) => ACTIONS[action].allows as Rule;

/** Whether the caller sees the subject at all: what every action on it needs first. */
function sees(subject: unknown, kind: Kind): boolean {
  const see = SEE[kind];
  return see === null || rule(see)(subject);
}

/** Whether the subject allows `action`: the caller sees it, and the action's rule holds. */
export function can<A extends Action>(subject: SubjectOf<A>, action: A): boolean {
  return sees(subject, ACTIONS[action].on) && rule(action)(subject);
}

/** The answer to a caller who may see the subject but may not perform `action`; `detail` replaces the table's. */
export function denied(action: Action, detail?: string): ApiError {
  const deny = ACTIONS[action].deny;
  if (deny.status === 404) return errors.notFound();
  return errors.forbidden(detail ?? (typeof deny.detail === 'function' ? undefined : deny.detail));
}

/** Returns when the subject allows `action`; otherwise throws 404 (the caller does not see it) or what ACTIONS says. */
export function authorize<A extends Action>(subject: SubjectOf<A>, action: A): void {
  if (!sees(subject, ACTIONS[action].on)) throw errors.notFound();
  if (rule(action)(subject)) return;
  const deny = ACTIONS[action].deny as Deny<SubjectOf<A>>;
  throw denied(action, deny.status === 403 && typeof deny.detail === 'function' ? deny.detail(subject) : undefined);
}

// The `permissions` object each resource shows its caller, computed here from the same rules that
// authorize requests, so that what a response says a caller may do is what it may do.
import { can, type OrganizationSubject, type ProjectSubject, type TeamSubject } from './authorize.ts';
import { holds } from './organization.ts';

export function organizationPermissions(subject: OrganizationSubject) {
  return {
    'can-update': can(subject, 'update-organization'),
    'can-destroy': can(subject, 'destroy-organization'),
    'can-create-team': can(subject, 'create-team'),
    'can-update-api-token': can(subject, 'manage-organization-token'),
    'can-create-project': can(subject, 'create-project'),
    'can-create-workspace': holds(subject.standing, 'manage-all-workspaces'),
    'can-update-agent-pools': can(subject, 'manage-agent-pools'),
    'can-manage-policies': can(subject, 'manage-policies'),
  };
}

/** The owners team can be neither deleted nor given other organization access, by anyone. */
export function teamPermissions(subject: TeamSubject) {
  const manage = can(subject, 'update-team');
  return {
    'can-update-membership': can(subject, 'manage-team-membership'),
    'can-destroy': manage && !subject.team.isOwners,
    'can-update-organization-access': manage && !subject.team.isOwners,
    'can-update-api-token': manage,
    'can-update-visibility': manage,
  };
}

/** Nobody can delete the default project, however much authority they hold. */
export function projectPermissions(subject: ProjectSubject, project: { isDefault: boolean }) {
  return {
    'can-read': can(subject, 'read-project'),
    'can-update': can(subject, 'update-project'),
    'can-destroy': can(subject, 'destroy-project') && !project.isDefault,
    'can-create-workspace': can(subject, 'create-workspace'),
    'can-move-workspace': can(subject, 'move-workspaces-into'),
    'can-manage-teams': can(subject, 'manage-team-access'),
  };
}

export function workspacePermissions(subject: ProjectSubject) {
  return {
    'can-update': can(subject, 'update-workspace'),
    'can-destroy': can(subject, 'destroy-workspace'),
    'can-force-delete': can(subject, 'destroy-workspace'),
    'can-read-settings': can(subject, 'read-workspace'),
    'can-queue-run': can(subject, 'queue-run'),
    'can-queue-apply': can(subject, 'apply-run'),
    'can-queue-destroy': can(subject, 'apply-run'),
    'can-lock': can(subject, 'lock-workspace'),
    'can-unlock': can(subject, 'lock-workspace'),
    'can-force-unlock': can(subject, 'force-unlock-workspace'),
    'can-read-state-versions': can(subject, 'read-state'),
    'can-create-state-versions': can(subject, 'write-state'),
  };
}

/** What a user account may do: service accounts (behind organization tokens) none of it. */
export function userPermissions(user: { isServiceAccount: boolean }) {
  const person = !user.isServiceAccount;
  return {
    'can-create-organizations': person,
    'can-change-email': person,
    'can-change-username': person,
    'can-manage-user-tokens': person,
  };
}

export type OrganizationPermissions = ReturnType<typeof organizationPermissions>;
export type TeamPermissions = ReturnType<typeof teamPermissions>;
export type ProjectPermissions = ReturnType<typeof projectPermissions>;
export type WorkspacePermissions = ReturnType<typeof workspacePermissions>;
export type UserPermissions = ReturnType<typeof userPermissions>;

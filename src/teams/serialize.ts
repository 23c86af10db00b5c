import { toOne } from '../jsonapi/relationships.ts';
import { userResource } from '../users/serialize.ts';
import type { TeamsDocument, TeamView } from './service.ts';

/** `membershipIds`: the team's `organization-memberships`, when the request included them. */
export function teamResource({ team, memberIds, organizationName, permissions }: TeamView, membershipIds?: readonly string[]) {
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      visibility: team.visibility,
      'users-count': memberIds.length,
      'sso-team-id': team.ssoTeamId,
      'allow-member-token-management': team.allowMemberTokenManagement,
      'organization-access': team.organizationAccess,
      permissions,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      users: { data: memberIds.map((id) => ({ id, type: 'users' })) },
      ...(membershipIds ? { 'organization-memberships': { data: membershipIds.map((id) => ({ id, type: 'organization-memberships' })) } } : {}),
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}

/** The document's top-level `included` member, when the request asked for related resources. */
export function included(document: TeamsDocument<unknown>) {
  return document.users ? { included: document.users.map(userResource) } : {};
}

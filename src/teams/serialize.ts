import { toOne } from '../jsonapi/relationships.ts';
import type { TeamView } from './service.ts';

export function teamResource({ team, memberIds, organizationName, permissions }: TeamView) {
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      visibility: team.visibility,
      'users-count': memberIds.length,
      'sso-team-id': null,
      'allow-member-token-management': true,
      'organization-access': team.organizationAccess,
      permissions,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      users: { data: memberIds.map((id) => ({ id, type: 'users' })) },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}

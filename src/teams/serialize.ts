import { can } from '../auth/permissions.ts';
import type { TeamView } from './service.ts';

export function teamResource({ team, memberIds, standing }: TeamView) {
  const manage = can(standing, 'manage-teams');
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
      permissions: {
        'can-update-membership': can(standing, 'manage-membership'),
        'can-destroy': manage && !team.isOwners,
        'can-update-organization-access': manage && !team.isOwners,
        'can-update-api-token': manage,
        'can-update-visibility': manage,
      },
    },
    relationships: {
      organization: {
        data: { id: standing.organizationName, type: 'organizations' },
        links: { related: `/api/v2/organizations/${encodeURIComponent(standing.organizationName)}` },
      },
      users: { data: memberIds.map((id) => ({ id, type: 'users' })) },
      'authentication-token': { meta: {} },
    },
    links: { self: `/api/v2/teams/${team.id}` },
  };
}

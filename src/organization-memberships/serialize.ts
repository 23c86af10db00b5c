import { toOne } from '../jsonapi/relationships.ts';
import { teamResource } from '../teams/serialize.ts';
import { userResource } from '../users/serialize.ts';
import type { MembershipsDocument, MembershipView } from './service.ts';

export function membershipResource({ membership, organizationName, teamIds }: MembershipView) {
  return {
    id: membership.id,
    type: 'organization-memberships',
    attributes: {
      status: membership.status,
      email: membership.email,
      'created-at': membership.createdAt,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      user: toOne('users', membership.userId),
      teams: { data: teamIds.map((id) => ({ id, type: 'teams' })) },
    },
    links: { self: `/api/v2/organization-memberships/${membership.id}` },
  };
}

/** The document's top-level `included` member, when the request asked for related resources. */
export function included(document: MembershipsDocument<unknown>) {
  const users = document.users?.map(userResource) ?? [];
  const teams = document.teams?.map((t) => teamResource(t)) ?? [];
  return document.users || document.teams ? { included: [...users, ...teams] } : {};
}

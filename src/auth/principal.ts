// Who is calling, as established from the bearer token.
import type { OrganizationAccess } from '../grants.ts';

export interface UserIdentity {
  id: string;
  username: string;
  isSiteAdmin: boolean;
  isServiceAccount: boolean;
}

export type Principal =
  | {
      kind: 'user';
      tokenId: string;
      user: UserIdentity;
      /**
       * The ids of the organizations the user was on a team of when the request was
       * authenticated; undefined when not loaded (then every organization may be theirs).
       */
      memberOf?: ReadonlySet<string>;
    }
  | {
      kind: 'organization';
      tokenId: string;
      organizationId: string;
      organizationName: string;
      /** The synthetic service user that stands for the organization token (account details, created-by). */
      serviceUserId: string;
    }
  | {
      /**
       * A team token: acts with its team's organization access and its team's project and
       * workspace grants, in its team's organization only. It is no user: it has no account, and
       * what it creates records no user as its author.
       */
      kind: 'team';
      tokenId: string;
      organizationId: string;
      organizationName: string;
      team: { id: string; isOwners: boolean; access: OrganizationAccess };
    };

/**
 * An agent authenticated by an agent token, at the agent endpoints only. Deliberately not a
 * member of `Principal`: nothing under /api/v2 can be handed one, so no rule there can forget
 * to refuse it.
 */
export interface AgentPrincipal {
  kind: 'agent';
  tokenId: string;
  agentPoolId: string;
  organizationId: string;
}

/** The user recorded as the author of what this principal creates (none for a team token). */
export function actingUserId(p: Principal): string | null {
  if (p.kind === 'user') return p.user.id;
  if (p.kind === 'team') return null;
  return p.serviceUserId;
}

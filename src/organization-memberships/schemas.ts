import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Resource, Timestamp, ToMany, ToOne } from '../jsonapi/schemas.ts';
import { TeamResource } from '../teams/schemas.ts';
import { UserResource } from '../users/schemas.ts';

export const MembershipParams = Type.Object({ membership_id: Type.String() });

/** `include=user,teams` adds the membership's user and teams to `included`. */
const Include = Type.Optional(Type.String());

export const ListMembershipsQuery = Type.Object({
  ...PageParams,
  'filter[email]': Type.Optional(Type.String({ description: 'a comma-separated list of e-mail addresses' })),
  'filter[status]': Type.Optional(Type.Enum(['invited', 'active'], { description: 'invited or active' })),
  q: Type.Optional(Type.String()),
  include: Include,
});

export const ShowMembershipQuery = Type.Object({ include: Include });

const TeamRef = Type.Object({ type: Type.Literal('teams'), id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateMembershipBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organization-memberships'),
    attributes: Type.Object({ email: Type.String({ minLength: 1, maxLength: 255 }) }),
    relationships: Type.Optional(Type.Object({ teams: Type.Optional(Type.Object({ data: Type.Array(TeamRef, { maxItems: 100 }) })) })),
  }),
});

/** `POST/DELETE /teams/:team_id/relationships/organization-memberships`. */
export const TeamMembershipsBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('organization-memberships'), id: Type.String({ minLength: 1, maxLength: 64 }) }), {
    minItems: 1,
    maxItems: 100,
  }),
});

// ---- responses

export const MembershipResource = Resource('OrganizationMembership', 'organization-memberships', {
  attributes: {
    status: Type.String({ enum: ['invited', 'active'] }),
    email: Type.String(),
    'created-at': Timestamp,
  },
  relationships: {
    organization: ToOne('organizations'),
    user: ToOne('users'),
    teams: ToMany('teams'),
  },
});

const Included = Type.Union([UserResource, TeamResource]);

export const MembershipDocument = Document(
  MembershipResource,
  'The membership (with its user and teams in `included` when asked: include=user,teams)',
  Included,
);
export const MembershipListDocument = ListDocument(MembershipResource, 'A page of memberships', { included: Included });
export const OwnMembershipsDocument = ListDocument(MembershipResource, "The caller's own memberships, every one", {
  included: Included,
  paginated: 'when-asked',
});

import { Type } from 'typebox';
import { ORGANIZATION_ACCESS_KEYS } from '../grants.ts';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, Flags, ListDocument, Open, Resource, StringOrNull, ToMany, ToOne } from '../jsonapi/schemas.ts';
import { UserResource } from '../users/schemas.ts';

export const TeamParams = Type.Object({ team_id: Type.String() });

/** `include=users` adds the members to `included`. */
const Include = Type.Optional(Type.String());

export const ListTeamsQuery = Type.Object({
  ...PageParams,
  'filter[names]': Type.Optional(Type.String({ description: 'a comma-separated list of at most 100 values' })),
  q: Type.Optional(Type.String()),
  include: Include,
});

export const ShowTeamQuery = Type.Object({ include: Include });

const OrganizationAccess = Type.Object(Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, Type.Optional(Type.Boolean())])));
const Visibility = Type.Union([Type.Literal('secret'), Type.Literal('organization')]);
const Name = Type.String({ minLength: 1, maxLength: 255 });
const SsoTeamId = Type.Union([Type.String({ maxLength: 255 }), Type.Null()]);

const optionalAttributes = {
  visibility: Type.Optional(Visibility),
  'organization-access': Type.Optional(OrganizationAccess),
  'sso-team-id': Type.Optional(SsoTeamId),
  'allow-member-token-management': Type.Optional(Type.Boolean()),
};

export const CreateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    attributes: Type.Object({ name: Name, ...optionalAttributes }),
  }),
});

export const UpdateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), ...optionalAttributes })),
  }),
});

export const TeamMembersBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('users'), id: Type.String({ minLength: 1, maxLength: 255 }) }), {
    minItems: 1,
    maxItems: 100,
  }),
});

// ---- responses

const TeamPermissions = Flags(['can-update-membership', 'can-destroy', 'can-update-organization-access', 'can-update-api-token', 'can-update-visibility'], {
  description: 'what the caller may do with the team',
});

export const TeamResource = Resource('Team', 'teams', {
  attributes: {
    name: Type.String(),
    visibility: Type.String({ enum: ['secret', 'organization'] }),
    'users-count': Type.Integer(),
    'sso-team-id': StringOrNull(),
    'allow-member-token-management': Type.Boolean(),
    'organization-access': Flags(ORGANIZATION_ACCESS_KEYS),
    permissions: TeamPermissions,
  },
  relationships: {
    organization: ToOne('organizations'),
    users: ToMany('users'),
    'organization-memberships': Type.Optional(ToMany('organization-memberships')),
    'authentication-token': Open({ meta: Open({}) }),
  },
});

// organization-memberships/schemas.ts names teams in its own documents, so its resource is named
// here by reference rather than imported.
const Included = Type.Union([UserResource, Type.Unsafe({ $ref: 'OrganizationMembership#' })]);

export const TeamDocument = Document(
  TeamResource,
  'The team (with its users and memberships in `included` when asked: include=users,organization-memberships)',
  Included,
);
export const TeamListDocument = ListDocument(TeamResource, 'A page of teams (with their users and memberships in `included` when asked)', {
  included: Included,
});

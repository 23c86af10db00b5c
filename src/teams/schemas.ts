import { Type } from 'typebox';
import { ORGANIZATION_ACCESS_KEYS } from '../grants.ts';
import { PageParams } from '../jsonapi/pagination.ts';

export const TeamParams = Type.Object({ team_id: Type.String() });

export const ListTeamsQuery = Type.Object({
  ...PageParams,
  'filter[names]': Type.Optional(Type.String()),
  q: Type.Optional(Type.String()),
});

const OrganizationAccess = Type.Object(Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, Type.Optional(Type.Boolean())])));
const Visibility = Type.Union([Type.Literal('secret'), Type.Literal('organization')]);
const Name = Type.String({ minLength: 1, maxLength: 255 });

export const CreateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    attributes: Type.Object({
      name: Name,
      visibility: Type.Optional(Visibility),
      'organization-access': Type.Optional(OrganizationAccess),
    }),
  }),
});

export const UpdateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    attributes: Type.Optional(
      Type.Object({
        name: Type.Optional(Name),
        visibility: Type.Optional(Visibility),
        'organization-access': Type.Optional(OrganizationAccess),
      }),
    ),
  }),
});

export const TeamMembersBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('users'), id: Type.String({ minLength: 1, maxLength: 255 }) }), {
    minItems: 1,
    maxItems: 100,
  }),
});

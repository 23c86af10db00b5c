import { Type } from 'typebox';
import { ORGANIZATION_ACCESS_KEYS } from '../auth/permissions.ts';

export const TeamParams = Type.Object({ team_id: Type.String() });

const OrganizationAccess = Type.Object(
  Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, Type.Optional(Type.Boolean())])),
);
const Visibility = Type.Union([Type.Literal('secret'), Type.Literal('organization')]);

export const CreateTeamBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('teams'),
    attributes: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
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
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
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

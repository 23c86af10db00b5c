import { Type } from 'typebox';
import { Document, Flags, Open, RelatedLink, Resource } from '../jsonapi/schemas.ts';

export const UserParams = Type.Object({ user_id: Type.String() });

/** `PATCH /account/update`: go-tfe sends no attributes at all when nothing changes. */
export const UpdateAccountBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('users'),
    attributes: Type.Optional(
      Type.Object({
        username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        email: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      }),
    ),
  }),
});

// ---- responses

const UserPermissions = Flags(['can-create-organizations', 'can-change-email', 'can-change-username', 'can-manage-user-tokens'], {
  description: 'what the account may do: a service account (behind an organization token) none of it',
});

export const UserResource = Resource('User', 'users', {
  attributes: {
    username: Type.String(),
    email: Type.Optional(Type.String({ description: "only in the account's own answers" })),
    'unconfirmed-email': Type.Optional(Type.Null({ description: "only in the account's own answers" })),
    'is-service-account': Type.Boolean(),
    'is-site-admin': Type.Boolean(),
    'auth-method': Type.String(),
    'avatar-url': Type.String(),
    'v2-only': Type.Boolean(),
    'is-sso-login': Type.Boolean(),
    'two-factor': Open({ enabled: Type.Boolean(), verified: Type.Boolean() }),
    permissions: UserPermissions,
  },
  relationships: {
    'authentication-tokens': RelatedLink,
    'authenticated-resource': Type.Optional(
      Open(
        { data: Open({ id: Type.String(), type: Type.String({ enum: ['users', 'organizations'] }) }) },
        { description: 'account details only: the user, or the organization whose token is used' },
      ),
    ),
  },
});

export const UserDocument = Document(UserResource, 'The user');

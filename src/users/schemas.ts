import { Type } from 'typebox';

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

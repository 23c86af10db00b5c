import { Type } from 'typebox';

/**
 * go-tfe sends `{"data":{"type":"","attributes":{"reason":"…"}}}` (its lock options have no
 * resource type); unlock and force-unlock come without a body. Everything but the reason is ignored.
 */
export const LockBody = Type.Union([
  Type.Object({
    data: Type.Optional(
      Type.Object({
        type: Type.Optional(Type.String()),
        attributes: Type.Optional(Type.Object({ reason: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])) })),
      }),
    ),
  }),
  Type.Null(),
]);

import { Type } from 'typebox';

export const OrganizationParams = Type.Object({ organization_name: Type.String() });

export const CreateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      email: Type.String({ minLength: 3, maxLength: 255 }),
    }),
  }),
});

export const UpdateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Optional(
      Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        email: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
      }),
    ),
  }),
});

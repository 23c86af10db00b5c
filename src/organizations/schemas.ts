import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';

export const OrganizationParams = Type.Object({ organization_name: Type.String() });

export const ListOrganizationsQuery = Type.Object({ ...PageParams });

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Email = Type.String({ minLength: 3, maxLength: 255 });

export const CreateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Object({ name: Name, email: Email }),
  }),
});

export const UpdateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), email: Type.Optional(Email) })),
  }),
});

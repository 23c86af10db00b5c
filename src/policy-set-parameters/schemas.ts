import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';

/** Unpaginated unless a page parameter is given. */
export const ListParametersQuery = Type.Object({ ...PageParams });

export const ParameterParams = Type.Object({ policy_set_id: Type.String(), parameter_id: Type.String() });

const Key = Type.String({ minLength: 1, maxLength: 255 });
/** The only category a policy set parameter can have; anything else is a 422 at its pointer. */
const Category = Type.Literal('policy-set');

export const CreateParameterBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('vars'),
    attributes: Type.Object({
      key: Key,
      value: Type.Optional(Type.String()),
      category: Category,
      sensitive: Type.Optional(Type.Boolean()),
    }),
  }),
});

/** go-tfe sends neither `id` (the path names the parameter) nor, for no change, `attributes`. */
export const UpdateParameterBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('vars'),
    id: Type.Optional(Type.String()),
    attributes: Type.Optional(
      Type.Object({
        key: Type.Optional(Key),
        value: Type.Optional(Type.String()),
        category: Type.Optional(Category),
        sensitive: Type.Optional(Type.Boolean()),
      }),
    ),
  }),
});

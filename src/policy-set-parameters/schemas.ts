import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Resource, StringOrNull, ToOne } from '../jsonapi/schemas.ts';

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

// ---- responses

export const ParameterResource = Resource('PolicySetParameter', 'vars', {
  attributes: {
    key: Type.String(),
    value: StringOrNull({ description: 'null when the parameter is sensitive: its value never leaves Hangar' }),
    category: Type.String({ const: 'policy-set' }),
    sensitive: Type.Boolean(),
  },
  relationships: { configurable: ToOne('policy-sets') },
});

export const ParameterDocument = Document(ParameterResource, 'The parameter');
export const ParameterListDocument = ListDocument(ParameterResource, "The set's parameters (every one, unless a page is asked for)", {
  paginated: 'when-asked',
});

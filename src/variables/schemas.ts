import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Required } from '../jsonapi/query.ts';
import { Document, ListDocument, Open, Resource, StringOrNull, ToOne } from '../jsonapi/schemas.ts';

/** Unpaginated unless a page parameter is given, as TFE's variable lists. */
export const ListVariablesQuery = Type.Object({ ...PageParams });

/** The older `/vars` list names the workspace by organization and name. */
export const LegacyListVariablesQuery = Type.Object({
  'filter[organization][name]': Required,
  'filter[workspace][name]': Required,
  ...PageParams,
});
export const LegacyVariableParams = Type.Object({ variable_id: Type.String() });

export const WorkspaceVariableParams = Type.Object({ workspace_id: Type.String(), variable_id: Type.String() });
export const SetVariablesParams = Type.Object({ varset_id: Type.String() });
/** A set's variable is named apart from a workspace's (`variable_id`): they are different resources. */
export const SetVariableParams = Type.Object({ varset_id: Type.String(), set_variable_id: Type.String() });

const Key = Type.String({ minLength: 1, maxLength: 255 });
/** A variable is for Terraform or for the run's environment; anything else is a 422 at its pointer. */
const Category = Type.Union([Type.Literal('terraform'), Type.Literal('env')]);
// Sizes beyond the service's own rules (values.ts) are refused here, before any work is done.
const Value = Type.String({ maxLength: 256 * 1024 });
const Description = Type.String({ maxLength: 4096 });

const Attributes = {
  value: Type.Optional(Value),
  description: Type.Optional(Description),
  hcl: Type.Optional(Type.Boolean()),
  sensitive: Type.Optional(Type.Boolean()),
};

export const CreateVariableBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('vars'),
    attributes: Type.Object({ key: Key, category: Category, ...Attributes }),
  }),
});

/** The older `POST /vars` names the workspace in the body. */
export const LegacyCreateVariableBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('vars'),
    attributes: Type.Object({ key: Key, category: Category, ...Attributes }),
    relationships: Type.Object({
      workspace: Type.Object({ data: Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 64 }) }) }),
    }),
  }),
});

/** go-tfe sends no `id` (the path names the variable) and, for no change, no attributes. */
export const UpdateVariableBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('vars'),
    id: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Object({ key: Type.Optional(Key), category: Type.Optional(Category), ...Attributes })),
  }),
});

// ---- responses

const VariableAttributes = {
  key: Type.String(),
  value: StringOrNull({ description: 'null when the variable is sensitive: its value never leaves Hangar' }),
  description: Type.String(),
  category: Type.String({ enum: ['terraform', 'env'] }),
  hcl: Type.Boolean(),
  sensitive: Type.Boolean(),
  'version-id': Type.String(),
};

export const VariableResource = Resource('Variable', 'vars', {
  attributes: VariableAttributes,
  relationships: {
    configurable: Type.Optional(ToOne('workspaces')),
    varset: Type.Optional(ToOne('varsets')),
  },
});

export const VariableDocument = Document(VariableResource, 'The variable');
export const VariableListDocument = ListDocument(VariableResource, 'The variables (every one, unless a page is asked for)', { paginated: 'when-asked' });
export const EffectiveVariableListDocument = Open({
  data: Type.Array(VariableResource, { description: 'The variables a run of the workspace gets, one per category and key' }),
});

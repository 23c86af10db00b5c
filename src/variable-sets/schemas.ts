import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Open, Resource, Timestamp, ToMany, ToOne } from '../jsonapi/schemas.ts';

export const VariableSetParams = Type.Object({ varset_id: Type.String() });

/** What `include` may name; the relationships carry the ids whatever is asked. */
export const VARIABLE_SET_INCLUDES = ['workspaces', 'projects', 'vars'];

export const ListVariableSetsQuery = Type.Object({
  ...PageParams,
  q: Type.Optional(Type.String({ maxLength: 255, description: 'a part of the name, any case' })),
  include: Type.Optional(Type.String()),
});
export const ShowVariableSetQuery = Type.Object({ include: Type.Optional(Type.String()) });

/** More than any set needs, and well inside both engines' bind-parameter limits. */
export const MAX_LINKS = 1000;
const Linked = (type: string) => Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 64 }) });
const LinkList = (type: string) => Type.Object({ data: Type.Array(Linked(type), { maxItems: MAX_LINKS }) });

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Attributes = {
  description: Type.Optional(Type.String({ maxLength: 4096 })),
  global: Type.Optional(Type.Boolean()),
  priority: Type.Optional(Type.Boolean()),
};
const Relationships = {
  workspaces: Type.Optional(LinkList('workspaces')),
  projects: Type.Optional(LinkList('projects')),
};

export const CreateVariableSetBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('varsets'),
    attributes: Type.Object({ name: Name, ...Attributes }),
    relationships: Type.Optional(
      Type.Object({
        // The owner: the organization (the default) or one of its projects.
        parent: Type.Optional(
          Type.Object({
            data: Type.Union([
              Type.Null(),
              Type.Object({ type: Type.Union([Type.Literal('organizations'), Type.Literal('projects')]), id: Type.String({ minLength: 1, maxLength: 255 }) }),
            ]),
          }),
        ),
        ...Relationships,
      }),
    ),
  }),
});

export const UpdateVariableSetBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('varsets'),
    id: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), ...Attributes })),
    relationships: Type.Optional(Type.Object(Relationships)),
  }),
});

/** go-tfe sends whole workspace (project) objects; only `type` and `id` are read. */
export const ApplyWorkspacesBody = Type.Object({ data: Type.Array(Linked('workspaces'), { minItems: 1, maxItems: MAX_LINKS }) });
export const ApplyProjectsBody = Type.Object({ data: Type.Array(Linked('projects'), { minItems: 1, maxItems: MAX_LINKS }) });

// ---- responses

export const VariableSetResource = Resource('VariableSet', 'varsets', {
  attributes: {
    name: Type.String(),
    description: Type.String(),
    global: Type.Boolean(),
    priority: Type.Boolean(),
    'updated-at': Timestamp,
    'var-count': Type.Integer(),
    'workspace-count': Type.Integer(),
    'project-count': Type.Integer(),
  },
  relationships: {
    organization: ToOne('organizations'),
    parent: Open({ data: Open({ id: Type.String(), type: Type.String({ enum: ['organizations', 'projects'] }) }), links: Open({ related: Type.String() }) }),
    workspaces: ToMany('workspaces'),
    projects: ToMany('projects'),
    vars: ToMany('vars'),
  },
});

export const VariableSetDocument = Document(VariableSetResource, 'The variable set');
export const VariableSetListDocument = ListDocument(VariableSetResource, 'A page of variable sets, oldest first');

import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Flag, SortParam } from '../jsonapi/query.ts';
import { EffectiveTagBindingResource, TagBindingsRelationship, TagRelationshipsSchema } from '../tags/schemas.ts';
import { Document, Flags, ListDocument, Open, Resource, StatusCounts, StringOrNull, Timestamp, ToOne, ToOneOrNone } from '../jsonapi/schemas.ts';

export const ProjectParams = Type.Object({ project_id: Type.String() });

/** go-tfe asks for the effective tag bindings (a project's own: projects inherit none). */
export const PROJECT_INCLUDES = ['effective_tag_bindings'];

export const ShowProjectQuery = Type.Object({ include: Type.Optional(Type.String()) });

export const ListProjectsQuery = Type.Object({
  ...PageParams,
  include: Type.Optional(Type.String()),
  'filter[names]': Type.Optional(Type.String({ description: 'a comma-separated list of at most 100 values' })),
  q: Type.Optional(Type.String()),
  'filter[permissions][create-workspace]': Flag,
  'filter[permissions][update]': Flag,
  sort: SortParam(['name']),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);

// Lengths and formats are checked by the service, after the caller is authorized, and worded as
// TFE words them. Other attributes real clients send (default-execution-mode,
// setting-overwrites …) are accepted and ignored. `relationships.tag-bindings` replaces the
// project's tag bindings (`[]` clears them).
const Relationships = Type.Optional(Type.Object({ 'tag-bindings': TagBindingsRelationship }));

export const CreateProjectBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('projects'),
    attributes: Type.Object({
      name: Type.String(),
      description: Type.Optional(NullableString),
      'auto-destroy-activity-duration': Type.Optional(NullableString),
    }),
    relationships: Relationships,
  }),
});

export const UpdateProjectBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('projects'),
    attributes: Type.Optional(
      Type.Object({
        name: Type.Optional(Type.String()),
        description: Type.Optional(NullableString),
        'auto-destroy-activity-duration': Type.Optional(NullableString),
      }),
    ),
    relationships: Relationships,
  }),
});

/** Far more than any client sends at once, and well inside both engines' bind-parameter limits. */
export const MAX_WORKSPACES_PER_MOVE = 5000;

export const MoveWorkspacesBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 64 }) }), {
    minItems: 1,
    maxItems: MAX_WORKSPACES_PER_MOVE,
  }),
});

// ---- responses

const ProjectPermissions = Flags(['can-read', 'can-update', 'can-destroy', 'can-create-workspace', 'can-move-workspace', 'can-manage-teams'], {
  description: 'what the caller may do with the project, from the same rules that authorize requests',
});

export const ProjectResource = Resource('Project', 'projects', {
  attributes: {
    name: Type.String(),
    description: StringOrNull(),
    'created-at': Timestamp,
    'auto-destroy-activity-duration': StringOrNull({ description: 'e.g. `14d` or `2h`; null: never' }),
    'default-execution-mode': Type.String({ enum: ['remote', 'local', 'agent'], description: "the organization's (projects have no mode of their own yet)" }),
    'setting-overwrites': Flags(['default-execution-mode', 'default-agent-pool'], {
      description: "always false: the project follows its organization's defaults",
    }),
    'workspace-count': Type.Integer(),
    'team-count': Type.Integer(),
    permissions: ProjectPermissions,
  },
  relationships: {
    organization: ToOne('organizations'),
    'default-agent-pool': ToOneOrNone('agent-pools'),
    ...TagRelationshipsSchema,
  },
});

export const ProjectDocument = Document(ProjectResource, 'The project', EffectiveTagBindingResource);
export const ProjectListDocument = ListDocument(ProjectResource, 'A page of projects', {
  meta: { 'status-counts': StatusCounts },
  included: EffectiveTagBindingResource,
});

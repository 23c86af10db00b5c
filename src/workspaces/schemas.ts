import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { SortParam } from '../jsonapi/query.ts';
import { Document, Flags, ListDocument, Open, Resource, StringOrNull, Timestamp, ToOne } from '../jsonapi/schemas.ts';

export const WorkspaceParams = Type.Object({ workspace_id: Type.String() });
export const OrganizationWorkspaceParams = Type.Object({ organization_name: Type.String(), workspace_name: Type.String() });

export const ListWorkspacesQuery = Type.Object({
  ...PageParams,
  'search[name]': Type.Optional(Type.String()),
  'filter[project][id]': Type.Optional(Type.String()),
  sort: SortParam(['name']),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);

const Attributes = {
  description: Type.Optional(NullableString),
  'auto-destroy-activity-duration': Type.Optional(NullableString),
  'inherits-project-auto-destroy': Type.Optional(Type.Boolean()),
};

/** `data: null` means "no project given" (the default project on create, no move on update). */
const Relationships = Type.Optional(
  Type.Object({
    project: Type.Optional(
      Type.Object({
        data: Type.Union([Type.Object({ type: Type.Literal('projects'), id: Type.String({ minLength: 1, maxLength: 64 }) }), Type.Null()]),
      }),
    ),
  }),
);

// Real clients send many workspace attributes Hangar does not model (execution-mode,
// terraform-version, vcs-repo …); they are accepted and ignored.
export const CreateWorkspaceBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('workspaces'),
    attributes: Type.Object({ name: Type.String(), ...Attributes }),
    relationships: Relationships,
  }),
});

export const UpdateWorkspaceBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('workspaces'),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), ...Attributes })),
    relationships: Relationships,
  }),
});

// ---- responses

const WorkspacePermissions = Flags(['can-update', 'can-destroy', 'can-force-delete', 'can-read-settings'], {
  description: 'what the caller may do with the workspace',
});

export const WorkspaceResource = Resource('Workspace', 'workspaces', {
  attributes: {
    name: Type.String(),
    description: StringOrNull(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    'auto-destroy-activity-duration': StringOrNull({ description: "the workspace's own, or its project's when it inherits" }),
    'inherits-project-auto-destroy': Type.Boolean(),
    'auto-destroy-at': Type.Null(),
    'execution-mode': Type.String(),
    source: Type.String(),
    locked: Type.Boolean(),
    'lock-reason': StringOrNull(),
    permissions: WorkspacePermissions,
  },
  relationships: {
    organization: ToOne('organizations'),
    project: ToOne('projects'),
    'locked-by': Type.Optional(
      Open(
        { data: Open({ id: Type.String(), type: Type.String({ enum: ['users', 'teams', 'runs'] }) }), links: Open({ related: Type.String() }) },
        { description: 'only while the workspace is locked: who holds the lock' },
      ),
    ),
  },
});

export const WorkspaceDocument = Document(WorkspaceResource, 'The workspace');
export const WorkspaceListDocument = ListDocument(WorkspaceResource, 'A page of workspaces the caller can see');

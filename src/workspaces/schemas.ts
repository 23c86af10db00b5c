import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { SortParam } from '../jsonapi/query.ts';
import { EffectiveTagBindingResource, TagBindingsRelationship, TagNamesAttribute, TagRelationshipsSchema, TagsRelationship } from '../tags/schemas.ts';
import {
  Document,
  Flags,
  ListDocument,
  Open,
  RelatedLink,
  Resource,
  StringOrNull,
  Timestamp,
  TimestampOrNull,
  ToMany,
  ToOne,
  ToOneOrNone,
} from '../jsonapi/schemas.ts';
import { OrganizationResource } from '../organizations/schemas.ts';
import { WorkspaceOutputResource } from '../state-versions/schemas.ts';

export const WorkspaceParams = Type.Object({ workspace_id: Type.String() });
export const OrganizationWorkspaceParams = Type.Object({ organization_name: Type.String(), workspace_name: Type.String() });

export const ListWorkspacesQuery = Type.Object({
  ...PageParams,
  include: Type.Optional(Type.String()),
  'search[name]': Type.Optional(Type.String()),
  /** `*` at either end or both matches any text there; without one, the whole name (any case). */
  'search[wildcard-name]': Type.Optional(Type.String({ maxLength: 100 })),
  'filter[project][id]': Type.Optional(Type.String()),
  // Tags: comma-separated keys that must all (`tags`) or may none (`exclude-tags`) be in effect;
  // `filter[tagged][i][key|value]` is read by the route (its keys are numbered).
  'search[tags]': Type.Optional(Type.String({ description: 'a comma-separated list of at most 100 values' })),
  'search[exclude-tags]': Type.Optional(Type.String({ description: 'a comma-separated list of at most 100 values' })),
  'filter[current-run][status]': Type.Optional(Type.String({ description: 'Comma-separated run statuses of the current run' })),
  sort: SortParam(['name', 'current-run.created-at']),
});

/** go-tfe's include values for a workspace; only `outputs` adds anything (the current state's outputs). */
export const WORKSPACE_INCLUDES = [
  'organization',
  'current_configuration_version',
  'current_configuration_version.ingress_attributes',
  'current_run',
  'current_run.plan',
  'current_run.configuration_version',
  'current_run.configuration_version.ingress_attributes',
  'effective_tag_bindings',
  'locked_by',
  'readme',
  'outputs',
  'current-state-version',
  'project',
] as const;
export const ShowWorkspaceQuery = Type.Object({ include: Type.Optional(Type.String()) });

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** Trigger prefixes and patterns: paths in the repository. */
const PathList = Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 100 });
const ExecutionMode = Type.Union([Type.Literal('remote'), Type.Literal('local'), Type.Literal('agent')]);

const Attributes = {
  description: Type.Optional(NullableString),
  'auto-destroy-activity-duration': Type.Optional(NullableString),
  'inherits-project-auto-destroy': Type.Optional(Type.Boolean()),
  'auto-destroy-at': Type.Optional(NullableString),
  'auto-apply': Type.Optional(Type.Boolean()),
  'auto-apply-run-trigger': Type.Optional(Type.Boolean()),
  'allow-destroy-plan': Type.Optional(Type.Boolean()),
  'assessments-enabled': Type.Optional(Type.Boolean()),
  'file-triggers-enabled': Type.Optional(Type.Boolean()),
  'global-remote-state': Type.Optional(Type.Boolean()),
  'queue-all-runs': Type.Optional(Type.Boolean()),
  'speculative-enabled': Type.Optional(Type.Boolean()),
  'structured-run-output-enabled': Type.Optional(Type.Boolean()),
  'terraform-version': Type.Optional(Type.String({ maxLength: 100 })),
  'working-directory': Type.Optional(Type.String({ maxLength: 1024 })),
  'trigger-prefixes': Type.Optional(PathList),
  'trigger-patterns': Type.Optional(PathList),
  'execution-mode': Type.Optional(ExecutionMode),
  /** Deprecated in TFE: true is `remote`, false `local`; never together with `execution-mode`. */
  operations: Type.Optional(Type.Boolean()),
  'agent-pool-id': Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  /** false: follow the organization's default; true: the workspace's own value. */
  'setting-overwrites': Type.Optional(
    Type.Object({
      'execution-mode': Type.Optional(Type.Boolean()),
      'agent-pool': Type.Optional(Type.Boolean()),
    }),
  ),
  'tag-names': TagNamesAttribute,
};

/** `data: null` means "no project given" (the default project on create, no move on update). */
const Relationships = Type.Optional(
  Type.Object({
    project: Type.Optional(
      Type.Object({
        data: Type.Union([Type.Object({ type: Type.Literal('projects'), id: Type.String({ minLength: 1, maxLength: 64 }) }), Type.Null()]),
      }),
    ),
    'tag-bindings': TagBindingsRelationship,
    tags: TagsRelationship,
  }),
);

// Real clients send more workspace attributes than Hangar models (vcs-repo …); they are accepted
// and ignored. `source-name` and `source-url` say what created the workspace: create only.
export const CreateWorkspaceBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('workspaces'),
    attributes: Type.Object({
      name: Type.String(),
      ...Attributes,
      'source-name': Type.Optional(Type.String({ maxLength: 255 })),
      'source-url': Type.Optional(Type.String({ maxLength: 2048 })),
    }),
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

/** Far more consumers than any workspace needs, and well inside both engines' bind-parameter limits. */
export const MAX_REMOTE_STATE_CONSUMERS = 1000;

/** go-tfe sends whole workspace objects; only `type` and `id` are read. */
export const RemoteStateConsumersBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 64 }) }), {
    minItems: 1,
    maxItems: MAX_REMOTE_STATE_CONSUMERS,
  }),
});

export const RemoteStateConsumersQuery = Type.Object({ ...PageParams });
// ---- responses

const WorkspacePermissions = Flags(
  [
    'can-update',
    'can-destroy',
    'can-force-delete',
    'can-read-settings',
    'can-queue-run',
    'can-queue-apply',
    'can-queue-destroy',
    'can-lock',
    'can-unlock',
    'can-force-unlock',
    'can-read-state-versions',
    'can-create-state-versions',
  ],
  {
    description: 'what the caller may do with the workspace',
  },
);

export const WorkspaceResource = Resource('Workspace', 'workspaces', {
  attributes: {
    name: Type.String(),
    description: StringOrNull(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    'auto-destroy-activity-duration': StringOrNull({ description: "the workspace's own, or its project's when it inherits" }),
    'inherits-project-auto-destroy': Type.Boolean(),
    'auto-destroy-at': TimestampOrNull,
    'auto-apply': Type.Boolean(),
    'auto-apply-run-trigger': Type.Boolean(),
    'allow-destroy-plan': Type.Boolean(),
    'assessments-enabled': Type.Boolean(),
    'file-triggers-enabled': Type.Boolean(),
    'global-remote-state': Type.Boolean({ description: 'every workspace of the organization may read its state, not only its remote state consumers' }),
    'queue-all-runs': Type.Boolean(),
    'speculative-enabled': Type.Boolean(),
    'structured-run-output-enabled': Type.Boolean(),
    'terraform-version': Type.String({ description: 'a version, a version constraint, or `latest`' }),
    'working-directory': Type.String(),
    'trigger-prefixes': Type.Array(Type.String()),
    'trigger-patterns': Type.Array(Type.String()),
    'source-name': StringOrNull(),
    'source-url': StringOrNull(),
    'execution-mode': Type.String({ enum: ['remote', 'local', 'agent'], description: "the workspace's own, or its organization's default" }),
    operations: Type.Boolean({ description: 'deprecated: whether the execution mode is not `local`' }),
    'setting-overwrites': Flags(['execution-mode', 'agent-pool'], { description: "true: the workspace's own; false: its organization's default" }),
    source: Type.String(),
    locked: Type.Boolean(),
    'lock-reason': StringOrNull(),
    'runs-count': Type.Integer({ description: 'how many runs the workspace has had' }),
    'workspace-kpis-runs-count': Type.Integer({ description: 'the same, under the name go-tfe reads' }),
    'resource-count': Type.Integer({ description: 'how many resources its current state manages' }),
    actions: Flags(['is-destroyable']),
    permissions: WorkspacePermissions,
    'tag-names': Type.Array(Type.String(), { description: "the keys of the workspace's own tag bindings" }),
  },
  relationships: {
    organization: ToOne('organizations'),
    project: ToOne('projects'),
    'agent-pool': ToOneOrNone('agent-pools'),
    'ssh-key': ToOneOrNone('ssh-keys'),
    'current-configuration-version': Open(
      { data: ToOneOrNone('configuration-versions').properties.data, links: Type.Optional(Open({ related: Type.String() })) },
      { description: 'its newest configuration version that is not provisional; null before it has one' },
    ),
    'remote-state-consumers': RelatedLink,
    'current-run': Open(
      { data: ToOneOrNone('runs').properties.data, links: Type.Optional(Open({ related: Type.String() })) },
      { description: 'its newest run that is not speculative; null before it has one' },
    ),
    'latest-run': Open({ data: ToOneOrNone('runs').properties.data, links: Type.Optional(Open({ related: Type.String() })) }),
    'current-state-version': Open({ data: ToOneOrNone('state-versions').properties.data, links: Type.Optional(Open({ related: Type.String() })) }),
    'locked-by': Type.Optional(
      Open(
        { data: Open({ id: Type.String(), type: Type.String({ enum: ['users', 'teams', 'runs'] }) }), links: Open({ related: Type.String() }) },
        { description: 'only while the workspace is locked: who holds the lock' },
      ),
    ),
    ...TagRelationshipsSchema,
    // Only with include=outputs.
    outputs: Type.Optional(ToMany('workspace-outputs')),
    // Its own variables (not those of variable sets), oldest first.
    vars: ToMany('vars'),
  },
  links: { 'self-html': Type.String({ description: "where TFE's web interface shows the workspace" }) },
  description: 'A workspace',
});

/** What a workspace document may include: its organization, its effective tag bindings, its outputs. */
// Runs and state versions included (current_run, current_state_version) are their domains' resources.
const WorkspaceIncluded = Type.Union([OrganizationResource, EffectiveTagBindingResource, WorkspaceOutputResource, Type.Unknown()]);
export const WorkspaceDocument = Document(WorkspaceResource, 'The workspace', WorkspaceIncluded);
export const WorkspaceListDocument = ListDocument(WorkspaceResource, 'A page of workspaces the caller can see', { included: WorkspaceIncluded });
export const RemoteStateConsumersDocument = ListDocument(
  WorkspaceResource,
  "A page of the workspaces that may read the workspace's state, of those the caller can see",
);

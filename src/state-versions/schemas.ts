import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, IntegerOrNull, ListDocument, Open, Resource, StringOrNull, Timestamp, ToMany, ToOne } from '../jsonapi/schemas.ts';
import { Required } from '../jsonapi/query.ts';

export const StateVersionParams = Type.Object({ state_version_id: Type.String() });
export const OutputParams = Type.Object({ state_version_output_id: Type.String() });
export const UploadParams = Type.Object({ state_version_id: Type.String(), kind: Type.Union([Type.Literal('state'), Type.Literal('json-state')]) });
export const UploadQuery = Type.Object({ credential: Required });

/** go-tfe's include values for state versions; only `outputs` adds anything. */
export const STATE_VERSION_INCLUDES = ['outputs', 'created_by', 'run', 'run.created_by', 'run.configuration_version'] as const;
export const IncludeQuery = Type.Object({ include: Type.Optional(Type.String()) });

export const ListStateVersionsQuery = Type.Object({
  ...PageParams,
  'filter[workspace][name]': Required,
  'filter[organization][name]': Required,
});
export const OutputsQuery = Type.Object({ ...PageParams });

/**
 * What a client sends to create a state version. go-tfe sends `run` as a relationship and, for
 * older servers, `state`; Terraform also sends `json-state-outputs`, which Hangar does not need
 * (the outputs come from the state itself) and ignores.
 */
export const CreateStateVersionBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String()),
    attributes: Type.Object({
      serial: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      md5: Type.String(),
      lineage: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
      state: Type.Optional(Type.String()),
      'json-state': Type.Optional(Type.String()),
      force: Type.Optional(Type.Boolean()),
    }),
  }),
});

// ---- responses
const Counts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()));

export const StateVersionResource = Resource('StateVersion', 'state-versions', {
  attributes: {
    'created-at': Timestamp,
    serial: Type.Integer(),
    status: Type.String({ description: '`pending` until the state arrives, then `finalized`' }),
    size: IntegerOrNull({ description: 'bytes of the state file' }),
    'state-version': IntegerOrNull({ description: "the state file's format version" }),
    'terraform-version': StringOrNull(),
    'resources-processed': Type.Boolean(),
    resources: Type.Array(Open({ name: Type.String(), type: Type.String(), count: Type.Integer(), module: Type.String(), provider: Type.String() })),
    providers: Counts,
    modules: Counts,
    'billable-rum-count': IntegerOrNull(),
    intermediate: Type.Boolean(),
    'vcs-commit-sha': Type.Null(),
    'vcs-commit-url': Type.Null(),
    'hosted-state-download-url': StringOrNull(),
    'hosted-json-state-download-url': StringOrNull(),
    'hosted-state-upload-url': StringOrNull({
      description: 'only in the answer to creating a pending version: signed, single-use, short-lived; PUT without a token',
    }),
    'hosted-json-state-upload-url': StringOrNull({ description: 'the same, for the JSON state' }),
  },
  relationships: {
    workspace: ToOne('workspaces'),
    'created-by': Type.Optional(ToOne('users')),
    outputs: ToMany('state-version-outputs'),
  },
});

export const OutputResource = Resource('StateVersionOutput', 'state-version-outputs', {
  attributes: {
    name: Type.String(),
    sensitive: Type.Boolean(),
    type: Type.String(),
    value: Type.Unsafe<unknown>({ description: 'any JSON value; null when sensitive, except where shown on its own' }),
    'detailed-type': Type.Unsafe<unknown>({ description: 'Terraform\'s type constraint, e.g. ["list","string"]' }),
  },
});

export const WorkspaceOutputResource = Resource('WorkspaceOutput', 'workspace-outputs', {
  attributes: {
    name: Type.String(),
    sensitive: Type.Boolean(),
    'output-type': Type.String(),
    value: Type.Unsafe<unknown>({ description: 'any JSON value; null when sensitive' }),
  },
});

export const WorkspaceResourceResource = Resource('WorkspaceResource', 'resources', {
  description: "A managed resource instance of the workspace's current state (its attribute values are never shown)",
  attributes: {
    address: Type.String({ description: 'e.g. `media_bucket.aws_s3_bucket_public_access_block.this[0]`: the module path without `module.`' }),
    name: Type.String(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    module: Type.String({ description: '`root`, or the module path without `module.` (`a[0].b`)' }),
    provider: Type.String({ description: 'the provider without its registry host, e.g. `hashicorp/aws`' }),
    'provider-type': Type.String({ description: 'the resource type, e.g. `aws_s3_bucket`' }),
    'modified-by-state-version-id': Type.String({ description: 'the state version that last changed its attributes, or first held it' }),
    'name-index': StringOrNull({ description: 'the instance key (`count` or `for_each`) as a string, or null' }),
  },
  links: false,
});
export const WorkspaceResourcesQuery = Type.Object({ ...PageParams });

export const StateVersionDocument = Document(StateVersionResource, 'The state version', OutputResource);
export const StateVersionListDocument = ListDocument(StateVersionResource, "A page of the workspace's state versions, newest first");
export const OutputDocument = Document(OutputResource, 'The output, its value shown even when sensitive');
export const OutputListDocument = ListDocument(OutputResource, 'Outputs, in the order of the state file');
export const StateBytes = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The file, byte for byte as uploaded' });
export const WorkspaceResourceListDocument = ListDocument(WorkspaceResourceResource, "A page of the workspace's resources, in the order of the state file");

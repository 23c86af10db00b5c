import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { BooleanOrNull, Document, ListDocument, Resource, StringOrNull, Timestamp, ToMany, ToOne, ToOneOrNone } from '../jsonapi/schemas.ts';
import { PolicyResource } from '../policies/schemas.ts';
import { PolicySetVersionResource } from '../policy-set-versions/schemas.ts';

export const PolicySetParams = Type.Object({ policy_set_id: Type.String() });

/** `include=policies,newest_version,current_version` adds those to `included` (projects, workspaces and workspace_exclusions are accepted and add nothing). */
const Include = Type.Optional(Type.String());
export const ShowPolicySetQuery = Type.Object({ include: Include });

export const ListPolicySetsQuery = Type.Object({
  ...PageParams,
  'search[name]': Type.Optional(Type.String()),
  // Empty: no filter.
  'filter[kind]': Type.Optional(Type.Enum(['', 'sentinel', 'opa'], { description: '"sentinel" or "opa"' })),
  include: Include,
});

const Kind = Type.Union([Type.Literal('sentinel'), Type.Literal('opa')]);
const NullableString = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);

const ProjectRef = Type.Object({ type: Type.Literal('projects'), id: Type.String({ minLength: 1, maxLength: 64 }) });
const WorkspaceRef = Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 64 }) });
const PolicyRef = Type.Object({ type: Type.Literal('policies'), id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Each list replaces the set's list of that kind. Items are read for `type` and `id` only: go-tfe
 * sends whole workspace, project and policy records.
 */
const Relationships = Type.Optional(
  Type.Object({
    projects: Type.Optional(Type.Object({ data: Type.Array(ProjectRef, { maxItems: 100 }) })),
    workspaces: Type.Optional(Type.Object({ data: Type.Array(WorkspaceRef, { maxItems: 100 }) })),
    'workspace-exclusions': Type.Optional(Type.Object({ data: Type.Array(WorkspaceRef, { maxItems: 100 }) })),
    policies: Type.Optional(Type.Object({ data: Type.Array(PolicyRef, { maxItems: 100 }) })),
  }),
);

const optionalAttributes = {
  description: Type.Optional(NullableString(1024)),
  global: Type.Optional(Type.Boolean()),
  overridable: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  'agent-enabled': Type.Optional(Type.Boolean()),
  'policy-tool-version': Type.Optional(NullableString(64)),
};

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const CreatePolicySetBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('policy-sets'),
    attributes: Type.Object({ name: Name, kind: Type.Optional(Kind), ...optionalAttributes }),
    relationships: Relationships,
  }),
});

export const UpdatePolicySetBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('policy-sets'),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), kind: Type.Optional(Kind), ...optionalAttributes })),
    relationships: Relationships,
  }),
});

export const PolicySetProjectsBody = Type.Object({
  data: Type.Array(ProjectRef, { minItems: 1, maxItems: 100 }),
});

export const PolicySetWorkspacesBody = Type.Object({
  data: Type.Array(WorkspaceRef, { minItems: 1, maxItems: 100 }),
});

export const PolicySetPoliciesBody = Type.Object({
  data: Type.Array(PolicyRef, { minItems: 1, maxItems: 100 }),
});

// ---- responses

export const PolicySetResource = Resource('PolicySet', 'policy-sets', {
  attributes: {
    name: Type.String(),
    description: StringOrNull(),
    kind: Type.String({ enum: ['sentinel', 'opa'] }),
    global: Type.Boolean(),
    overridable: BooleanOrNull(),
    'agent-enabled': Type.Boolean(),
    'policy-tool-version': StringOrNull(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
    'policy-count': Type.Integer({ description: 'the policies it holds, or for a set with versions those its current version declares' }),
    versioned: Type.Boolean({ description: 'whether its policies come from uploaded versions' }),
    'vcs-repo': Type.Null(),
    'policies-path': Type.Null(),
    'workspace-count': Type.Integer(),
    'project-count': Type.Integer(),
  },
  relationships: {
    organization: ToOne('organizations'),
    projects: ToMany('projects'),
    workspaces: ToMany('workspaces'),
    'workspace-exclusions': ToMany('workspaces'),
    policies: ToMany('policies'),
    'newest-version': ToOneOrNone('policy-set-versions'),
    'current-version': ToOneOrNone('policy-set-versions'),
  },
});

const Included = Type.Union([PolicyResource, PolicySetVersionResource]);
export const PolicySetDocument = Document(PolicySetResource, 'The policy set (with its policies and versions in `included` when asked)', Included);
export const PolicySetListDocument = ListDocument(PolicySetResource, 'A page of policy sets', { included: Included });

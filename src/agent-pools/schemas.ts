import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { SortParam } from '../jsonapi/query.ts';
import { Document, ListDocument, RelatedLink, Resource, StatusCounts, Timestamp, ToMany, ToOne } from '../jsonapi/schemas.ts';

export const AgentPoolParams = Type.Object({ agent_pool_id: Type.String() });

export const ListAgentPoolsQuery = Type.Object({
  ...PageParams,
  q: Type.Optional(Type.String()),
  sort: SortParam(['name', 'created-at']),
  /** The pools a workspace of this name may use: organization-scoped ones and those allowing it. */
  'filter[allowed_workspaces][name]': Type.Optional(Type.String()),
});

/** A pool's agent tokens, and its agents: oldest first unless `sort=-created-at`. */
export const ListByCreationQuery = Type.Object({ ...PageParams, sort: SortParam(['created-at']) });

/** How many workspaces one request may list: keeps each write to a few bounded statements. */
const MAX_ALLOWED_WORKSPACES = 1000;

const WorkspaceRef = Type.Object({ type: Type.Literal('workspaces'), id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * `allowed-workspaces` replaces the pool's list (`[]` clears it). Per JSON:API a relationship
 * sent in a write carries `data`. Other relationships real clients send (`allowed-projects`,
 * `excluded-workspaces`, …) are not modelled and are ignored.
 */
const Relationships = Type.Optional(
  Type.Object({
    'allowed-workspaces': Type.Optional(Type.Object({ data: Type.Array(WorkspaceRef, { maxItems: MAX_ALLOWED_WORKSPACES }) })),
  }),
);

export const CreateAgentPoolBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('agent-pools'),
    attributes: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      'organization-scoped': Type.Optional(Type.Boolean()),
    }),
    relationships: Relationships,
  }),
});

export const UpdateAgentPoolBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('agent-pools'),
    attributes: Type.Optional(
      Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        'organization-scoped': Type.Optional(Type.Boolean()),
      }),
    ),
    relationships: Relationships,
  }),
});

/** The official Go client sends `agent-tokens`; the documentation says `authentication-tokens`. */
export const CreateAgentTokenBody = Type.Object({
  data: Type.Object({
    type: Type.Enum(['authentication-tokens', 'agent-tokens']),
    attributes: Type.Object({
      description: Type.String({ minLength: 1, maxLength: 255 }),
    }),
  }),
});

// ---- responses

export const AgentPoolResource = Resource('AgentPool', 'agent-pools', {
  attributes: {
    name: Type.String(),
    'created-at': Timestamp,
    'organization-scoped': Type.Boolean(),
    'agent-count': Type.Integer(),
  },
  relationships: {
    organization: ToOne('organizations'),
    agents: RelatedLink,
    'authentication-tokens': RelatedLink,
    'allowed-workspaces': ToMany('workspaces'),
  },
});

export const AgentPoolDocument = Document(AgentPoolResource, 'The agent pool');
export const AgentPoolListDocument = ListDocument(AgentPoolResource, 'A page of agent pools', { meta: { 'status-counts': StatusCounts } });

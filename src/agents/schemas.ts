import { Type } from 'typebox';
import { Document, ListDocument, Open, Resource, StringOrNull, TimestampOrNull, ToOne } from '../jsonapi/schemas.ts';

export const AgentParams = Type.Object({ agent_id: Type.String() });

// The agent endpoints take plain JSON, not JSON:API documents.
export const RegisterAgentBody = Type.Object({
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
});

export const AgentStatusBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  status: Type.Enum(['idle', 'busy', 'exited', 'errored']),
});

// ---- responses

const Status = Type.String({ enum: ['idle', 'busy', 'exited', 'errored', 'unknown'], description: 'unknown: a running agent that has gone silent' });

export const AgentResource = Resource('Agent', 'agents', {
  attributes: {
    name: StringOrNull(),
    status: Status,
    'ip-address': StringOrNull(),
    'last-ping-at': TimestampOrNull,
  },
  relationships: { 'agent-pool': ToOne('agent-pools') },
});

export const AgentDocument = Document(AgentResource, 'The agent');
export const AgentListDocument = ListDocument(AgentResource, "A page of the pool's agents");

/** The agent protocol's answer (plain JSON): what the agent needs to carry on. */
export const AgentStatusDocument = Open(
  { id: Type.String(), 'agent-pool-id': Type.String(), name: StringOrNull(), status: Status, 'last-ping-at': TimestampOrNull },
  { description: 'The agent as Hangar knows it' },
);

import { Type } from 'typebox';

export const AgentParams = Type.Object({ agent_id: Type.String() });

// The agent endpoints take plain JSON, not JSON:API documents.
export const RegisterAgentBody = Type.Object({
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
});

export const AgentStatusBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  status: Type.Enum(['idle', 'busy', 'exited', 'errored']),
});

import { Type } from 'typebox';

export const AgentPoolParams = Type.Object({ agent_pool_id: Type.String() });

// `relationships.allowed-workspaces` (and any other relationship) is accepted and, for now,
// ignored: workspaces are not part of this build yet.
export const CreateAgentPoolBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('agent-pools'),
    attributes: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      'organization-scoped': Type.Optional(Type.Boolean()),
    }),
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

import { toOne } from '../jsonapi/relationships.ts';
import type { AgentView } from './service.ts';

/** An `agents` JSON:API resource (the /api/v2 surface). */
export function agentResource({ agent, status }: AgentView) {
  return {
    id: agent.id,
    type: 'agents',
    attributes: {
      name: agent.name,
      status,
      'ip-address': agent.ipAddress,
      'last-ping-at': agent.lastPingAt,
    },
    relationships: {
      'agent-pool': toOne('agent-pools', agent.agentPoolId),
    },
    links: { self: `/api/v2/agents/${agent.id}` },
  };
}

/** The plain-JSON answer of the agent endpoints: what the agent needs to carry on. */
export function agentStatusDocument({ agent, status }: AgentView) {
  return {
    id: agent.id,
    'agent-pool-id': agent.agentPoolId,
    name: agent.name,
    status,
    'last-ping-at': agent.lastPingAt,
  };
}

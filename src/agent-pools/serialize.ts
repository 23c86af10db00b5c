import { toOne } from '../jsonapi/relationships.ts';
import type { AgentPoolView } from './service.ts';

export function agentPoolResource({ pool, organizationName, agentCount, allowedWorkspaceIds }: AgentPoolView) {
  const self = `/api/v2/agent-pools/${pool.id}`;
  return {
    id: pool.id,
    type: 'agent-pools',
    attributes: {
      name: pool.name,
      'created-at': pool.createdAt,
      'organization-scoped': pool.organizationScoped,
      'agent-count': agentCount,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      agents: { links: { related: `${self}/agents` } },
      'authentication-tokens': { links: { related: `${self}/authentication-tokens` } },
      'allowed-workspaces': { data: allowedWorkspaceIds.map((id) => ({ id, type: 'workspaces' })) },
    },
    links: { self },
  };
}

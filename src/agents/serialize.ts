import { toOne } from '../jsonapi/relationships.ts';
import type { Agent } from './store.ts';
import type { AgentView } from './service.ts';

/** An `agents` JSON:API resource (the /api/v2 surface). */
export function agentResource({ agent, status, lastPingAt }: AgentView) {
  return {
    id: agent.id,
    type: 'agents',
    attributes: {
      name: agent.name,
      status,
      'ip-address': agent.ipAddress,
      'last-ping-at': lastPingAt,
    },
    relationships: {
      'agent-pool': toOne('agent-pools', agent.agentPoolId),
    },
    links: { self: `/api/v2/agents/${agent.id}` },
  };
}

/** The plain-JSON answer of the agent endpoints: what the agent needs to carry on (sent as `agentStatusJson`). */
function agentStatusDocument({ agent, status, lastPingAt }: AgentView) {
  return {
    id: agent.id,
    'agent-pool-id': agent.agentPoolId,
    name: agent.name,
    status,
    'last-ping-at': lastPingAt,
  };
}

// Agent row → the text of its status document up to the ping time, for the status it was made
// with. Heartbeats that need no write share the row object (agents/service.ts), so an agent's
// pings between two writes differ only in their time: each is answered with one concatenation
// instead of a document built and stringified. Weak: a row that is no longer remembered goes.
const heads = new WeakMap<Agent, { status: string; head: string }>();

/** `JSON.stringify(agentStatusDocument(view))`, the same text, made without re-serializing the row. */
export function agentStatusJson(view: AgentView): string {
  let made = heads.get(view.agent);
  if (made?.status !== view.status) {
    const { 'last-ping-at': _last, ...rest } = agentStatusDocument(view);
    // The ping time is the document's last member: the head is everything before its value.
    made = { status: view.status, head: `${JSON.stringify(rest).slice(0, -1)},"last-ping-at":` };
    heads.set(view.agent, made);
  }
  return `${made.head}${JSON.stringify(view.lastPingAt)}}`;
}

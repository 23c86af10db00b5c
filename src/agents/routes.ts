import type { Api } from '../api.ts';
import { AgentPoolParams, ListByCreationQuery } from '../agent-pools/schemas.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { sortOf } from '../jsonapi/query.ts';
import { AgentDocument, AgentListDocument, AgentParams, AgentStatusBody, AgentStatusDocument, RegisterAgentBody } from './schemas.ts';
import { agentResource, agentStatusDocument } from './serialize.ts';
import type { AgentsService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

const tags = ['Agents'];
const protocolTags = ['Agent protocol'];

/** The JSON:API surface under /api/v2: people looking at agents. */
export async function agentsRoutes(app: Api, { agents }: { agents: AgentsService }): Promise<void> {
  app.get('/agent-pools/:agent_pool_id/agents', { schema: { summary: "List an agent pool's agents", tags, params: AgentPoolParams, querystring: ListByCreationQuery, response: responses({ 200: AgentListDocument }) } }, async (request) => {
    const query = request.query;
    const page = parsePage(query);
    const sort = sortOf(query.sort);
    const { items, total } = await agents.list(request.caller, request.params.agent_pool_id, sort, page);
    return { data: items.map(agentResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });

  app.get('/agents/:agent_id', { schema: { summary: 'Show an agent', tags, params: AgentParams, response: responses({ 200: AgentDocument }) } }, async (request) => {
    return { data: agentResource(await agents.show(request.caller, request.params.agent_id)) };
  });

  app.delete('/agents/:agent_id', { schema: { summary: 'Delete an agent (only one that has exited or errored)', tags, params: AgentParams, response: responses({ 204: NoContent }) } }, async (request, reply) => {
    await agents.destroy(request.caller, request.params.agent_id);
    return reply.code(204).send();
  });
}

/** The plain-JSON surface under /api/agent: agents themselves, authenticated by agent tokens. */
export async function agentEndpointRoutes(app: Api, { agents }: { agents: AgentsService }): Promise<void> {
  app.post(
    '/register',
    {
      schema: {
        summary: 'An agent joins the pool of its token (the body, and its name, are optional)',
        tags: protocolTags,
        body: RegisterAgentBody,
        response: responses({ 201: AgentStatusDocument }),
      },
      // An agent may register without a body at all: that is an agent without a name.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const view = await agents.register(request.agent, { name: request.body.name ?? null, ipAddress: request.ip });
      return reply.code(201).send(agentStatusDocument(view));
    },
  );

  app.post('/status', { schema: { summary: 'An agent reports its status (its heartbeat)', tags: protocolTags, body: AgentStatusBody, response: responses({ 200: AgentStatusDocument }) } }, (request) => {
    const view = agents.heartbeat(request.agent, { id: request.body.id, status: request.body.status, ipAddress: request.ip });
    // Most pings are answered without waiting (see the service), and then without a promise.
    return view instanceof Promise ? view.then(agentStatusDocument) : agentStatusDocument(view);
  });
}

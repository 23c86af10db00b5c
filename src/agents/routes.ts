import type { Api } from '../api.ts';
import { AgentPoolParams, ListByCreationQuery } from '../agent-pools/schemas.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { PLAIN_JSON } from '../jsonapi/plugin.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { sortOf } from '../jsonapi/query.ts';
import { AgentDocument, AgentListDocument, AgentParams, AgentStatusBody, AgentStatusDocument, RegisterAgentBody } from './schemas.ts';
import { agentResource, agentStatusJson } from './serialize.ts';
import type { AgentsService, AgentView } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

const tags = ['Agents'];
const protocolTags = ['Agent protocol'];
const JSON_UTF8 = `${PLAIN_JSON}; charset=utf-8`;

/** The replies below, as far as they are used: Fastify's route types expect a document, not its text. */
interface TextReply<R> {
  code(status: number): R;
  type(contentType: string): R;
  send(payload?: unknown): R;
}

/**
 * Answers with a status document made as text (serialize.ts says why), under the content type
 * Fastify gives the documents it serializes.
 */
function sendStatus<R extends TextReply<R>>(reply: R, status: number, view: AgentView): void {
  reply.code(status).type(JSON_UTF8).send(agentStatusJson(view));
}

/** The JSON:API surface under /api/v2: people looking at agents. */
export async function agentsRoutes(app: Api, { agents }: { agents: AgentsService }): Promise<void> {
  app.get(
    '/agent-pools/:agent_pool_id/agents',
    {
      schema: {
        summary: "List an agent pool's agents",
        tags,
        params: AgentPoolParams,
        querystring: ListByCreationQuery,
        response: responses({ 200: AgentListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const sort = sortOf(query.sort);
      const { items, total } = await agents.list(request.caller, request.params.agent_pool_id, sort, page);
      return { data: items.map(agentResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get(
    '/agents/:agent_id',
    { schema: { summary: 'Show an agent', tags, params: AgentParams, response: responses({ 200: AgentDocument }) } },
    async (request) => {
      return { data: agentResource(await agents.show(request.caller, request.params.agent_id)) };
    },
  );

  app.delete(
    '/agents/:agent_id',
    { schema: { summary: 'Delete an agent (only one that has exited or errored)', tags, params: AgentParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await agents.destroy(request.caller, request.params.agent_id);
      return reply.code(204).send();
    },
  );
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
      sendStatus(reply, 201, view);
    },
  );

  app.post(
    '/status',
    {
      schema: {
        summary: 'An agent reports its status (its heartbeat)',
        tags: protocolTags,
        body: AgentStatusBody,
        response: responses({ 200: AgentStatusDocument }),
      },
    },
    (request, reply) => {
      const view = agents.heartbeat(request.agent, { id: request.body.id, status: request.body.status, ipAddress: request.ip });
      // Most pings are answered without waiting (see the service), and then without a promise.
      if (view instanceof Promise) return view.then((v) => sendStatus(reply, 200, v));
      sendStatus(reply, 200, view);
    },
  );
}

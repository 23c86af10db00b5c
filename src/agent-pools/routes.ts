import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { sortOf } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { tokenResource } from '../tokens/serialize.ts';
import { CreatedTokenDocument, TokenListDocument } from '../tokens/schemas.ts';
import {
  AgentPoolDocument,
  AgentPoolListDocument,
  AgentPoolParams,
  CreateAgentPoolBody,
  CreateAgentTokenBody,
  ListAgentPoolsQuery,
  ListByCreationQuery,
  UpdateAgentPoolBody,
} from './schemas.ts';
import { agentPoolResource } from './serialize.ts';
import type { AgentPoolsService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

const tags = ['Agent pools'];

export async function agentPoolsRoutes(app: Api, { agentPools }: { agentPools: AgentPoolsService }): Promise<void> {
  app.get(
    '/organizations/:organization_name/agent-pools',
    {
      schema: {
        summary: "List an organization's agent pools",
        tags,
        params: OrganizationParams,
        querystring: ListAgentPoolsQuery,
        response: responses({ 200: AgentPoolListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { search: query.q, sort: sortOf(query.sort), allowedWorkspaceName: query['filter[allowed_workspaces][name]'] || undefined };
      const { items, total, matching } = await agentPools.list(request.caller, request.params.organization_name, filter, page);
      const { links, meta } = envelope(absoluteUrl(request, app.config.baseUrl), page, matching);
      return { data: items.map(agentPoolResource), links, meta: { ...meta, 'status-counts': { total, matching } } };
    },
  );

  app.post(
    '/organizations/:organization_name/agent-pools',
    {
      schema: { summary: 'Create an agent pool', tags, params: OrganizationParams, body: CreateAgentPoolBody, response: responses({ 201: AgentPoolDocument }) },
    },
    async (request, reply) => {
      const { attributes: a, relationships } = request.body.data;
      const view = await agentPools.create(request.caller, request.params.organization_name, {
        name: a.name,
        organizationScoped: a['organization-scoped'],
        allowedWorkspaceIds: relationships?.['allowed-workspaces']?.data.map((w) => w.id),
      });
      return reply.code(201).send({ data: agentPoolResource(view) });
    },
  );

  app.get(
    '/agent-pools/:agent_pool_id',
    { schema: { summary: 'Show an agent pool', tags, params: AgentPoolParams, response: responses({ 200: AgentPoolDocument }) } },
    async (request) => {
      return { data: agentPoolResource(await agentPools.show(request.caller, request.params.agent_pool_id)) };
    },
  );

  app.patch(
    '/agent-pools/:agent_pool_id',
    {
      schema: {
        summary: 'Update an agent pool (allowed-workspaces given replaces the list)',
        tags,
        params: AgentPoolParams,
        body: UpdateAgentPoolBody,
        response: responses({ 200: AgentPoolDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const view = await agentPools.update(request.caller, request.params.agent_pool_id, {
        name: a.name,
        organizationScoped: a['organization-scoped'],
        allowedWorkspaceIds: request.body.data.relationships?.['allowed-workspaces']?.data.map((w) => w.id),
      });
      return { data: agentPoolResource(view) };
    },
  );

  app.delete(
    '/agent-pools/:agent_pool_id',
    { schema: { summary: 'Delete an agent pool, its tokens and agents', tags, params: AgentPoolParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await agentPools.destroy(request.caller, request.params.agent_pool_id);
      return reply.code(204).send();
    },
  );

  // The pool's agent tokens. Showing and destroying one goes through the shared
  // /authentication-tokens/:id routes of the tokens domain.
  app.get(
    '/agent-pools/:agent_pool_id/authentication-tokens',
    {
      schema: {
        summary: "List an agent pool's tokens",
        tags: ['Agent pools', 'Tokens'],
        params: AgentPoolParams,
        querystring: ListByCreationQuery,
        response: responses({ 200: TokenListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const sort = sortOf(query.sort);
      const { items, total } = await agentPools.listTokens(request.caller, request.params.agent_pool_id, sort, page);
      return { data: items.map((t) => tokenResource(t)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.post(
    '/agent-pools/:agent_pool_id/authentication-tokens',
    {
      schema: {
        summary: 'Create an agent token',
        tags: ['Agent pools', 'Tokens'],
        params: AgentPoolParams,
        body: CreateAgentTokenBody,
        response: responses({ 201: CreatedTokenDocument }),
      },
    },
    async (request, reply) => {
      const { token, secret } = await agentPools.createToken(request.caller, request.params.agent_pool_id, {
        description: request.body.data.attributes.description,
      });
      return reply.code(201).send({ data: tokenResource(token, secret) });
    },
  );
}

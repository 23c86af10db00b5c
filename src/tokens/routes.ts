import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage } from '../jsonapi/pagination.ts';
import { sortOf } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { UserParams } from '../users/schemas.ts';
import {
  CreatedTokenDocument,
  CreateOrganizationTokenBody,
  CreateDescribedTeamTokenBody,
  CreateTeamTokenBody,
  CreateUserTokenBody,
  ListTeamTokensQuery,
  ListUserTokensQuery,
  OrganizationTokenQuery,
  TokenDocument,
  TokenListDocument,
  TokenPageDocument,
  TeamTokenParams,
  TokenParams,
} from './schemas.ts';
import { tokenResource } from './serialize.ts';
import type { OrganizationTokenKind, TokensService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

const tags = ['Tokens'];

export async function tokensRoutes(app: Api, { tokens }: { tokens: TokensService }): Promise<void> {
  // Unpaginated unless the client asks for a page, as in TFE.
  app.get(
    '/users/:user_id/authentication-tokens',
    {
      schema: {
        summary: "List a user's tokens (unpaginated unless a page is asked for)",
        tags,
        params: UserParams,
        querystring: ListUserTokensQuery,
        response: responses({ 200: TokenListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = wantsPage(query) ? parsePage(query) : null;
      const { items, total } = await tokens.listUserTokens(request.caller, request.params.user_id, page);
      const data = items.map((t) => tokenResource(t));
      return page ? { data, ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) } : { data };
    },
  );

  app.post(
    '/users/:user_id/authentication-tokens',
    { schema: { summary: 'Create a user token', tags, params: UserParams, body: CreateUserTokenBody, response: responses({ 201: CreatedTokenDocument }) } },
    async (request, reply) => {
      const a = request.body.data.attributes ?? {};
      const { token, secret } = await tokens.createUserToken(request.caller, request.params.user_id, {
        description: a.description,
        expiredAt: a['expired-at'],
      });
      return reply.code(201).send({ data: tokenResource(token, secret) });
    },
  );

  app.get(
    '/authentication-tokens/:token_id',
    {
      schema: {
        summary: 'Show a token (user, organization, audit-trail or agent token); never its secret',
        tags,
        params: TokenParams,
        response: responses({ 200: TokenDocument }),
      },
    },
    async (request) => {
      return { data: tokenResource(await tokens.show(request.caller, request.params.token_id)) };
    },
  );

  app.delete(
    '/authentication-tokens/:token_id',
    { schema: { summary: 'Revoke a token', tags, params: TokenParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await tokens.destroy(request.caller, request.params.token_id);
      return reply.code(204).send();
    },
  );

  // A team's token: TFE's single ("legacy") team token, replaced by each create.
  app.post(
    '/teams/:team_id/authentication-token',
    {
      schema: {
        summary: "Create or replace a team's token",
        tags,
        params: TeamTokenParams,
        body: CreateTeamTokenBody,
        response: responses({ 201: CreatedTokenDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes ?? {};
      const { token, secret } = await tokens.createTeamToken(request.caller, request.params.team_id, { expiredAt: a['expired-at'] });
      return reply.code(201).send({ data: tokenResource(token, secret) });
    },
  );

  // A team's other tokens (TFE's multiple team tokens), each with a description unique within the
  // team; shown and revoked through /authentication-tokens/:id like every other token.
  app.post(
    '/teams/:team_id/authentication-tokens',
    {
      schema: {
        summary: 'Create a team token with a description, beside its others',
        tags,
        params: TeamTokenParams,
        body: CreateDescribedTeamTokenBody,
        response: responses({ 201: CreatedTokenDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const { token, secret } = await tokens.createDescribedTeamToken(request.caller, request.params.team_id, {
        description: a.description,
        expiredAt: a['expired-at'],
      });
      return reply.code(201).send({ data: tokenResource(token, secret) });
    },
  );

  // By expiry, soonest first, unless `sort` says otherwise (as in TFE).
  app.get(
    '/organizations/:organization_name/team-tokens',
    {
      schema: {
        summary: "List the organization's team tokens (never their secrets)",
        description:
          '`q` filters by team name; `sort` is one of `team-name`, `created-by`, `expired-at` (the default) and `last-used-at`, `-` first for descending.',
        tags,
        params: OrganizationParams,
        querystring: ListTeamTokensQuery,
        response: responses({ 200: TokenPageDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const sort = sortOf(query.sort) ?? { field: 'expired-at' as const, descending: false };
      const { items, total } = await tokens.listTeamTokens(request.caller, request.params.organization_name, { search: query.q || undefined, sort }, page);
      return { data: items.map((t) => tokenResource(t)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get(
    '/teams/:team_id/authentication-token',
    { schema: { summary: "Show a team's token (never its secret)", tags, params: TeamTokenParams, response: responses({ 200: TokenDocument }) } },
    async (request) => {
      return { data: tokenResource(await tokens.showTeamToken(request.caller, request.params.team_id)) };
    },
  );

  app.delete(
    '/teams/:team_id/authentication-token',
    { schema: { summary: "Delete a team's token", tags, params: TeamTokenParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await tokens.deleteTeamToken(request.caller, request.params.team_id);
      return reply.code(204).send();
    },
  );

  const slot = (query: { token?: 'audit-trails' }): OrganizationTokenKind => (query.token === 'audit-trails' ? 'audit-trail' : 'organization');
  const organizationToken = { params: OrganizationParams, querystring: OrganizationTokenQuery };

  app.post(
    '/organizations/:organization_name/authentication-token',
    {
      schema: {
        summary: "Create (or replace) the organization's token; ?token=audit-trails: its audit-trail token",
        tags,
        ...organizationToken,
        body: CreateOrganizationTokenBody,
        response: responses({ 201: CreatedTokenDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes ?? {};
      const { token, secret } = await tokens.createOrganizationToken(request.caller, request.params.organization_name, slot(request.query), {
        expiredAt: a['expired-at'],
      });
      return reply.code(201).send({ data: tokenResource(token, secret) });
    },
  );

  app.get(
    '/organizations/:organization_name/authentication-token',
    { schema: { summary: "Show the organization's token (or audit-trail token)", tags, ...organizationToken, response: responses({ 200: TokenDocument }) } },
    async (request) => {
      return { data: tokenResource(await tokens.showOrganizationToken(request.caller, request.params.organization_name, slot(request.query))) };
    },
  );

  app.delete(
    '/organizations/:organization_name/authentication-token',
    { schema: { summary: "Revoke the organization's token (or audit-trail token)", tags, ...organizationToken, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await tokens.deleteOrganizationToken(request.caller, request.params.organization_name, slot(request.query));
      return reply.code(204).send();
    },
  );
}

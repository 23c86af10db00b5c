// Builds the Fastify instance: services once, then plugins, the error handler and every
// domain's routes. main.ts serves it; tests drive it with app.inject.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import { requireAgentToken, requireBearerToken } from './auth/plugin.ts';
import type { Caller } from './auth/caller.ts';
import type { AgentPrincipal } from './auth/principal.ts';
import { jsonApiResponses, plainJsonScope, registerJsonApi, requireJsonApiRequests } from './jsonapi/plugin.ts';
import { createAgentPoolsService } from './agent-pools/service.ts';
import { agentPoolsRoutes } from './agent-pools/routes.ts';
import { createAgentsService } from './agents/service.ts';
import { agentEndpointRoutes, agentsRoutes } from './agents/routes.ts';
import { createOrganizationLookup, createOrganizationsService } from './organizations/service.ts';
import { organizationsRoutes } from './organizations/routes.ts';
import { createProjectsService } from './projects/service.ts';
import { createTeamsService } from './teams/service.ts';
import { teamsRoutes } from './teams/routes.ts';
import { createTokensService } from './tokens/service.ts';
import { tokensRoutes } from './tokens/routes.ts';
import { createUsersService } from './users/service.ts';
import { usersRoutes } from './users/routes.ts';

export const API_VERSION = '2.5';
/** Requests per second TFE advertises; go-tfe paces itself by it (and divides it, so never < 4). */
export const RATE_LIMIT = 30;
export const BODY_LIMIT = 1024 * 1024;

export function createServices(database: Database) {
  const users = createUsersService({ database });
  const lookup = createOrganizationLookup({ database });
  const projects = createProjectsService({ database });
  const teams = createTeamsService({ database, users, organizations: lookup });
  const organizations = createOrganizationsService({ database, lookup, users, teams, projects });
  const tokens = createTokensService({ database, users, organizations: lookup });
  // Pools count their agents and agents check permissions through their pool: the counter is
  // a late-bound call so that neither service has to exist before the other.
  const agentPools = createAgentPoolsService({ database, lookup, tokens, agentCounts: (ids) => agents.runningCounts(ids) });
  const agents = createAgentsService({ database, pools: agentPools });
  return { users, lookup, projects, teams, organizations, tokens, agentPools, agents };
}

export type Services = ReturnType<typeof createServices>;

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    config: Config;
  }
  interface FastifyRequest {
    caller: Caller;
    /** Set only under /api/agent, where agent tokens (and nothing else) authenticate. */
    agent: AgentPrincipal;
  }
}

export interface AppOptions {
  config: Config;
  database: Database;
  /** Fastify logger options, or false; a stream can be given to capture logs in tests. */
  logger?: boolean | Record<string, unknown>;
}

/** Paths whose values are secrets or credentials: never written to a log line. */
export const REDACTED_LOG_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

export async function buildApp({ config, database, logger }: AppOptions): Promise<Api> {
  const app = Fastify({
    logger: logger === undefined ? { level: config.logLevel, redact: REDACTED_LOG_PATHS } : logger,
    bodyLimit: BODY_LIMIT,
    // Bodies are validated as sent: a number where a string belongs is an error, not coerced.
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false } },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = createServices(database);
  app.decorate('services', services);
  app.decorate('config', config);
  app.decorateRequest('caller', null as unknown as Caller);
  app.decorateRequest('agent', null as unknown as AgentPrincipal);
  registerJsonApi(app);

  // Service discovery for Terraform CLI and the tfe provider (which requires tfe.v2.2).
  app.get('/.well-known/terraform.json', async () => ({
    'tfe.v2': '/api/v2/',
    'tfe.v2.1': '/api/v2/',
    'tfe.v2.2': '/api/v2/',
    'state.v2': '/api/v2/',
  }));

  await app.register(
    async (api) => {
      jsonApiResponses(api);
      api.addHook('onRequest', async (_request, reply) => {
        reply.header('TFP-API-Version', API_VERSION);
        reply.header('TFP-AppName', 'Hangar');
        reply.header('X-RateLimit-Limit', String(RATE_LIMIT));
      });

      // go-tfe calls ping once when a client is created, before it has used its token.
      api.get('/ping', async (_request, reply) => reply.code(204).send());

      await api.register(async (authenticated) => {
        requireBearerToken(authenticated, { authenticate: (s) => services.tokens.authenticate(s), grants: services.teams.grants });
        requireJsonApiRequests(authenticated);
        const typed = authenticated as unknown as Api;
        await usersRoutes(typed);
        await organizationsRoutes(typed);
        await teamsRoutes(typed);
        await tokensRoutes(typed);
        await agentPoolsRoutes(typed);
        await agentsRoutes(typed);
      });
    },
    { prefix: '/api/v2' },
  );

  // Where agents talk to Hangar: plain JSON, and only agent tokens authenticate here.
  await app.register(
    async (agentApi) => {
      requireAgentToken(agentApi, { authenticate: (s) => services.tokens.authenticateAgent(s) });
      plainJsonScope(agentApi);
      await agentEndpointRoutes(agentApi as unknown as Api);
    },
    { prefix: '/api/agent' },
  );

  return app;
}

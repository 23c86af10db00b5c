// Builds the Fastify instance: services once, then plugins, the error handler and every
// domain's routes. main.ts serves it; tests drive it with app.inject.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import { requireAgentToken, requireBearerToken } from './auth/plugin.ts';
import type { Caller } from './auth/caller.ts';
import type { AgentPrincipal } from './auth/principal.ts';
import { clientErrorHandler, jsonApiResponses, plainJsonScope, registerJsonApi, renderError, requireJsonApiRequests } from './jsonapi/plugin.ts';
import { createAgentPoolsService } from './agent-pools/service.ts';
import { agentPoolsRoutes } from './agent-pools/routes.ts';
import { createAgentsService } from './agents/service.ts';
import { agentEndpointRoutes, agentsRoutes } from './agents/routes.ts';
import { createOrganizationLookup, createOrganizationsService } from './organizations/service.ts';
import { organizationsRoutes } from './organizations/routes.ts';
import { createProjectLookup, createProjectsService } from './projects/service.ts';
import { projectsRoutes } from './projects/routes.ts';
import { createProjectGrantLoader, createTeamProjectsService } from './team-projects/service.ts';
import { teamProjectsRoutes } from './team-projects/routes.ts';
import { createTeamsService } from './teams/service.ts';
import { teamsRoutes } from './teams/routes.ts';
import { createTokensService } from './tokens/service.ts';
import { tokensRoutes } from './tokens/routes.ts';
import { createUsersService } from './users/service.ts';
import { usersRoutes } from './users/routes.ts';
import type { Keyring } from './crypto/keyring.ts';
import { openKeyring } from './crypto/keys.ts';
import { createPolicySetsService } from './policy-sets/service.ts';
import { policySetsRoutes } from './policy-sets/routes.ts';
import { createPolicySetParametersService } from './policy-set-parameters/service.ts';
import { policySetParametersRoutes } from './policy-set-parameters/routes.ts';
import { createWorkspacesService } from './workspaces/service.ts';
import { workspacesRoutes } from './workspaces/routes.ts';
import { healthRoutes } from './ops/health.ts';
import { RequestLog } from './ops/logging.ts';
import { registerMetrics } from './ops/metrics.ts';
import { registerRateLimits } from './ops/rate-limit.ts';

export const API_VERSION = '2.5';
export const BODY_LIMIT = 1024 * 1024;
/** The longest a client may take to send a whole request. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface ServiceOptions {
  /** Needed only to read or write sensitive values (`serve`, `rotate-key`); loaded once at start-up. */
  keyring?: Keyring;
}

export function createServices(database: Database, options: ServiceOptions = {}) {
  const users = createUsersService({ database });
  const lookup = createOrganizationLookup({ database });
  const teams = createTeamsService({ database, users, organizations: lookup });
  const projectLookup = createProjectLookup({ database, organizations: lookup, grants: createProjectGrantLoader() });
  const workspaces = createWorkspacesService({ database, organizations: lookup, projects: projectLookup });
  const teamProjects = createTeamProjectsService({ database, projects: projectLookup, teams });
  const projects = createProjectsService({ database, organizations: lookup, lookup: projectLookup, workspaces, teamProjects });
  const organizations = createOrganizationsService({ database, lookup, users, teams, projects });
  const tokens = createTokensService({ database, users, organizations: lookup });
  const policySets = createPolicySetsService({ database, organizations: lookup, projects, workspaces });
  const policySetParameters = createPolicySetParametersService({ database, policySets, keyring: options.keyring ?? null });
  // Pools count their agents and agents check permissions through their pool: the counter is
  // a late-bound call so that neither service has to exist before the other.
  const agentPools = createAgentPoolsService({
    database,
    lookup,
    tokens,
    workspaces,
    agentCounts: (ids) => agents.runningCounts(ids),
  });
  const agents = createAgentsService({ database, pools: agentPools });
  return { users, lookup, projects, teams, organizations, tokens, workspaces, teamProjects, policySets, policySetParameters, agentPools, agents };
}

export type Services = ReturnType<typeof createServices>;

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteEntry {
  method: string;
  url: string;
  /** The route validates a request body. */
  hasBody: boolean;
  /** That body's schema, for suites that need to know which members a route models. */
  body?: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
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
  /** Encryption keys; by default loaded from the configuration (which may refuse to start). */
  keyring?: Keyring;
}

/** Paths whose values are secrets or credentials: never written to a log line. */
export const REDACTED_LOG_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

export async function buildApp({ config, database, logger, keyring }: AppOptions): Promise<Api> {
  // Before anything listens: a missing or malformed key stops start-up with a clear message.
  const keys = keyring ?? (await openKeyring(config, database));
  const app = Fastify({
    logger: logger === undefined ? { level: config.logLevel, redact: REDACTED_LOG_PATHS } : logger,
    bodyLimit: BODY_LIMIT,
    // Bodies are validated as sent: a number where a string belongs is an error, not coerced.
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false } },
    return503OnClosing: true,
    logController: new RequestLog(),
    trustProxy: config.trustProxy ?? false,
    frameworkErrors: (error, request, reply) => renderError(error, request, reply),
    clientErrorHandler,
    // Fastify waits forever for a request by default; a client trickling one ties up a
    // connection only this long (then 408, from clientErrorHandler). Node honours the limit
    // only when the server is created with it, hence it twice.
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: {
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node's own refusal of an HTTP/1.1 request without Host has an empty body;
      // registerJsonApi refuses it with an error document instead.
      requireHostHeader: false,
    },
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every route, as registered: the robustness suite and the access matrix walk this list, so a
  // new endpoint cannot escape them.
  const routeTable: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const body = (route.schema as { body?: unknown } | undefined)?.body;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url, hasBody: Boolean(body), body });
  });
  app.decorate('routeTable', routeTable);

  const services = createServices(database, { keyring: keys });
  app.decorate('services', services);
  app.decorate('config', config);
  app.decorateRequest('caller', null as unknown as Caller);
  app.decorateRequest('agent', null as unknown as AgentPrincipal);
  registerJsonApi(app);
  const metrics = registerMetrics(app, config, database);
  healthRoutes(app, database);
  const limits = await registerRateLimits(app, config, metrics);

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
      });

      // go-tfe calls ping once when a client is created, before it has used its token, and
      // paces itself by the X-RateLimit-Limit it reads here.
      api.get('/ping', { onRequest: limits.anonymous }, async (_request, reply) => reply.code(204).send());

      await api.register(async (authenticated) => {
        requireBearerToken(authenticated, { authenticate: (s) => services.tokens.authenticate(s), grants: services.teams.grants, admit: limits.admit });
        requireJsonApiRequests(authenticated);
        const typed = authenticated as unknown as Api;
        await usersRoutes(typed);
        await organizationsRoutes(typed);
        await teamsRoutes(typed);
        await tokensRoutes(typed);
        await policySetsRoutes(typed);
        await policySetParametersRoutes(typed);
        await projectsRoutes(typed);
        await workspacesRoutes(typed);
        await teamProjectsRoutes(typed);
        await agentPoolsRoutes(typed);
        await agentsRoutes(typed);
      });
    },
    { prefix: '/api/v2' },
  );

  // Where agents talk to Hangar: plain JSON, and only agent tokens authenticate here.
  await app.register(
    async (agentApi) => {
      requireAgentToken(agentApi, { authenticate: (s) => services.tokens.authenticateAgent(s), admit: limits.admit });
      plainJsonScope(agentApi);
      await agentEndpointRoutes(agentApi as unknown as Api);
    },
    { prefix: '/api/agent' },
  );

  return app;
}

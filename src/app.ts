// Builds the Fastify instance: plugins, the error handler and every domain's routes, each given
// the services it uses. main.ts serves it; tests drive it with app.inject.
import Fastify, { type FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Api, RouteEntry } from './api.ts';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import { requireAgentToken, requireBearerToken } from './auth/plugin.ts';
import type { Caller } from './auth/caller.ts';
import type { AgentPrincipal } from './auth/principal.ts';
import {
  clientErrorHandler,
  jsonApiResponses,
  plainJsonScope,
  registerJsonApi,
  renderError,
  requireJsonApiRequests,
  requireMediaType,
} from './jsonapi/plugin.ts';
import { parseQuery } from './jsonapi/query.ts';
import { agentPoolsRoutes } from './agent-pools/routes.ts';
import { agentEndpointRoutes, agentsRoutes } from './agents/routes.ts';
import { agentProtocolRoutes } from './agent-protocol/routes.ts';
import { localJobPort } from './runner/local.ts';
import { adminOrganizationsRoutes, organizationsRoutes } from './organizations/routes.ts';
import { projectsRoutes } from './projects/routes.ts';
import { teamProjectsRoutes } from './team-projects/routes.ts';
import { tagsRoutes } from './tags/routes.ts';
import { organizationTagsRoutes } from './organization-tags/routes.ts';
import { teamsRoutes } from './teams/routes.ts';
import { organizationMembershipsRoutes } from './organization-memberships/routes.ts';
import { teamWorkspacesRoutes } from './team-workspaces/routes.ts';
import { runTriggersRoutes } from './run-triggers/routes.ts';
import { notificationConfigurationsRoutes } from './notification-configurations/routes.ts';
import { planExportsRoutes } from './plan-exports/routes.ts';
import { sshKeysRoutes } from './ssh-keys/routes.ts';
import { configurationVersionsRoutes, uploadRoutes } from './configuration-versions/routes.ts';
import { logRoutes, runsRoutes } from './runs/routes.ts';
import { knownTerraformVersion } from './runner/terraform.ts';
import { tokensRoutes } from './tokens/routes.ts';
import { usersRoutes } from './users/routes.ts';
import { sessionsRoutes } from './sessions/routes.ts';
import { terraformLoginTokenRoutes } from './terraform-login/routes.ts';
import { LOGIN_CLIENT_ID, LOGIN_PORTS } from './terraform-login/service.ts';
import { registerWeb } from './web/plugin.ts';
import type { Keyring } from './crypto/keyring.ts';
import { openKeyring } from './crypto/keys.ts';
import { policySetsRoutes } from './policy-sets/routes.ts';
import { policiesRoutes, policyUploadRoutes } from './policies/routes.ts';
import { policySetVersionsRoutes, policySetVersionUploadRoutes } from './policy-set-versions/routes.ts';
import { policyChecksRoutes } from './policy-checks/routes.ts';
import { policySetParametersRoutes } from './policy-set-parameters/routes.ts';
import { workspacesRoutes } from './workspaces/routes.ts';
import { workspaceLocksRoutes } from './workspace-locks/routes.ts';
import { stateUploadRoutes, stateVersionsRoutes } from './state-versions/routes.ts';
import { safeDeleteRoutes } from './safe-delete/routes.ts';
import { variableSetsRoutes } from './variable-sets/routes.ts';
import { variablesRoutes } from './variables/routes.ts';
import { healthRoutes } from './ops/health.ts';
import { createLogger, logRequests, type LoggerOptions } from './ops/logging.ts';
import { registerMetrics } from './ops/metrics.ts';
import { openApiRoute, PUBLIC, registerDocsPage, registerOpenApi } from './ops/openapi.ts';
import { NoContent, Open, responses } from './jsonapi/schemas.ts';
import { registerRateLimits } from './ops/rate-limit.ts';
import { createServices, type Services } from './services.ts';
import type { TlsFiles } from './ops/tls.ts';
import { URL_NAME_MAX } from './values.ts';

export type { Api, RouteEntry };

export const API_VERSION = '2.5';
const TerraformServices = Open(
  {
    'tfe.v2': Type.String(),
    'tfe.v2.1': Type.String(),
    'tfe.v2.2': Type.String(),
    'state.v2': Type.String(),
    'login.v1': Type.Object(
      {
        client: Type.String(),
        grant_types: Type.Array(Type.String()),
        authz: Type.String(),
        token: Type.String(),
        ports: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }),
      },
      { description: '`terraform login`: an OAuth client, its grant (authorization code with PKCE), its endpoints and the localhost ports it listens on' },
    ),
  },
  { description: 'Where each service Terraform looks for lives' },
);

export const BODY_LIMIT = 1024 * 1024;
/** The longest a client may take to send a whole request. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface AppOptions {
  config: Config;
  database: Database;
  /** Logger options (pino's), or false; a stream can be given to capture logs in tests. */
  logger?: LoggerOptions;
  /** Encryption keys; by default loaded from the configuration (which may refuse to start). */
  keyring?: Keyring;
  /** The services to serve; by default built here (tests pass their own to reach them directly). */
  services?: Services;
  /** Serve HTTPS with this certificate and key (ops/tls.ts reads them); otherwise plain HTTP. */
  tls?: TlsFiles | null;
  /**
   * Sees every response payload before its route's schema serializes it: the test that compares
   * what serializers send with the response schemas uses it.
   */
  inspectPayload?: (request: FastifyRequest, payload: unknown) => void;
}

/** Paths whose values are secrets or credentials: never written to a log line. */
export const REDACTED_LOG_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

export async function buildApp({ config, database, logger, keyring, services: given, inspectPayload, tls }: AppOptions): Promise<Api> {
  // Before anything listens: a missing or malformed key stops start-up with a clear message.
  const services = given ?? createServices(database, { keyring: keyring ?? (await openKeyring(config, database)), blobDir: config.blobDir });
  const serverOptions = {
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Node's own refusal of an HTTP/1.1 request without Host has an empty body;
    // registerJsonApi refuses it with an error document instead.
    requireHostHeader: false,
  };
  const app = Fastify({
    // Hangar's own logger is set below (ops/logging.ts says why Fastify gets none).
    logger: false,
    bodyLimit: BODY_LIMIT,
    // Bodies are validated as sent: a number where a string belongs is an error, not coerced.
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false } },
    return503OnClosing: true,
    trustProxy: config.trustProxy ?? false,
    frameworkErrors: (error, request, reply) => renderError(error, request, reply),
    clientErrorHandler,
    // Fastify waits forever for a request by default; a client trickling one ties up a
    // connection only this long (then 408, from clientErrorHandler). Node honours the limit
    // only when the server is created with it, hence it twice.
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Terraform needs HTTPS for service discovery: Hangar serves it itself when given a
    // certificate (the same server options, plus the PEMs), or sits behind a TLS-terminating
    // proxy (HANGAR_TRUST_PROXY). Typed as the HTTP variant: the options are the same but for those two.
    ...((tls ? { https: { ...serverOptions, cert: tls.cert, key: tls.key } } : { http: serverOptions }) as { http: typeof serverOptions }),
    forceCloseConnections: 'idle',
    // Bracketed keys stay flat and a repeated key's last value wins, so every value is a string.
    // A path parameter may be as long as the longest name a URL carries, and no longer (414).
    routerOptions: { querystringParser: parseQuery, maxParamLength: URL_NAME_MAX },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Answers are written with JSON.stringify, not with serializers compiled from the response
  // schemas. Those schemas are open (jsonapi/schemas.ts), so a compiled serializer walks every
  // object's keys for members it does not name and builds its text piece by piece, which the
  // socket write then has to flatten: more work and garbage than JSON.stringify, for the same
  // text (bench/, docs/performance.md). The schemas still describe every answer in the OpenAPI document, and
  // test/openapi.test.ts checks each endpoint's real answers against them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Plugins and routes inherit the root's `log`; request lines are written by an onResponse
  // hook, only when `info` is on.
  const log = createLogger(logger ?? { level: config.logLevel, redact: REDACTED_LOG_PATHS });
  app.log = log;
  logRequests(app, log);

  // Every route, as registered: the robustness suite and the access matrix walk this list, so a
  // new endpoint cannot escape them.
  const routeTable: RouteEntry[] = [];
  // The web UI's pages (web/page.ts marks them) are another front door with their own suite
  // (test/web-pages.test.ts walks this table): kept out of the API's table and document.
  const pageTable: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (route) => {
    if ((route.config as { page?: boolean } | undefined)?.page) {
      for (const method of [route.method].flat()) if (method !== 'HEAD') pageTable.push({ method, url: route.url });
      return;
    }
    const body = route.schema?.body;
    const response = route.schema?.response;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url, hasBody: Boolean(body), body, response });
  });
  app.decorate('routeTable', routeTable);
  app.decorate('pageTable', pageTable);
  if (inspectPayload) {
    // On the root before any scope exists, so that every route inherits it.
    app.addHook('preSerialization', async (request, _reply, payload) => {
      inspectPayload(request, payload);
      return payload;
    });
  }
  // Before any route: it learns them as they are declared.
  await registerOpenApi(app, config, API_VERSION);

  app.decorate('config', config);
  app.decorateRequest('caller', null as unknown as Caller);
  app.decorateRequest('agent', null as unknown as AgentPrincipal);
  registerJsonApi(app);
  const metrics = registerMetrics(app, config, database);
  healthRoutes(app, database);
  const limits = await registerRateLimits(app, config, metrics);
  await registerDocsPage(app, limits.anonymous);

  // Service discovery for Terraform CLI and the tfe provider (which requires tfe.v2.2).
  const discovery = { summary: 'Service discovery for Terraform and the tfe provider', tags: ['Discovery'], response: responses({ 200: TerraformServices }) };
  app.get('/.well-known/terraform.json', { schema: discovery }, async () => ({
    'tfe.v2': '/api/v2/',
    'tfe.v2.1': '/api/v2/',
    'tfe.v2.2': '/api/v2/',
    'state.v2': '/api/v2/',
    'login.v1': { client: LOGIN_CLIENT_ID, grant_types: ['authz_code'], authz: '/app/oauth2/authorize', token: '/app/oauth2/token', ports: [...LOGIN_PORTS] },
  }));

  await app.register(
    async (api) => {
      jsonApiResponses(api, { 'tfp-api-version': API_VERSION, 'tfp-appname': 'Hangar' });

      // go-tfe calls ping once when a client is created, before it has used its token, and
      // paces itself by the X-RateLimit-Limit it reads here.
      api.get(
        '/ping',
        {
          onRequest: limits.anonymous,
          schema: { summary: 'Check that the API is up', tags: ['Discovery'], security: PUBLIC, response: responses({ 204: NoContent }) },
        },
        async (_request, reply) => reply.code(204).send(),
      );
      openApiRoute(api, limits.anonymous);
      // Terraform PUTs state here without a token: the signed URL is the permission.
      await api.register(async (uploads) => stateUploadRoutes(uploads as unknown as Api, services, limits.anonymous));

      await api.register(async (authenticated) => {
        requireBearerToken(authenticated, { authenticate: services.tokens.authenticate, grants: services.teams.grants, admit: limits.admit });
        requireJsonApiRequests(authenticated);
        const typed = authenticated as unknown as Api;
        await usersRoutes(typed, services);
        await organizationsRoutes(typed, services);
        await adminOrganizationsRoutes(typed, services);
        await teamsRoutes(typed, services);
        await organizationMembershipsRoutes(typed, services);
        await tokensRoutes(typed, services);
        await policySetsRoutes(typed, services);
        await policySetParametersRoutes(typed, services);
        await policiesRoutes(typed, services);
        await policySetVersionsRoutes(typed, services);
        await projectsRoutes(typed, services);
        await workspacesRoutes(typed, { ...services, terraformVersion: knownTerraformVersion });
        await tagsRoutes(typed, services);
        await organizationTagsRoutes(typed, services);
        await workspaceLocksRoutes(typed, services);
        await stateVersionsRoutes(typed, services);
        await safeDeleteRoutes(typed, services);
        await teamProjectsRoutes(typed, services);
        await teamWorkspacesRoutes(typed, services);
        await configurationVersionsRoutes(typed, services);
        await runsRoutes(typed, { ...services, terraformVersion: knownTerraformVersion });
        await runTriggersRoutes(typed, services);
        await notificationConfigurationsRoutes(typed, services);
        await planExportsRoutes(typed, services);
        await sshKeysRoutes(typed, services);
        await policyChecksRoutes(typed, { ...services, terraformVersion: knownTerraformVersion });
        await agentPoolsRoutes(typed, services);
        await agentsRoutes(typed, services);
        await variablesRoutes(typed, services);
        await variableSetsRoutes(typed, services);
      });
      // A policy's source is PUT as raw bytes, with a token like any other API call.
      await api.register(async (raw) => {
        requireBearerToken(raw, { authenticate: services.tokens.authenticate, grants: services.teams.grants, admit: limits.admit });
        requireMediaType(raw, 'application/octet-stream');
        await policyUploadRoutes(raw as unknown as Api, services);
      });
    },
    { prefix: '/api/v2' },
  );

  // The browser's front door: sessions in a cookie, beside the bearer tokens of /api/v2.
  await app.register(
    async (web) => {
      jsonApiResponses(web);
      await sessionsRoutes(web as unknown as Api, { sessions: services.sessions, grants: services.teams.grants, anonymous: limits.anonymous });
      // terraform login's token endpoint answers in OAuth's words: a scope with its own error handler.
      await web.register(async (oauth) =>
        terraformLoginTokenRoutes(oauth as unknown as Api, { terraformLogin: services.terraformLogin, anonymous: limits.anonymous }),
      );
    },
    { prefix: '/app' },
  );
  // The web UI's pages, beside it under /app (web/README.md).
  await registerWeb(app, { services, limits });

  // Upload URLs of configuration versions: the URL is the credential, the body raw bytes.
  await app.register(async (uploads) => {
    uploads.addHook('onRequest', limits.anonymous);
    await uploadRoutes(uploads as unknown as Api, services);
  });
  // Log URLs of plans and applies: the URL is the credential.
  await app.register(async (logs) => {
    logs.addHook('onRequest', limits.anonymous);
    await logRoutes(logs as unknown as Api, services);
  });
  // Upload URLs of policy set versions: the same kind of signed URL, for a policy set's archive.
  await app.register(async (uploads) => {
    uploads.addHook('onRequest', limits.anonymous);
    await policySetVersionUploadRoutes(uploads as unknown as Api, services);
  });

  // Where agents talk to Hangar: plain JSON, and only agent tokens authenticate here.
  await app.register(
    async (agentApi) => {
      requireAgentToken(agentApi, { authenticate: services.tokens.authenticateAgent, admit: limits.admit });
      plainJsonScope(agentApi);
      await agentEndpointRoutes(agentApi as unknown as Api, services);
      // The job protocol for agents: the server's own workers' port, behind the token's pool.
      const localPort = localJobPort({ ...services, database, variables: services.variables });
      await agentProtocolRoutes(agentApi as unknown as Api, { ...services, database, localPort });
    },
    { prefix: '/api/agent' },
  );

  return app;
}

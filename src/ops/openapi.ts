// The API description: @fastify/swagger reads every route's schemas (the TypeBox schemas that
// validate requests and serialize responses) into an OpenAPI 3.1 document, served at
// GET /api/v2/openapi.json; @fastify/swagger-ui serves a browsable reference of it at /docs.
// Neither needs a token; both draw on the anonymous rate-limit budget, as ping does.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import { MEDIA_TYPE, PLAIN_JSON } from '../jsonapi/plugin.ts';
import { Open, responses, sharedSchemas } from '../jsonapi/schemas.ts';

export const OPENAPI_PATH = '/api/v2/openapi.json';
export const DOCS_PREFIX = '/docs';

/** Security requirements, by the names of the schemes below. */
export const PUBLIC: FastifySchema['security'] = [];
export const AGENT_TOKEN: FastifySchema['security'] = [{ agentToken: [] }];
export const METRICS_TOKEN: FastifySchema['security'] = [{ metricsToken: [] }];

const DESCRIPTION = `A self-hostable server for the HCP Terraform / Terraform Enterprise API.

Every \`/api/v2\` request needs \`Authorization: Bearer <token>\` (a user or organization API token),
except ping and this document. Requests with a body use \`Content-Type: application/vnd.api+json\`;
responses use it too. Errors are JSON:API error documents. Lists take \`page[number]\` and
\`page[size]\` (at most 100) and answer with absolute \`links\` and \`meta.pagination\`.
Responses may carry attributes this document does not list yet; clients should ignore what they
do not know, as JSON:API asks.`;

/**
 * Registers @fastify/swagger. Call before any route is declared: it learns routes as they are
 * added. Each route names its summary and tags; this fills in what follows from where a route
 * lives (media types, and the token it needs).
 */
export async function registerOpenApi(app: FastifyInstance, config: Config, version: string): Promise<void> {
  // Shared schemas, referenced by $id; the document lists them under components.schemas.
  for (const schema of sharedSchemas()) app.addSchema(schema);
  await app.register(swagger, {
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `schema-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Hangar', version, description: DESCRIPTION, license: { name: 'MPL-2.0', identifier: 'MPL-2.0' } },
      ...(config.baseUrl ? { servers: [{ url: config.baseUrl }] } : {}),
      components: {
        securitySchemes: {
          bearerToken: { type: 'http', scheme: 'bearer', description: 'A user or organization API token' },
          agentToken: { type: 'http', scheme: 'bearer', description: 'An agent token of an agent pool (only under /api/agent)' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'HANGAR_METRICS_TOKEN' },
        },
      },
      security: [{ bearerToken: [] }],
      tags: [
        { name: 'Discovery', description: 'Finding the API and checking that it is up' },
        { name: 'Account', description: 'The caller and other users' },
        { name: 'Tokens', description: 'User, organization and agent tokens (shown and revoked by id)' },
        { name: 'Organizations' },
        { name: 'Teams', description: 'Teams, their members and their organization access' },
        { name: 'Projects' },
        { name: 'Workspaces' },
        { name: 'Team access to projects' },
        { name: 'Team access to workspaces' },
        { name: 'Configuration versions', description: 'Terraform configuration, stored (Hangar executes nothing)' },
        { name: 'Runs', description: 'Runs are recorded and hold their workspace lock; Hangar executes nothing' },
        { name: 'Policy sets' },
        { name: 'Policy set parameters' },
        { name: 'Agent pools' },
        { name: 'Agents' },
        { name: 'Agent protocol', description: 'What agents call, with agent tokens, in plain JSON' },
        { name: 'Operations', description: 'Health, readiness and metrics, outside /api/v2' },
      ],
    },
    transform: ({ schema, url }) => {
      const given = (schema ?? {}) as FastifySchema;
      const media = url.startsWith('/api/v2/') ? MEDIA_TYPE : PLAIN_JSON;
      const defaults: FastifySchema = { consumes: [media], produces: [media] };
      if (url.startsWith('/api/agent/')) defaults.security = AGENT_TOKEN;
      else if (!url.startsWith('/api/v2/')) defaults.security = PUBLIC;
      return { schema: { ...defaults, ...given } as never, url };
    },
  });
}

/** GET /api/v2/openapi.json, in the /api/v2 scope; `onRequest` charges the anonymous budget. */
export function openApiRoute(api: FastifyInstance, onRequest: (request: FastifyRequest, reply: FastifyReply) => Promise<void>): void {
  let text: string | undefined;
  api.get(
    '/openapi.json',
    {
      onRequest,
      schema: {
        summary: 'This OpenAPI 3.1 document',
        tags: ['Discovery'],
        security: PUBLIC,
        produces: ['application/json'],
        response: responses({
          200: Open({ openapi: Type.String(), paths: Type.Object({}, { additionalProperties: true }) }, { description: 'The OpenAPI document' }),
        }),
      },
    },
    async (_request, reply) => {
      // Routes cannot change once the app is ready, so the document is built once.
      text ??= JSON.stringify(api.swagger());
      return reply.type('application/json').send(text);
    },
  );
}

/** The browsable reference at /docs (its assets included); no token. */
export async function registerDocsPage(app: FastifyInstance, onRequest: (request: FastifyRequest, reply: FastifyReply) => Promise<void>): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    // The page and the document it loads; the static assets are files, served uncharged.
    uiHooks: { onRequest },
    theme: { title: 'Hangar API' },
  });
}

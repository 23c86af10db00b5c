// The Fastify instance as routes see it: its type, what the app decorates it with, and the route
// table. Routes import these from here, below them, never from app.ts, which imports the routes.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_ARCHIVE_BYTES } from './archive.ts';
import { NoContent, responses } from './jsonapi/schemas.ts';
import type { Caller } from './auth/caller.ts';
import type { AgentPrincipal } from './auth/principal.ts';
import type { Config } from './config.ts';

export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface RouteEntry {
  method: string;
  url: string;
  /** The route validates a request body. */
  hasBody: boolean;
  /** That body's schema, for suites that need to know which members a route models. */
  body?: unknown;
  /** Its response schemas by status (`4xx`, `5xx` for errors), which also serialize its answers. */
  response?: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route, as registered: the access matrix and the robustness suite walk it. */
    routeTable: RouteEntry[];
    /** The web UI's pages (method and URL), which are not API routes: test/web-pages.test.ts walks it. */
    pageTable: Array<{ method: string; url: string }>;
    config: Config;
  }
  interface FastifyRequest {
    caller: Caller;
    /** Set only under /api/agent, where agent tokens (and nothing else) authenticate. */
    agent: AgentPrincipal;
  }
}

/**
 * `PUT <prefix>/:object`, an archive's upload URL (a configuration version's, a policy set
 * version's): no Authorization, the URL is the credential, the body any bytes up to
 * MAX_ARCHIVE_BYTES. For a scope of its own outside /api/v2, whose content-type parsers it
 * replaces. The credential is checked before the body is read, so that nobody gets Hangar to
 * buffer megabytes without one.
 */
export function archiveUploadRoute(
  app: Api,
  route: {
    prefix: string;
    summary: string;
    tags: string[];
    /** The longest `:object` the URLs carry. */
    maxObjectLength: number;
    check: (object: string) => void;
    upload: (object: string, bytes: Uint8Array) => Promise<unknown>;
  },
): void {
  const params = Type.Object({ object: Type.String({ maxLength: route.maxObjectLength }) });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ARCHIVE_BYTES }, (_request, body, done) => done(null, body));
  app.put(
    `${route.prefix}/:object`,
    {
      bodyLimit: MAX_ARCHIVE_BYTES,
      schema: { summary: route.summary, tags: route.tags, consumes: ['application/octet-stream'], params, response: responses({ 200: NoContent }) },
      onRequest: async (request) => route.check((request.params as { object?: string }).object ?? ''),
    },
    async (request, reply) => {
      const body = request.body;
      await route.upload(request.params.object, body instanceof Uint8Array ? body : new Uint8Array());
      return reply.code(200).send();
    },
  );
}

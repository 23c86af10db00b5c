// The Fastify instance as routes see it: its type, what the app decorates it with, and the route
// table. Routes import these from here, below them, never from app.ts, which imports the routes.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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

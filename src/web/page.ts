// The page framework: `pages.get(url, handler)` and `pages.post(url, handler)` register a page
// that needs a signed-in person; `pages.anonymous.*` one that does not (the sign-in form).
// Before a handler runs, the wrapper has: found the session (no live one: to the sign-in page,
// with the address to come back to), built the Caller the services take, checked the CSRF token
// of every POST (403 without it), and read the flash message. The handler returns
// `p.render(...)`, `p.redirect(...)` or `p.json(...)`; a service's refusal it does not catch
// becomes the matching error page (404, 403, 429…), so authorization lives in the services only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Caller } from '../auth/caller.ts';
import type { Principal, UserIdentity } from '../auth/principal.ts';
import { clearedSessionCookie, overHttps, sessionSecret } from '../auth/session.ts';
import { ApiError } from '../jsonapi/errors.ts';
import type { Assets } from './assets.ts';
import type { WebLimits, WebServices } from './context.ts';
import { cookie, readCookie } from './cookies.ts';
import { ANONYMOUS_CSRF_COOKIE, CSRF_FIELD, newAnonymousToken, sameToken, sessionCsrfToken } from './csrf.ts';
import { clearedFlashCookie, flashCookie, readFlash, type Flash } from './flash.ts';
import { html, withQuery, type Html } from './html.ts';
import { layout, type PageFrame } from './layout.ts';

export type PageResult =
  | { kind: 'html'; status: number; body: Html }
  | { kind: 'redirect'; to: string; flash?: Flash }
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'file'; name: string; type: string; bytes: Buffer };

export interface PageContext {
  request: FastifyRequest;
  reply: FastifyReply;
  params: Record<string, string>;
  /** Query values (the last of each repeated key). */
  query: Record<string, string | undefined>;
  /** The posted form (empty for a GET); `getAll` for repeated fields (checkboxes). */
  form: URLSearchParams;
  /** The signed-in person, as the services take them. Anonymous pages have none (reading it throws). */
  caller: Caller;
  user: UserIdentity | null;
  /** The token each of this page's forms must carry (components.ts `form` puts it in). */
  csrf: string;
  /** The path and query of this request: a form's way back. */
  url: string;
  render(frame: PageFrame, status?: number): PageResult;
  redirect(to: string, flash?: Flash | string): PageResult;
  json(body: unknown, status?: number): PageResult;
  /** A download: `bytes` saved as `name`. */
  file(name: string, type: string, bytes: Buffer): PageResult;
}

export type PageHandler = (p: PageContext) => Promise<PageResult>;

export interface Pages {
  get(url: string, handler: PageHandler): void;
  post(url: string, handler: PageHandler): void;
  anonymous: { get(url: string, handler: PageHandler): void; post(url: string, handler: PageHandler): void };
  services: WebServices;
  assets: Assets;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A page of the web UI, not an API route (app.ts keeps a table of each). */
    page?: boolean;
  }
}

/** Marks a route as a page: app.ts keeps pages out of the API's route table and OpenAPI document. */
export const PAGE_ROUTE = { config: { page: true }, schema: { hide: true } } as const;

const HTML_TYPE = 'text/html; charset=utf-8';
const SIGN_IN = '/app/sign-in';

function status(error: ApiError): { title: string; text: string } {
  const detail = error.errors[0]?.detail;
  switch (error.status) {
    case 404:
      return { title: 'Not found', text: 'There is nothing here, or you may not see it.' };
    case 403:
      return { title: 'Not allowed', text: detail ?? 'You may see this but not do that.' };
    case 429:
      return { title: 'Too many requests', text: detail ?? 'Wait a little and try again.' };
    default:
      return { title: error.errors[0]?.title ? capitalize(error.errors[0].title) : 'Refused', text: detail ?? 'The request was refused.' };
  }
}
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function createPages(web: FastifyInstance, services: WebServices, assets: Assets, limits: WebLimits): Pages {
  function send(request: FastifyRequest, reply: FastifyReply, result: PageResult, secure: boolean): FastifyReply {
    if (result.kind === 'redirect') {
      if (result.flash) reply.header('set-cookie', flashCookie(result.flash, secure));
      return reply.code(303).header('location', result.to).header('cache-control', 'no-store').send();
    }
    if (result.kind === 'json') return reply.code(result.status).header('cache-control', 'no-store').type('application/json').send(JSON.stringify(result.body));
    if (result.kind === 'file') {
      // The name is Hangar's own (an id and an extension), never the person's text.
      return reply
        .code(200)
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${result.name}"`)
        .type(result.type)
        .send(result.bytes);
    }
    return reply.code(result.status).header('cache-control', 'no-store').type(HTML_TYPE).send(result.body.text);
  }

  function context(request: FastifyRequest, reply: FastifyReply, who: { principal: Principal | null; csrf: string }): PageContext {
    const flash = request.method === 'GET' ? readFlash(request.headers.cookie) : null;
    if (flash) reply.header('set-cookie', clearedFlashCookie(overHttps(request)));
    const user = who.principal?.kind === 'user' ? who.principal.user : null;
    const caller = who.principal ? new Caller(who.principal, services.teams.grants) : null;
    const p: PageContext = {
      request,
      reply,
      params: request.params as Record<string, string>,
      query: (request.query ?? {}) as Record<string, string | undefined>,
      form: request.body instanceof URLSearchParams ? request.body : new URLSearchParams(),
      get caller(): Caller {
        if (!caller) throw new Error('an anonymous page has no caller');
        return caller;
      },
      user,
      csrf: who.csrf,
      url: request.url,
      render: (frame, code = 200) => ({ kind: 'html', status: code, body: layout(frame, { assets, user, csrf: who.csrf, flash }) }),
      redirect: (to, message) => ({ kind: 'redirect', to, flash: typeof message === 'string' ? { kind: 'notice', text: message } : message }),
      json: (body, code = 200) => ({ kind: 'json', status: code, body }),
      file: (name, type, bytes) => ({ kind: 'file', name, type, bytes }),
    };
    return p;
  }

  /** The page for a refusal the handler left to the framework. */
  function refusal(p: PageContext, error: ApiError): PageResult {
    if (error.status === 401) return p.redirect(SIGN_IN);
    const { title, text } = status(error);
    if (error.status === 429) p.reply.header('retry-after', '60');
    return p.render(
      {
        title,
        body: html`<p>${text}</p>
          <p><a href="/app">Back to the start page</a></p>`,
      },
      error.status,
    );
  }

  async function run(p: PageContext, handler: PageHandler, secure: boolean): Promise<FastifyReply> {
    let result: PageResult;
    try {
      result = await handler(p);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      result = refusal(p, error);
    }
    return send(p.request, p.reply, result, secure);
  }

  function signedIn(method: 'GET' | 'POST', url: string, handler: PageHandler): void {
    web.route({
      method,
      url,
      ...PAGE_ROUTE,
      handler: async (request, reply) => {
        const secure = overHttps(request);
        const secret = sessionSecret(request);
        const principal = secret === null ? null : await services.sessions.authenticate(secret);
        if (limits.admit) await limits.admit(request, reply, principal);
        if (!principal || secret === null) {
          // No live session: sign in, then come back here (a GET only: a form's POST is not replayed).
          const headers = [
            ...(secret !== null ? [clearedSessionCookie(secure), flashCookie({ kind: 'error', text: 'Your session has ended. Sign in again.' }, secure)] : []),
          ];
          if (headers.length) reply.header('set-cookie', headers);
          const to = method === 'GET' ? withQuery(SIGN_IN, { return_to: request.url }) : SIGN_IN;
          return reply.code(303).header('location', to).send();
        }
        const csrf = sessionCsrfToken(secret);
        const p = context(request, reply, { principal, csrf });
        if (method === 'POST' && !sameToken(p.form.get(CSRF_FIELD), csrf)) return send(request, reply, forged(p), secure);
        return run(p, handler, secure);
      },
    });
  }

  function forged(p: PageContext): PageResult {
    return p.render(
      {
        title: 'Form expired',
        body: html`<p>This form could not be checked. Reload the page and send it again.</p>
          <p><a href="/app">Back to the start page</a></p>`,
      },
      403,
    );
  }

  function anonymous(method: 'GET' | 'POST', url: string, handler: PageHandler): void {
    web.route({
      method,
      url,
      ...PAGE_ROUTE,
      onRequest: limits.anonymous,
      handler: async (request, reply) => {
        const secure = overHttps(request);
        const held = readCookie(request.headers.cookie, ANONYMOUS_CSRF_COOKIE);
        if (method === 'POST') {
          const p = context(request, reply, { principal: null, csrf: held ?? '' });
          if (!sameToken(p.form.get(CSRF_FIELD), held)) return send(request, reply, forged(p), secure);
          return run(p, handler, secure);
        }
        // A GET hands out the token its forms carry, kept as long as the browser keeps it.
        const token = held ?? newAnonymousToken();
        if (!held) reply.header('set-cookie', cookie(ANONYMOUS_CSRF_COOKIE, token, { secure, path: '/app' }));
        return run(context(request, reply, { principal: null, csrf: token }), handler, secure);
      },
    });
  }

  return {
    get: (url, handler) => signedIn('GET', url, handler),
    post: (url, handler) => signedIn('POST', url, handler),
    anonymous: { get: (url, handler) => anonymous('GET', url, handler), post: (url, handler) => anonymous('POST', url, handler) },
    services,
    assets,
  };
}

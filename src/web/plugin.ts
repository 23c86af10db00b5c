// The web UI: pages under /app, rendered on the server from the same services as /api/v2.
// This file sets up the scope (security headers, form bodies, static files, error pages) and
// registers every area's pages (pages/<area>.ts). README.md in this folder says how to add one.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../jsonapi/errors.ts';
import { loadAssets, negotiate, type Assets } from './assets.ts';
import type { WebLimits, WebServices } from './context.ts';
import { html } from './html.ts';
import { layout } from './layout.ts';
import { createPages, PAGE_ROUTE } from './page.ts';
import { signInPages } from './pages/sign-in.ts';
import { accountPages } from './pages/account.ts';
import { organizationPages } from './pages/organizations.ts';
import { projectPages } from './pages/projects.ts';
import { workspacePages } from './pages/workspaces.ts';
import { terraformLoginPages } from './pages/terraform-login.ts';
import { ssoPages } from './pages/sso.ts';

/**
 * No script but Hangar's own file, no inline script or style, nothing from elsewhere, no
 * framing, forms only to Hangar. `img-src data:` is for the blank favicon.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

const FORM = 'application/x-www-form-urlencoded';

export async function registerWeb(app: FastifyInstance, deps: { services: WebServices; limits: WebLimits; assets?: Assets }): Promise<void> {
  const assets = deps.assets ?? loadAssets();

  // The site's root is the UI's start page.
  app.get('/', PAGE_ROUTE, async (_request, reply) => reply.code(302).header('location', '/app').send());

  await app.register(
    async (web) => {
      web.addHook('onRequest', (_request, reply, done) => {
        reply.headers(SECURITY_HEADERS);
        done();
      });
      web.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) => done(null, new URLSearchParams(String(body))));

      web.get('/assets/:name', PAGE_ROUTE, async (request, reply) => {
        const asset = assets.byUrlName((request.params as { name: string }).name);
        if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
        reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', asset.etag).header('vary', 'accept-encoding');
        if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
        const { encoding, body } = negotiate(asset, request.headers['accept-encoding']);
        if (encoding) reply.header('content-encoding', encoding);
        return reply.type(asset.type).send(body);
      });

      const pages = createPages(web, deps.services, assets, deps.limits);
      signInPages(pages);
      accountPages(pages);
      organizationPages(pages);
      projectPages(pages);
      workspacePages(pages);
      terraformLoginPages(pages);
      ssoPages(pages);

      // What no page answers, and failures no page handled, as pages (not JSON documents).
      const errorPage = (title: string, text: string) =>
        layout(
          {
            title,
            body: html`<p>${text}</p>
              <p><a href="/app">Back to the start page</a></p>`,
          },
          { assets, user: null, csrf: '', flash: null },
        ).text;
      // Both also answer requests stopped before the scope's own hooks ran (an unknown URL), so
      // they set the headers themselves.
      web.setNotFoundHandler((_request, reply) => {
        reply
          .headers(SECURITY_HEADERS)
          .code(404)
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(errorPage('Not found', 'There is nothing here, or you may not see it.'));
      });
      web.setErrorHandler((error: FastifyError, request, reply) => {
        const status = error instanceof ApiError ? error.status : (error.statusCode ?? 500);
        if (status >= 500) request.server.log.child({ reqId: request.id }).error({ err: error }, 'page failed');
        const text =
          status === 404
            ? 'There is nothing here, or you may not see it.'
            : status === 413
              ? 'The form is too large.'
              : status < 500
                ? 'The request was refused.'
                : 'Something went wrong on our side. Try again later.';
        reply
          .headers(SECURITY_HEADERS)
          .code(status)
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(errorPage(status < 500 ? 'Refused' : 'Error', text));
      });
    },
    { prefix: '/app' },
  );
}

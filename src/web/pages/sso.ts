// Single sign-on with an OpenID provider (oidc/service.ts has the protocol). The sign-in page's
// button leads to /app/oidc/start, which sends the browser to the provider with a cookie of its
// own; the provider sends it back to /app/oidc/callback, which opens a session. Both are plain
// links and redirects (no form): the site's form-action policy would stop a form's redirect to
// the provider.
import { overHttps, sessionCookie, sessionSecret } from '../../auth/session.ts';
import type { OidcConfig } from '../../config.ts';
import { errors } from '../../jsonapi/errors.ts';
import { SignInRefused } from '../../oidc/service.ts';
import { cookie, readCookie } from '../cookies.ts';
import { html, withQuery } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';
import { safeReturnTo } from '../return-to.ts';

/** The cookie that ties a sign-in under way to the browser that began it (only the callback reads it). */
export const SSO_COOKIE = 'hangar_sso';
const SSO_PATH = '/app/oidc';

/** The sign-in page's link to the provider, when single sign-on is configured. */
export function ssoLink(config: OidcConfig | null, returnTo: string) {
  if (!config) return '';
  return html`<p class="sso"><a class="button secondary" href="${withQuery(`${SSO_PATH}/start`, { return_to: returnTo })}">Sign in with ${config.name}</a></p>`;
}

export function ssoPages(pages: Pages): void {
  const { oidc, sessions } = pages.services;

  const settings = (p: PageContext): OidcConfig => {
    const config = p.request.server.config.oidc;
    if (!config) throw errors.notFound();
    return config;
  };
  /** Hangar's callback as the provider knows it: under HANGAR_BASE_URL when set, else as the browser reached Hangar. */
  const callbackUri = (p: PageContext) => `${p.request.server.config.baseUrl ?? `${p.request.protocol}://${p.request.host}`}${SSO_PATH}/callback`;

  const refused = (p: PageContext, error: SignInRefused, status: number) => {
    // The reason, for the operator: openid-client's message and code, the underlying check's
    // own words and the claim it compared (never the claims themselves, the code or a token).
    type Failure = Error & { code?: unknown; cause?: unknown };
    const cause = error.cause instanceof Error ? (error.cause as Failure) : undefined;
    const inner = cause?.cause instanceof Error ? (cause.cause as Failure) : undefined;
    const compared = inner?.cause as { claim?: unknown } | undefined;
    p.request.server.log.warn(
      {
        reqId: p.request.id,
        reason: error.message,
        cause: cause?.message,
        code: typeof cause?.code === 'string' ? cause.code : undefined,
        detail: inner?.message,
        claim: typeof compared?.claim === 'string' ? compared.claim : undefined,
      },
      'single sign-on refused',
    );
    return p.render(
      {
        title: 'Sign-in failed',
        body: html`<p>${error.message}.</p>
          <p><a href="/app/sign-in">Back to sign-in</a></p>`,
      },
      status,
    );
  };

  pages.anonymous.get('/oidc/start', async (p) => {
    const config = settings(p);
    let begun;
    try {
      begun = await oidc.begin(config, { redirectUri: callbackUri(p), returnTo: safeReturnTo(p.query.return_to) });
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      return refused(p, error, 503);
    }
    p.reply.header('set-cookie', cookie(SSO_COOKIE, begun.cookieSecret, { secure: overHttps(p.request), path: SSO_PATH, maxAge: 600 }));
    return p.redirect(begun.url);
  });

  pages.anonymous.get('/oidc/callback', async (p) => {
    const config = settings(p);
    const secure = overHttps(p.request);
    const mark = p.request.url.indexOf('?');
    // Used up whatever happens next.
    p.reply.header('set-cookie', cookie(SSO_COOKIE, '', { secure, path: SSO_PATH, maxAge: 0 }));
    let finished;
    try {
      finished = await oidc.finish(config, {
        cookieSecret: readCookie(p.request.headers.cookie, SSO_COOKIE),
        query: mark < 0 ? '' : p.request.url.slice(mark + 1),
        address: p.request.ip ?? null,
      });
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      return refused(p, error, 401);
    }
    // A new session, never one the browser came with: a cookie planted by someone else stops working.
    const previous = sessionSecret(p.request);
    if (previous !== null) await sessions.signOut(previous);
    p.reply.header('set-cookie', sessionCookie(finished.sessionSecret, secure));
    return p.redirect(safeReturnTo(finished.returnTo));
  });
}

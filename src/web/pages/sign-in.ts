// Signing in and out, and the start page. The sign-in form posts here (not to the JSON
// /app/session, which stays for scripts); both open sessions through the same service, with the
// same throttling per account and per address.
import { clearedSessionCookie, overHttps, sessionCookie, sessionSecret } from '../../auth/session.ts';
import { ApiError } from '../../jsonapi/errors.ts';
import { field, form } from '../components.ts';
import { html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';
import { safeReturnTo } from '../return-to.ts';
import { ssoLink } from './sso.ts';

export function signInPages(pages: Pages): void {
  const { sessions } = pages.services;

  const signInForm = (p: PageContext, o: { returnTo: string; username?: string; error?: string }) =>
    html`<div class="sign-in">
      ${form({
        action: '/app/sign-in',
        csrf: p.csrf,
        label: 'Sign in',
        error: o.error,
        submit: 'Sign in',
        body: html`<input type="hidden" name="return_to" value="${o.returnTo}" />
          ${field({ label: 'Username', name: 'username', value: o.username, required: true, autocomplete: 'username' })}
          ${field({ label: 'Password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' })}`,
      })}
      ${ssoLink(p.request.server.config.oidc, o.returnTo)}
      <p class="hint">An administrator sets a first password with <code>npx hangar user password NAME</code>.</p>
    </div>`;

  pages.anonymous.get('/sign-in', async (p) => {
    const returnTo = safeReturnTo(p.query.return_to);
    // Already signed in: straight on.
    const secret = sessionSecret(p.request);
    if (secret !== null && (await sessions.authenticate(secret))) return p.redirect(returnTo);
    return p.render({ title: 'Sign in to Hangar', body: signInForm(p, { returnTo }) });
  });

  pages.anonymous.post('/sign-in', async (p) => {
    const username = p.form.get('username') ?? '';
    const password = p.form.get('password') ?? '';
    const returnTo = safeReturnTo(p.form.get('return_to'));
    let signedIn;
    try {
      signedIn = await sessions.signIn({ username, password, address: p.request.ip ?? null });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 429)) throw error;
      if (error.status === 429) p.reply.header('retry-after', '60');
      const message = error.errors[0]?.detail ?? 'The username or password is incorrect';
      return p.render({ title: 'Sign in to Hangar', body: signInForm(p, { returnTo, username, error: message }) }, error.status);
    }
    // A new session, never one the browser came with: a cookie planted by someone else stops working.
    const previous = sessionSecret(p.request);
    if (previous !== null) await sessions.signOut(previous);
    p.reply.header('set-cookie', sessionCookie(signedIn.secret, overHttps(p.request)));
    return p.redirect(returnTo);
  });

  pages.post('/sign-out', async (p) => {
    const secret = sessionSecret(p.request);
    if (secret !== null) await sessions.signOut(secret);
    p.reply.header('set-cookie', clearedSessionCookie(overHttps(p.request)));
    return p.redirect('/app/sign-in', 'You have signed out.');
  });

  pages.get('/', async (p) => p.redirect('/app/organizations'));
}

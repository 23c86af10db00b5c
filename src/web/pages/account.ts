// The signed-in person's own account: who they are, and changing their password. The current
// password is checked through the sign-in service, so guessing it here is throttled exactly as
// at the sign-in form; a change ends every other session of theirs, and this browser gets a new one.
import { overHttps, sessionCookie, sessionSecret } from '../../auth/session.ts';
import { ApiError } from '../../jsonapi/errors.ts';
import { field, form, type FieldErrors } from '../components.ts';
import { html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';

export function accountPages(pages: Pages): void {
  const { sessions, users } = pages.services;

  function accountPage(p: PageContext, errors: FieldErrors = {}, status?: number) {
    const user = p.user!;
    const body = html`<dl class="facts">
        <dt>Username</dt>
        <dd>${user.username}</dd>
        <dt>Site administrator</dt>
        <dd>${user.isSiteAdmin ? 'Yes' : 'No'}</dd>
      </dl>
      <h2>Change your password</h2>
      ${form({
        action: '/app/account/password',
        csrf: p.csrf,
        submit: 'Change password',
        label: 'Change your password',
        error: errors[''],
        body: html`${field({ label: 'Current password', name: 'current', type: 'password', required: true, autocomplete: 'current-password', error: errors.current })}
        ${field({
          label: 'New password',
          name: 'password',
          type: 'password',
          required: true,
          autocomplete: 'new-password',
          hint: 'At least 12 characters.',
          error: errors.password,
        })}
        ${field({ label: 'New password again', name: 'confirmation', type: 'password', required: true, autocomplete: 'new-password', error: errors.confirmation })}`,
      })}`;
    return p.render({ title: 'Your account', section: 'account', body }, status);
  }

  pages.get('/account', async (p) => accountPage(p));

  pages.post('/account/password', async (p) => {
    const user = p.user!;
    const current = p.form.get('current') ?? '';
    const next = p.form.get('password') ?? '';
    if (next !== (p.form.get('confirmation') ?? '')) return accountPage(p, { confirmation: 'The two new passwords differ' }, 422);
    let renewed;
    try {
      // The same check, and the same throttle, as signing in.
      renewed = await sessions.signIn({ username: user.username, password: current, address: p.request.ip ?? null });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 429)) throw error;
      return accountPage(
        p,
        { current: error.status === 401 ? 'That is not your current password' : (error.errors[0]?.detail ?? 'Too many attempts') },
        error.status === 429 ? 429 : 422,
      );
    }
    try {
      await users.setPassword(user.username, next);
    } catch (error) {
      await sessions.signOut(renewed.secret);
      if (!(error instanceof ApiError) || error.status !== 422) throw error;
      return accountPage(p, { password: error.errors[0]?.detail ?? 'Choose another password' }, 422);
    }
    // Every session of theirs ends (another browser, perhaps someone else's); this one goes on.
    await sessions.revokeAllOfUser(user.id);
    const fresh = await sessions.signIn({ username: user.username, password: next, address: p.request.ip ?? null });
    await sessions.signOut(renewed.secret);
    const old = sessionSecret(p.request);
    if (old !== null) await sessions.signOut(old);
    p.reply.header('set-cookie', sessionCookie(fresh.secret, overHttps(p.request)));
    return p.redirect('/app/account', 'Your password has been changed. Your other sessions have ended.');
  });
}

// API tokens people make in the browser: their own user tokens (`/app/settings/tokens`, where
// `terraform login` sends them when the server has no login.v1 flow) and an organization's token
// (`/app/<org>/settings/authentication-tokens`). A new secret is on the POST's answer only.
import { ApiError, errors } from '../../jsonapi/errors.ts';
import type { Token } from '../../tokens/service.ts';
import { button, fieldErrors, field, firstRows, form, isFormError, select, table, when, type FieldErrors } from '../components.ts';
import { html, path } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';
import { shownOnce } from './shown-once.ts';

export const USER_TOKENS_URL = '/app/settings/tokens';
/** One page holds a person's tokens (the API's largest page). */
const FIRST_HUNDRED = firstRows(100);

const EXPIRIES: Array<[string, string]> = [
  ['', 'Never'],
  ['7', 'In 7 days'],
  ['30', 'In 30 days'],
  ['90', 'In 90 days'],
  ['365', 'In a year'],
];

/** The expiry a form's `expires` (days from now) asks for; null: never. */
function expiryOf(form: URLSearchParams): string | null {
  const days = Number(form.get('expires') || 0);
  return Number.isInteger(days) && days > 0 && days <= 3650 ? new Date(Date.now() + days * 86_400_000).toISOString() : null;
}

const notFoundAsNull = (e: unknown) => {
  if (e instanceof ApiError && e.status === 404) return null;
  throw e;
};

export function tokenPages(pages: Pages): void {
  const { tokens, organizations } = pages.services;

  const userId = (p: PageContext) => p.user!.id;

  async function userTokensPage(p: PageContext, extra: { secret?: string; errors?: FieldErrors; description?: string } = {}, status = 200) {
    const { items } = await tokens.listUserTokens(p.caller, userId(p), FIRST_HUNDRED);
    const fromLogin = p.query.source === 'terraform-login' || p.form.get('source') === 'terraform-login';
    const body = html`${
        fromLogin
          ? html`<div class="flash notice" role="status">
              <p>
                <strong>Terraform is waiting for a token.</strong> Create one below, copy it, and paste it at the terminal's <code>Token for …:</code> prompt.
              </p>
            </div>`
          : ''
      }
      ${extra.secret ? shownOnce({ secret: extra.secret, what: 'user token', after: fromLogin ? html`<p>Paste it into the terminal running <code>terraform login</code>.</p>` : '' }) : ''}
      ${table({
        caption: 'Your tokens',
        captionHidden: true,
        head: ['Description', 'Created', 'Last used', 'Expires', 'Action'],
        rows: items.map((t: Token) => [
          t.description ?? '',
          when(t.createdAt),
          when(t.lastUsedAt),
          t.expiredAt ? when(t.expiredAt) : 'never',
          button({
            action: path`/app/settings/tokens/${t.id}/delete`,
            csrf: p.csrf,
            label: 'Revoke',
            danger: true,
            accessibleLabel: `Revoke the token ${t.description ?? t.id}`,
            confirm: 'Revoke this token? Whatever uses it stops working at once.',
          }),
        ]),
        empty: 'You have no API tokens.',
      })}
      <h2>New token</h2>
      ${form({
        action: USER_TOKENS_URL,
        csrf: p.csrf,
        label: 'New token',
        submit: 'Create token',
        error: extra.errors?.[''] ?? extra.errors?.['expired-at'],
        body: html`${fromLogin ? html`<input type="hidden" name="source" value="terraform-login" />` : ''}
        ${field({
          label: 'Description',
          name: 'description',
          value: extra.description ?? (fromLogin ? 'terraform login' : ''),
          error: extra.errors?.description,
          hint: 'What the token is for, to recognise it later.',
        })}
        ${select({ label: 'Expires', name: 'expires', options: EXPIRIES })}`,
      })}`;
    return p.render({ title: 'API tokens', section: 'tokens', body }, status);
  }

  pages.get('/settings/tokens', (p) => userTokensPage(p));

  pages.post('/settings/tokens', async (p) => {
    const description = p.form.get('description')?.trim() || null;
    let secret: string;
    try {
      secret = (await tokens.createUserToken(p.caller, userId(p), { description, expiredAt: expiryOf(p.form) })).secret;
    } catch (error) {
      if (!isFormError(error)) throw error;
      return userTokensPage(p, { errors: fieldErrors(error), description: description ?? '' }, 422);
    }
    return userTokensPage(p, { secret });
  });

  pages.post('/settings/tokens/:token/delete', async (p) => {
    const token = await tokens.show(p.caller, p.params.token!);
    // This page revokes the person's own user tokens only (others have their own pages).
    if (token.kind !== 'user') return p.render({ title: 'Not found', body: html`<p>There is nothing here, or you may not see it.</p>` }, 404);
    await tokens.destroy(p.caller, token.id);
    return p.redirect(USER_TOKENS_URL, 'Token revoked.');
  });

  const orgTokensUrl = (org: string) => path`/app/${org}/settings/authentication-tokens`;

  async function organizationTokenPage(p: PageContext, extra: { secret?: string } = {}) {
    const org = p.params.org!;
    // "No token" and "not yours to see" are both 404 from the tokens service: the organization's
    // permissions tell them apart, and to whoever may not manage the token the page does not exist.
    if (!(await organizations.show(p.caller, org)).permissions['can-update-api-token']) throw errors.notFound();
    const existing = await tokens.showOrganizationToken(p.caller, org, 'organization').catch(notFoundAsNull);
    const body = html`<p>
        The organization's token acts as the organization itself (every permission in it, nothing elsewhere). There is one at a time: a new one replaces it.
      </p>
      ${extra.secret ? shownOnce({ secret: extra.secret, what: 'organization token' }) : ''}
      ${
        existing
          ? html`<dl class="facts">
              <dt>Created</dt>
              <dd>${when(existing.createdAt)}</dd>
              <dt>Last used</dt>
              <dd>${when(existing.lastUsedAt)}</dd>
              <dt>Expires</dt>
              <dd>${existing.expiredAt ? when(existing.expiredAt) : 'never'}</dd>
            </dl>`
          : html`<p class="muted">The organization has no token.</p>`
      }
      ${form({
        action: orgTokensUrl(org),
        csrf: p.csrf,
        label: existing ? 'Regenerate the organization token' : 'Create an organization token',
        submit: existing ? 'Regenerate token' : 'Create token',
        confirm: existing ? 'The current token stops working at once. Regenerate it?' : undefined,
        body: select({ label: 'Expires', name: 'expires', options: EXPIRIES }),
      })}
      ${
        existing
          ? button({
              action: path`/app/${org}/settings/authentication-tokens/delete`,
              csrf: p.csrf,
              label: 'Delete token',
              danger: true,
              confirm: 'Delete the organization token? It stops working at once.',
            })
          : ''
      }`;
    return p.render({ title: 'Organization API token', org, section: 'authentication-tokens', body });
  }

  pages.get('/:org/settings/authentication-tokens', (p) => organizationTokenPage(p));

  pages.post('/:org/settings/authentication-tokens', async (p) => {
    const issued = await tokens.createOrganizationToken(p.caller, p.params.org!, 'organization', { expiredAt: expiryOf(p.form) });
    return organizationTokenPage(p, { secret: issued.secret });
  });

  pages.post('/:org/settings/authentication-tokens/delete', async (p) => {
    await tokens.deleteOrganizationToken(p.caller, p.params.org!, 'organization');
    return p.redirect(orgTokensUrl(p.params.org!), 'Organization token deleted.');
  });
}

// `terraform login`'s authorization page (terraform-login/service.ts has the protocol): the
// person sees who asks (Terraform CLI, waiting at a localhost port of their computer), for
// which account on which Hangar, and must click Authorize. Their answer goes back to Terraform at
// its redirect URI: a single-use code, or `access_denied`.
import { CSRF_FIELD } from '../csrf.ts';
import { html } from '../html.ts';
import type { PageContext, Pages, PageResult } from '../page.ts';
import { checkAuthorizationRequest, isProblem, redirectTo, type AuthorizationRequest } from '../../terraform-login/service.ts';

/** The request's fields, carried from the page to its form. */
const FIELDS = ['client_id', 'redirect_uri', 'response_type', 'state', 'code_challenge', 'code_challenge_method'] as const;

export function terraformLoginPages(pages: Pages): void {
  const { terraformLogin } = pages.services;

  /** The checked request, or the page (or redirect back to Terraform) that refuses it. */
  function checked(p: PageContext, values: Record<string, string | undefined>): AuthorizationRequest | PageResult {
    const request = checkAuthorizationRequest(values);
    if (!isProblem(request)) return request;
    if (request.redirect)
      return p.redirect(redirectTo(request.redirectUri, { error: request.error, error_description: request.description, state: request.state }));
    return p.render(
      {
        title: 'This login request is not valid',
        body: html`<p>${request.description}.</p>
          <p>Nothing was authorized. Run <code>terraform login</code> again, and open the address it prints.</p>`,
      },
      400,
    );
  }

  pages.get('/oauth2/authorize', async (p) => {
    const request = checked(p, p.query);
    if ('kind' in request) return request;
    const user = p.user!;
    const host = p.request.host;
    const listener = new URL(request.redirectUri);
    // The answer is a redirect to Terraform's listener: a form may lead there, and nowhere else.
    const policy = String(p.reply.getHeader('content-security-policy') ?? '');
    p.reply.header('content-security-policy', policy.replace("form-action 'self'", `form-action 'self' ${listener.origin}`));
    return p.render({
      title: 'Authorize Terraform CLI',
      body: html`<div class="authorize">
        <p>
          <strong>Terraform CLI</strong> (<code>terraform login</code>, waiting on your computer at <code>${listener.host}</code>) asks for an API token to act
          as <strong>${user.username}</strong> on <strong>${host}</strong>.
        </p>
        <p>
          The token can do everything you can do, until you delete it from your tokens. Authorize only if you have just run
          <code>terraform login ${host}</code> yourself.
        </p>
        <form method="post" action="/app/oauth2/authorize" class="stack" aria-label="Authorize Terraform CLI">
          <input type="hidden" name="${CSRF_FIELD}" value="${p.csrf}" />
          ${FIELDS.map((name) => (p.query[name] === undefined ? '' : html`<input type="hidden" name="${name}" value="${p.query[name]}" />`))}
          <div class="actions">
            <button type="submit" name="decision" value="authorize">Authorize</button>
            <button type="submit" name="decision" value="cancel" class="secondary">Cancel</button>
          </div>
        </form>
      </div>`,
    });
  });

  pages.post('/oauth2/authorize', async (p) => {
    const values = Object.fromEntries(FIELDS.map((name) => [name, p.form.get(name) ?? undefined]));
    const request = checked(p, values);
    if ('kind' in request) return request;
    if (p.form.get('decision') !== 'authorize') {
      return p.redirect(redirectTo(request.redirectUri, { error: 'access_denied', error_description: 'The login was cancelled', state: request.state }));
    }
    const code = await terraformLogin.issueCode(p.caller, request);
    return p.redirect(redirectTo(request.redirectUri, { code, state: request.state }));
  });
}

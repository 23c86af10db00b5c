// The frame of every page: skip link, site bar (organizations, account, sign out), the
// organization's sections, breadcrumbs, the flash message and the page's own content.
import type { UserIdentity } from '../auth/principal.ts';
import type { Assets } from './assets.ts';
import { CSRF_FIELD } from './csrf.ts';
import type { Flash } from './flash.ts';
import { html, path, type Html } from './html.ts';
import { ACCOUNT_LINKS, ORGANIZATION_SECTIONS } from './nav.ts';

export interface PageFrame {
  title: string;
  body: Html;
  /** The organization the page belongs to: its sections are shown. */
  org?: string;
  /** The current section (nav.ts ids), marked for screen readers with aria-current. */
  section?: string;
  /** Breadcrumbs before the title: [label, href]. */
  crumbs?: Array<[string, string]>;
}

export interface FrameContext {
  assets: Assets;
  user: UserIdentity | null;
  csrf: string;
  flash: Flash | null;
}

const current = (yes: boolean) => (yes ? html` aria-current="page"` : '');

export function layout(frame: PageFrame, ctx: FrameContext): Html {
  const { user } = ctx;
  const siteBar = user
    ? html`<nav aria-label="Site">
          <ul>
            <li><a href="/app/organizations" ${current(frame.section === 'organizations')}>Organizations</a></li>
          </ul>
        </nav>
        <div class="account">
          ${ACCOUNT_LINKS.filter((l) => !l.admin || user.isSiteAdmin).map(
            (l) => html`<a href="${l.href}" ${current(frame.section === l.id)}>${l.id === 'account' ? user.username : l.label}</a>`,
          )}
          <form method="post" action="/app/sign-out" class="inline">
            <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
            <button type="submit">Sign out</button>
          </form>
        </div>`
    : '';
  const orgNav = frame.org
    ? html`<nav class="org" aria-label="Organization ${frame.org}">
        <ul>
          <li><a href="${path`/app/${frame.org}`}" ${current(frame.section === 'organization')}>${frame.org}</a></li>
          ${ORGANIZATION_SECTIONS.map((s) => html`<li><a href="${s.href(frame.org!)}" ${current(frame.section === s.id)}>${s.label}</a></li>`)}
        </ul>
      </nav>`
    : '';
  const crumbs = frame.crumbs?.length
    ? html`<nav aria-label="Breadcrumb">
        <ol class="crumbs">
          ${frame.crumbs.map(([label, href]) => html`<li><a href="${href}">${label}</a></li>`)}
        </ol>
      </nav>`
    : '';
  const flash = ctx.flash ? html`<div class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">${ctx.flash.text}</div>` : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${frame.title} · Hangar</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${ctx.assets.url('app.css')}" />
        <script src="${ctx.assets.url('app.js')}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <div class="bar"><a class="brand" href="/app">Hangar</a>${siteBar}</div>
        </header>
        ${orgNav}
        <main id="main" tabindex="-1">
          ${crumbs}
          <h1>${frame.title}</h1>
          ${flash} ${frame.body}
        </main>
      </body>
    </html> `;
}

// Site administration: the installation's people (`/app/admin/users`), searchable and paged. The
// users service answers only site admins; to anyone else the page does not exist (404), as TFE's
// admin API is.
import { listPage, pager, table, when, searchForm } from '../components.ts';
import { html } from '../html.ts';
import type { Pages } from '../page.ts';

const PAGE_SIZE = 50;
const URL = '/app/admin/users';

export function adminUserPages(pages: Pages): void {
  const { users } = pages.services;

  pages.get('/admin/users', async (p) => {
    const page = listPage(p.query.page, PAGE_SIZE);
    const q = p.query.q?.trim() || undefined;
    const { items, total } = await users.listPeople(p.caller, { search: q }, page);
    const body = html`${searchForm({ action: URL, id: 'user-q', label: 'Search by username or address', value: q })}
      ${table({
        caption: 'Users',
        captionHidden: true,
        head: ['Username', 'E-mail address', 'Site admin', 'Created'],
        rows: items.map((u) => [u.username, u.email, u.isSiteAdmin ? html`<span class="badge ok">site admin</span>` : '', when(u.createdAt)]),
        empty: q ? 'Nobody matches.' : 'No users.',
      })}
      ${pager({ base: URL, query: { q }, page, total, noun: 'users' })}
      <p class="hint">Passwords are set with <code>npx hangar user password NAME</code>; site admins are made with <code>npx hangar bootstrap</code>.</p>`;
    return p.render({ title: 'Users', section: 'admin-users', body });
  });
}

// Organizations: the list of those the person belongs to (searchable, paged), creating one, and
// an organization's start page (its projects).
import { isFormError, fieldErrors, field, form, listPage, pager, table, when, type FieldErrors, searchForm } from '../components.ts';
import { html, path } from '../html.ts';
import type { Pages } from '../page.ts';

export function organizationPages(pages: Pages): void {
  const { organizations } = pages.services;

  const createForm = (csrf: string, values: { name?: string; email?: string }, errors: FieldErrors = {}) =>
    form({
      action: '/app/organizations',
      csrf,
      label: 'New organization',
      error: errors[''],
      submit: 'Create organization',
      body: html`${field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, hint: 'Letters, digits, - and _.' })}
      ${field({ label: 'E-mail address', name: 'email', type: 'email', value: values.email, required: true, error: errors.email })}`,
    });

  pages.get('/organizations', async (p) => {
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const { items, total } = await organizations.list(p.caller, { search: q }, page);
    const body = html`${searchForm({ action: '/app/organizations', id: 'org-q', label: 'Search organizations', value: q })}
      ${table({
        caption: 'Organizations',
        captionHidden: true,
        head: ['Name', 'E-mail address', 'Created'],
        rows: items.map((v) => [html`<a href="${path`/app/${v.org.name}/projects`}">${v.org.name}</a>`, v.org.email, when(v.org.createdAt)]),
        empty: q ? 'No organization matches.' : 'You belong to no organization yet. Create one below.',
      })}
      ${pager({ base: '/app/organizations', query: { q }, page, total, noun: 'organizations' })}
      <h2>New organization</h2>
      ${createForm(p.csrf, {})}`;
    return p.render({ title: 'Organizations', section: 'organizations', body });
  });

  pages.post('/organizations', async (p) => {
    const name = p.form.get('name')?.trim() ?? '';
    const email = p.form.get('email')?.trim() ?? '';
    try {
      await organizations.create(p.caller, { name, email });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'New organization', section: 'organizations', body: createForm(p.csrf, { name, email }, fieldErrors(error)) }, 422);
    }
    return p.redirect(path`/app/${name}/projects`, `Organization ${name} created.`);
  });

  // An organization's own address: its projects, as in TFE.
  pages.get('/:org', async (p) => {
    await organizations.show(p.caller, p.params.org!);
    return p.redirect(path`/app/${p.params.org!}/projects`);
  });
}

// Policies (TFE: Settings → Policies): the list, writing one (its Sentinel or OPA source in a text
// area, uploaded through the same service as `PUT /policies/:id/upload`), changing its
// description, level and source, deleting it. Policy sets hold them (policy-sets.ts).
import { ApiError } from '../../jsonapi/errors.ts';
import { LEVELS, type PolicyKind, type PolicyView } from '../../policies/service.ts';
import { button, fieldErrors, field, form, isFormError, listPage, pager, select, table, when, type FieldErrors, searchForm } from '../components.ts';
import { html, path, type Html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';

const policiesUrl = (org: string) => path`/app/${org}/settings/policies`;
const policyUrl = (org: string, id: string) => path`/app/${org}/settings/policies/${id}`;

interface PolicyValues {
  name?: string;
  description?: string | null;
  kind?: PolicyKind;
  query?: string | null;
  level?: string;
  source?: string;
}

const levelOptions = (): Array<[string, string]> => [...new Set([...LEVELS.sentinel, ...LEVELS.opa])].map((l) => [l, l]);

function policyFields(values: PolicyValues, errors: FieldErrors, creating: boolean): Html {
  return html`${creating ? field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, maxlength: 255 }) : ''}
  ${field({ label: 'Description', name: 'description', type: 'textarea', value: values.description ?? '', error: errors.description })}
  ${
    creating
      ? select({
          label: 'Kind',
          name: 'kind',
          value: values.kind ?? 'sentinel',
          options: [
            ['sentinel', 'Sentinel'],
            ['opa', 'OPA (kept, not evaluated)'],
          ],
        })
      : ''
  }
  ${values.kind === 'opa' || creating ? field({ label: 'Query (OPA only)', name: 'query', value: values.query ?? '', error: errors.query }) : ''}
  ${select({
    label: 'Enforcement level',
    name: 'enforcement-level',
    value: values.level ?? 'hard-mandatory',
    error: errors['enforcement-level'],
    hint: 'Sentinel: advisory, soft-mandatory or hard-mandatory. OPA: advisory or mandatory.',
    options: levelOptions(),
  })}
  ${field({ label: 'Source', name: 'source', type: 'textarea', value: values.source ?? '', error: errors.source, hint: 'The policy file itself.' })}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function policyPages(pages: Pages): void {
  const { policies, organizations } = pages.services;

  const createForm = (p: PageContext, org: string, values: PolicyValues, errors: FieldErrors = {}) =>
    form({ action: policiesUrl(org), csrf: p.csrf, label: 'New policy', submit: 'Create policy', error: errors[''], body: policyFields(values, errors, true) });

  pages.get('/:org/settings/policies', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const [shown, list] = await Promise.all([organizations.show(p.caller, org), policies.list(p.caller, org, { search: q }, page)]);
    const body = html`${searchForm({ action: policiesUrl(org), id: 'policy-q', label: 'Search policies', value: q })}
    ${table({
      caption: 'Policies',
      captionHidden: true,
      head: ['Name', 'Description', 'Kind', 'Enforcement', 'Policy sets', 'Updated'],
      rows: list.items.map((v) => [
        html`<a href="${policyUrl(org, v.policy.id)}">${v.policy.name}</a>`,
        v.policy.description ?? '',
        v.policy.kind,
        v.policy.enforcementLevel,
        String(v.policySetIds.length),
        when(v.policy.updatedAt),
      ]),
      empty: q ? 'No policy matches.' : 'No policies yet.',
    })}
    ${pager({ base: policiesUrl(org), query: { q }, page, total: list.total, noun: 'policies' })}
    ${
      shown.permissions['can-manage-policies']
        ? html`<h2>New policy</h2>
            ${createForm(p, org, {})}`
        : ''
    }`;
    return p.render({ title: 'Policies', org, section: 'policies', body });
  });

  pages.post('/:org/settings/policies', async (p) => {
    const org = p.params.org!;
    const kind: PolicyKind = p.form.get('kind') === 'opa' ? 'opa' : 'sentinel';
    const values: PolicyValues = {
      name: p.form.get('name')?.trim() ?? '',
      description: p.form.get('description') || null,
      kind,
      query: p.form.get('query') || null,
      level: p.form.get('enforcement-level') ?? undefined,
      source: p.form.get('source') ?? '',
    };
    let created: PolicyView;
    try {
      created = await policies.create(p.caller, org, {
        name: values.name!,
        description: values.description,
        kind,
        query: values.query,
        enforcementLevel: values.level,
      });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'New policy', org, section: 'policies', body: createForm(p, org, values, fieldErrors(error)) }, 422);
    }
    await policies.upload(p.caller, created.policy.id, encoder.encode(values.source));
    return p.redirect(policyUrl(org, created.policy.id), `Policy ${created.policy.name} created.`);
  });

  async function policyPage(p: PageContext, problem?: { errors: FieldErrors; values: PolicyValues }, status = 200) {
    const org = p.params.org!;
    const [view, shown] = await Promise.all([policies.show(p.caller, p.params.policy!), organizations.show(p.caller, org)]);
    if (view.organizationName !== org) return p.render({ title: 'Not found', body: html`<p>There is nothing here, or you may not see it.</p>` }, 404);
    const { policy } = view;
    const source = await policies.download(p.caller, policy.id).then(
      (bytes) => decoder.decode(bytes),
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return '';
        throw e;
      },
    );
    const manage = shown.permissions['can-manage-policies'];
    const values = problem?.values ?? { description: policy.description, kind: policy.kind, query: policy.query, level: policy.enforcementLevel, source };
    const body = manage
      ? html`${form({
            action: policyUrl(org, policy.id),
            csrf: p.csrf,
            label: 'Policy',
            submit: 'Save policy',
            error: problem?.errors[''],
            body: html`<dl class="facts">
                <dt>Kind</dt>
                <dd>${policy.kind}</dd>
              </dl>
              ${policyFields(values, problem?.errors ?? {}, false)}`,
          })}
          <h2>Delete the policy</h2>
          ${button({
            action: path`/app/${org}/settings/policies/${policy.id}/delete`,
            csrf: p.csrf,
            label: 'Delete policy',
            danger: true,
            confirm: `Delete the policy ${policy.name}? The sets holding it let it go.`,
          })}`
      : html`<dl class="facts">
            <dt>Description</dt>
            <dd>${policy.description ?? ''}</dd>
            <dt>Kind</dt>
            <dd>${policy.kind}</dd>
            <dt>Enforcement</dt>
            <dd>${policy.enforcementLevel}</dd>
          </dl>
          <h2>Source</h2>
          <pre class="source">${source}</pre>`;
    return p.render({ title: `Policy ${policy.name}`, org, section: 'policies', crumbs: [['Policies', policiesUrl(org)]], body }, status);
  }

  pages.get('/:org/settings/policies/:policy', (p) => policyPage(p));

  pages.post('/:org/settings/policies/:policy', async (p) => {
    const id = p.params.policy!;
    const values: PolicyValues = {
      description: p.form.get('description') || null,
      query: p.form.get('query') || null,
      level: p.form.get('enforcement-level') ?? undefined,
      source: p.form.get('source') ?? '',
    };
    try {
      const updated = await policies.update(p.caller, id, { description: values.description, query: values.query, enforcementLevel: values.level });
      values.kind = updated.policy.kind;
    } catch (error) {
      if (!isFormError(error)) throw error;
      return policyPage(p, { errors: fieldErrors(error), values }, 422);
    }
    await policies.upload(p.caller, id, encoder.encode(values.source));
    return p.redirect(policyUrl(p.params.org!, id), 'Policy saved.');
  });

  pages.post('/:org/settings/policies/:policy/delete', async (p) => {
    await policies.destroy(p.caller, p.params.policy!);
    return p.redirect(policiesUrl(p.params.org!), 'Policy deleted.');
  });
}

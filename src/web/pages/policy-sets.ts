// Policy sets (TFE: Settings → Policy sets): the list, creating one, and a set's page: its
// settings, the policies it holds, its parameters, deleting it. A sensitive parameter's value is
// write-only: the page never has it (the service answers `value: null`), its field says so, and
// leaving the field empty keeps the value. Everything through the services with the caller.
import type { Parameter } from '../../policy-set-parameters/service.ts';
import type { PolicySetView } from '../../policy-sets/service.ts';
import {
  button,
  checkbox,
  fieldErrors,
  field,
  form,
  isFormError,
  listPage,
  firstRows,
  pager,
  select,
  table,
  when,
  type FieldErrors,
  searchForm,
} from '../components.ts';
import { html, path, type Html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';

/** A set holds at most 100 parameters (policy-set-parameters/service.ts): one page shows them all. */
const ALL_PARAMETERS = firstRows(100);
/** The policies offered to attach (the API's largest page). */
const POLICY_CHOICES = firstRows(100);

export const SENSITIVE_HINT = 'sensitive, write-only';

const setsUrl = (org: string) => path`/app/${org}/settings/policy-sets`;
const setUrl = (org: string, id: string) => path`/app/${org}/settings/policy-sets/${id}`;

interface SetValues {
  name?: string;
  description?: string | null;
  kind?: string;
  global?: boolean;
  overridable?: boolean;
}

const checked = (form: URLSearchParams, name: string) => form.get(name) === 'true';

function setFields(values: SetValues, errors: FieldErrors, creating: boolean): Html {
  return html`${field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, maxlength: 255 })}
  ${field({ label: 'Description', name: 'description', type: 'textarea', value: values.description ?? '', error: errors.description })}
  ${
    creating
      ? select({
          label: 'Kind',
          name: 'kind',
          value: values.kind ?? 'sentinel',
          error: errors.kind,
          options: [
            ['sentinel', 'Sentinel'],
            ['opa', 'OPA (kept, not evaluated)'],
          ],
        })
      : ''
  }
  ${checkbox({ label: 'Global: applies to every workspace', name: 'global', checked: values.global })}
  ${checkbox({ label: 'Overridable: a soft-mandatory failure can be overridden', name: 'overridable', checked: values.overridable })}`;
}

export function policySetPages(pages: Pages): void {
  const { policySets, policySetParameters: parameters, policies, organizations } = pages.services;

  const createForm = (p: PageContext, org: string, values: SetValues, errors: FieldErrors = {}) =>
    form({
      action: setsUrl(org),
      csrf: p.csrf,
      label: 'New policy set',
      submit: 'Create policy set',
      error: errors[''] ?? errors.global,
      body: setFields(values, errors, true),
    });

  pages.get('/:org/settings/policy-sets', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const [shown, list] = await Promise.all([organizations.show(p.caller, org), policySets.list(p.caller, org, { search: q }, page)]);
    const body = html`${searchForm({ action: setsUrl(org), id: 'set-q', label: 'Search policy sets', value: q })}
    ${table({
      caption: 'Policy sets',
      captionHidden: true,
      head: ['Name', 'Description', 'Kind', 'Scope', 'Policies', 'Updated'],
      rows: list.items.map((v) => [
        html`<a href="${setUrl(org, v.set.id)}">${v.set.name}</a>`,
        v.set.description ?? '',
        v.set.kind,
        v.set.global ? 'global' : `${v.projectIds.length} projects, ${v.workspaceIds.length} workspaces`,
        String(v.versions.newest ? v.versions.policyCount : v.policyIds.length),
        when(v.set.updatedAt),
      ]),
      empty: q ? 'No policy set matches.' : 'No policy sets yet.',
    })}
    ${pager({ base: setsUrl(org), query: { q }, page, total: list.total, noun: 'policy sets' })}
    ${
      shown.permissions['can-manage-policies']
        ? html`<h2>New policy set</h2>
            ${createForm(p, org, {})}`
        : ''
    }`;
    return p.render({ title: 'Policy sets', org, section: 'policy-sets', body });
  });

  pages.post('/:org/settings/policy-sets', async (p) => {
    const org = p.params.org!;
    const values = {
      name: p.form.get('name')?.trim() ?? '',
      description: p.form.get('description') || null,
      kind: p.form.get('kind') === 'opa' ? ('opa' as const) : ('sentinel' as const),
      global: checked(p.form, 'global'),
      overridable: checked(p.form, 'overridable'),
    };
    let created: PolicySetView;
    try {
      created = await policySets.create(p.caller, org, values);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'New policy set', org, section: 'policy-sets', body: createForm(p, org, values, fieldErrors(error)) }, 422);
    }
    return p.redirect(setUrl(org, created.set.id), `Policy set ${created.set.name} created.`);
  });

  interface Problems {
    settings?: { errors: FieldErrors; values: SetValues };
    parameter?: { id: string | null; errors: FieldErrors; key?: string; sensitive?: boolean };
    policies?: string;
  }

  function parameterRow(p: PageContext, org: string, setId: string, v: Parameter, manage: boolean): unknown[] {
    const value = v.sensitive ? html`<span class="badge">${SENSITIVE_HINT}</span>` : html`<code>${v.value ?? ''}</code>`;
    if (!manage) return [v.key, value];
    return [
      v.key,
      value,
      button({
        action: path`/app/${org}/settings/policy-sets/${setId}/parameters/${v.id}/delete`,
        csrf: p.csrf,
        label: 'Delete',
        danger: true,
        accessibleLabel: `Delete parameter ${v.key}`,
        confirm: `Delete the parameter ${v.key}?`,
      }),
    ];
  }

  /** A parameter's form, folded under its key (a form per table cell would not fit a phone); open when it was refused. */
  function parameterForm(p: PageContext, org: string, setId: string, v: Parameter, problem: Problems['parameter']): Html {
    const refused = problem?.id === v.id;
    const mine = refused ? problem.errors : {};
    return html`<details ${refused ? html` open` : ''}>
      <summary>Change ${v.key}</summary>
      ${form({
        action: path`/app/${org}/settings/policy-sets/${setId}/parameters/${v.id}`,
        csrf: p.csrf,
        label: `Change ${v.key}`,
        submit: `Save ${v.key}`,
        error: mine[''],
        body: html`${field({ label: `Key of ${v.key}`, name: 'key', value: refused ? problem.key : v.key, required: true, error: mine.key })}
        ${field({
          label: `Value of ${v.key}`,
          name: 'value',
          // A sensitive value is never sent back: the field starts empty, and empty keeps it.
          value: v.sensitive ? '' : (v.value ?? ''),
          hint: v.sensitive ? `${SENSITIVE_HINT}: leave empty to keep the current value` : undefined,
          error: mine.value,
          autocomplete: 'off',
        })}
        ${v.sensitive ? '' : checkbox({ label: `Make ${v.key} sensitive (cannot be undone)`, name: 'sensitive' })}`,
      })}
    </details>`;
  }

  async function setPage(p: PageContext, problems: Problems = {}, status = 200) {
    const org = p.params.org!;
    const view = await policySets.show(p.caller, p.params.set!);
    if (view.organizationName !== org) return p.render({ title: 'Not found', body: html`<p>There is nothing here, or you may not see it.</p>` }, 404);
    const { set } = view;
    const manage = await policySets.may(p.caller, set.id, 'manage-policies');
    const params = await parameters.list(p.caller, set.id, ALL_PARAMETERS);
    const held = (await policySets.included([view], ['policies'])).policies;
    const versioned = view.versions.newest !== null;
    const url = setUrl(org, set.id);

    const settings = manage
      ? form({
          action: url,
          csrf: p.csrf,
          label: 'Policy set settings',
          submit: 'Save policy set',
          error: problems.settings?.errors[''] ?? problems.settings?.errors.global,
          body: setFields(problems.settings?.values ?? set, problems.settings?.errors ?? {}, false),
        })
      : html`<dl class="facts">
          <dt>Description</dt>
          <dd>${set.description ?? ''}</dd>
          <dt>Kind</dt>
          <dd>${set.kind}</dd>
          <dt>Global</dt>
          <dd>${set.global ? 'yes' : 'no'}</dd>
          <dt>Overridable</dt>
          <dd>${set.overridable ? 'yes' : 'no'}</dd>
        </dl>`;

    let attach: Html | string = '';
    if (manage && !versioned) {
      const all = await policies.list(p.caller, org, { kind: set.kind }, POLICY_CHOICES);
      const heldIds = new Set(view.policyIds);
      const choices = all.items.filter((v) => !heldIds.has(v.policy.id));
      attach = choices.length
        ? form({
            action: path`/app/${org}/settings/policy-sets/${set.id}/policies`,
            csrf: p.csrf,
            label: 'Add a policy',
            submit: 'Add policy',
            error: problems.policies,
            body: select({ label: 'Policy', name: 'policy', options: choices.map((v) => [v.policy.id, v.policy.name]) }),
          })
        : html`<p class="muted">No other ${set.kind} policies to add. <a href="${path`/app/${org}/settings/policies`}">Write one</a>.</p>`;
    }

    const newParameter = problems.parameter?.id === null ? problems.parameter : undefined;
    const body = html`${settings}
      <h2>Policies</h2>
      ${versioned ? html`<p class="muted">This set's policies come from its uploaded versions.</p>` : ''}
      ${table({
        caption: `Policies of ${set.name}`,
        captionHidden: true,
        head: manage && !versioned ? ['Name', 'Enforcement', 'Action'] : ['Name', 'Enforcement'],
        rows: held.map((v) => {
          const row: unknown[] = [html`<a href="${path`/app/${org}/settings/policies/${v.policy.id}`}">${v.policy.name}</a>`, v.policy.enforcementLevel];
          if (manage && !versioned)
            row.push(
              button({
                action: path`/app/${org}/settings/policy-sets/${set.id}/policies/${v.policy.id}/remove`,
                csrf: p.csrf,
                label: 'Remove',
                accessibleLabel: `Remove ${v.policy.name} from the set`,
              }),
            );
          return row;
        }),
        empty: 'The set holds no policies.',
      })}
      ${attach}
      <h2>Parameters</h2>
      ${table({
        caption: `Parameters of ${set.name}`,
        captionHidden: true,
        head: manage ? ['Key', 'Value', 'Action'] : ['Key', 'Value'],
        rows: params.items.map((v) => parameterRow(p, org, set.id, v, manage)),
        empty: 'No parameters.',
      })}
      ${manage ? params.items.map((v) => parameterForm(p, org, set.id, v, problems.parameter)) : ''}
      ${
        manage
          ? html`<h3>New parameter</h3>
              ${form({
                action: path`/app/${org}/settings/policy-sets/${set.id}/parameters`,
                csrf: p.csrf,
                label: 'New parameter',
                submit: 'Add parameter',
                error: newParameter?.errors[''],
                body: html`${field({ label: 'Key', name: 'key', value: newParameter?.key, required: true, error: newParameter?.errors.key })}
                ${field({ label: 'Value', name: 'value', error: newParameter?.errors.value, autocomplete: 'off' })}
                ${checkbox({
                  label: 'Sensitive',
                  name: 'sensitive',
                  checked: newParameter?.sensitive,
                  hint: 'A sensitive value is encrypted and never shown again, here or through the API.',
                })}`,
              })}
              <h2>Delete the policy set</h2>
              ${button({
                action: path`/app/${org}/settings/policy-sets/${set.id}/delete`,
                csrf: p.csrf,
                label: 'Delete policy set',
                danger: true,
                confirm: `Delete the policy set ${set.name} and its parameters?`,
              })}`
          : ''
      }`;
    return p.render({ title: `Policy set ${set.name}`, org, section: 'policy-sets', crumbs: [['Policy sets', setsUrl(org)]], body }, status);
  }

  pages.get('/:org/settings/policy-sets/:set', (p) => setPage(p));

  pages.post('/:org/settings/policy-sets/:set', async (p) => {
    const values = {
      name: p.form.get('name')?.trim() ?? '',
      description: p.form.get('description') || null,
      global: checked(p.form, 'global'),
      overridable: checked(p.form, 'overridable'),
    };
    try {
      await policySets.update(p.caller, p.params.set!, values);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return setPage(p, { settings: { errors: fieldErrors(error), values } }, 422);
    }
    return p.redirect(setUrl(p.params.org!, p.params.set!), 'Policy set saved.');
  });

  pages.post('/:org/settings/policy-sets/:set/delete', async (p) => {
    await policySets.destroy(p.caller, p.params.set!);
    return p.redirect(setsUrl(p.params.org!), 'Policy set deleted.');
  });

  pages.post('/:org/settings/policy-sets/:set/policies', async (p) => {
    try {
      await policySets.attach(p.caller, p.params.set!, 'policies', [p.form.get('policy') ?? '']);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return setPage(p, { policies: Object.values(fieldErrors(error)).join('; ') }, 422);
    }
    return p.redirect(setUrl(p.params.org!, p.params.set!), 'Policy added.');
  });

  pages.post('/:org/settings/policy-sets/:set/policies/:policy/remove', async (p) => {
    await policySets.detach(p.caller, p.params.set!, 'policies', [p.params.policy!]);
    return p.redirect(setUrl(p.params.org!, p.params.set!), 'Policy removed from the set.');
  });

  pages.post('/:org/settings/policy-sets/:set/parameters', async (p) => {
    const key = p.form.get('key')?.trim() ?? '';
    const sensitive = checked(p.form, 'sensitive');
    try {
      await parameters.create(p.caller, p.params.set!, { key, value: p.form.get('value') ?? '', sensitive });
    } catch (error) {
      if (!isFormError(error)) throw error;
      // The value is not sent back, sensitive or not: the person types it again.
      return setPage(p, { parameter: { id: null, errors: fieldErrors(error), key, sensitive } }, 422);
    }
    return p.redirect(setUrl(p.params.org!, p.params.set!), `Parameter ${key} added.`);
  });

  pages.post('/:org/settings/policy-sets/:set/parameters/:parameter', async (p) => {
    const id = p.params.parameter!;
    const key = p.form.get('key')?.trim() ?? '';
    const current = await parameters.show(p.caller, p.params.set!, id);
    const typed = p.form.get('value') ?? '';
    // Empty keeps a sensitive value (it was never shown, so the field starts empty).
    const value = current.sensitive && typed === '' ? undefined : typed;
    try {
      await parameters.update(p.caller, p.params.set!, id, undefined, { key, value, ...(checked(p.form, 'sensitive') ? { sensitive: true } : {}) });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return setPage(p, { parameter: { id, errors: fieldErrors(error), key } }, 422);
    }
    return p.redirect(setUrl(p.params.org!, p.params.set!), `Parameter ${key} saved.`);
  });

  pages.post('/:org/settings/policy-sets/:set/parameters/:parameter/delete', async (p) => {
    await parameters.destroy(p.caller, p.params.set!, p.params.parameter!);
    return p.redirect(setUrl(p.params.org!, p.params.set!), 'Parameter deleted.');
  });
}

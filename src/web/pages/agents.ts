// Agent pools (TFE: Settings → Agents): the list, creating a pool, and a pool's page: renaming it,
// its agents (deleting one that stopped), its tokens (a new one's secret shown once, with a copy
// button), deleting it. A pool's tokens exist only for those who manage pools, as in the API.
import type { AgentPoolView } from '../../agent-pools/service.ts';
import { ApiError, errors } from '../../jsonapi/errors.ts';
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
  table,
  when,
  type FieldErrors,
  searchForm,
} from '../components.ts';
import { html, path, type Html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';
import { shownOnce } from './shown-once.ts';

/** A pool's agents and tokens, shown on its page (the API's largest page each). */
const FIRST_HUNDRED = firstRows(100);

const poolsUrl = (org: string) => path`/app/${org}/settings/agents`;
const poolUrl = (org: string, id: string) => path`/app/${org}/settings/agents/${id}`;

export function agentPages(pages: Pages): void {
  const { agentPools, agents, tokens, organizations } = pages.services;

  const createForm = (p: PageContext, org: string, values: { name?: string }, errors: FieldErrors = {}) =>
    form({
      action: poolsUrl(org),
      csrf: p.csrf,
      label: 'New agent pool',
      submit: 'Create agent pool',
      error: errors[''],
      body: field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, maxlength: 255 }),
    });

  pages.get('/:org/settings/agents', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const [shown, list] = await Promise.all([organizations.show(p.caller, org), agentPools.list(p.caller, org, { search: q }, page)]);
    const body = html`${searchForm({ action: poolsUrl(org), id: 'pool-q', label: 'Search agent pools', value: q })}
    ${table({
      caption: 'Agent pools',
      captionHidden: true,
      head: ['Name', 'Agents', 'Scope', 'Created'],
      rows: list.items.map((v) => [
        html`<a href="${poolUrl(org, v.pool.id)}">${v.pool.name}</a>`,
        String(v.agentCount),
        v.pool.organizationScoped ? 'every workspace' : `${v.allowedWorkspaceIds.length} workspaces`,
        when(v.pool.createdAt),
      ]),
      empty: q ? 'No agent pool matches.' : 'No agent pools yet.',
    })}
    ${pager({ base: poolsUrl(org), query: { q }, page, total: list.total, noun: 'agent pools' })}
    ${
      shown.permissions['can-update-agent-pools']
        ? html`<h2>New agent pool</h2>
            ${createForm(p, org, {})}`
        : ''
    }`;
    return p.render({ title: 'Agent pools', org, section: 'agents', body });
  });

  pages.post('/:org/settings/agents', async (p) => {
    const org = p.params.org!;
    const name = p.form.get('name')?.trim() ?? '';
    let created: AgentPoolView;
    try {
      created = await agentPools.create(p.caller, org, { name });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'New agent pool', org, section: 'agents', body: createForm(p, org, { name }, fieldErrors(error)) }, 422);
    }
    return p.redirect(poolUrl(org, created.pool.id), `Agent pool ${created.pool.name} created.`);
  });

  interface Extra {
    secret?: string;
    settings?: { errors: FieldErrors; name: string };
    token?: { errors: FieldErrors; description: string };
  }

  async function poolPage(p: PageContext, extra: Extra = {}, status = 200) {
    const org = p.params.org!;
    const [view, shown] = await Promise.all([agentPools.show(p.caller, p.params.pool!), organizations.show(p.caller, org)]);
    if (view.organizationName !== org) return p.render({ title: 'Not found', body: html`<p>There is nothing here, or you may not see it.</p>` }, 404);
    const { pool } = view;
    const manage = shown.permissions['can-update-agent-pools'];
    const running = await agents.list(p.caller, pool.id, undefined, FIRST_HUNDRED);

    let tokenSection: Html | string = '';
    if (manage) {
      const list = await agentPools.listTokens(p.caller, pool.id, undefined, FIRST_HUNDRED);
      tokenSection = html`<h2>Tokens</h2>
        ${
          extra.secret
            ? shownOnce({
                secret: extra.secret,
                what: 'agent token',
                subsection: true,
                after: html`<p>An agent authenticates with it at <code>/api/agent</code>.</p>`,
              })
            : ''
        }
        ${table({
          caption: `Tokens of ${pool.name}`,
          captionHidden: true,
          head: ['Description', 'Created', 'Last used', 'Action'],
          rows: list.items.map((t) => [
            t.description ?? '',
            when(t.createdAt),
            when(t.lastUsedAt),
            button({
              action: path`/app/${org}/settings/agents/${pool.id}/tokens/${t.id}/delete`,
              csrf: p.csrf,
              label: 'Revoke',
              danger: true,
              accessibleLabel: `Revoke the token ${t.description ?? t.id}`,
              confirm: 'Revoke this token? Agents using it stop at once.',
            }),
          ]),
          empty: 'The pool has no tokens.',
        })}
        ${form({
          action: path`/app/${org}/settings/agents/${pool.id}/tokens`,
          csrf: p.csrf,
          label: 'New agent token',
          submit: 'Create token',
          error: extra.token?.errors[''],
          body: field({
            label: 'Token description',
            name: 'description',
            value: extra.token?.description,
            required: true,
            error: extra.token?.errors.description,
          }),
        })}`;
    }

    const body = html`${
        manage
          ? form({
              action: poolUrl(org, pool.id),
              csrf: p.csrf,
              label: 'Agent pool settings',
              submit: 'Save agent pool',
              error: extra.settings?.errors[''],
              body: html`${field({
                label: 'Name',
                name: 'name',
                value: extra.settings?.name ?? pool.name,
                required: true,
                error: extra.settings?.errors.name,
                maxlength: 255,
              })}
              ${checkbox({ label: 'Every workspace of the organization may use it', name: 'organization-scoped', checked: pool.organizationScoped })}`,
            })
          : ''
      }
      ${tokenSection}
      <h2>Agents</h2>
      ${table({
        caption: `Agents of ${pool.name}`,
        captionHidden: true,
        head: manage ? ['Name', 'Status', 'Address', 'Last ping', 'Action'] : ['Name', 'Status', 'Address', 'Last ping'],
        rows: running.items.map((a) => {
          const row: unknown[] = [a.agent.name ?? a.agent.id, a.status, a.agent.ipAddress ?? '', when(a.lastPingAt)];
          if (manage)
            row.push(
              a.status === 'idle' || a.status === 'busy'
                ? ''
                : button({
                    action: path`/app/${org}/settings/agents/${pool.id}/agents/${a.agent.id}/delete`,
                    csrf: p.csrf,
                    label: 'Delete',
                    danger: true,
                    accessibleLabel: `Delete agent ${a.agent.name ?? a.agent.id}`,
                  }),
            );
          return row;
        }),
        empty: 'No agents have registered with this pool.',
      })}
      ${
        manage
          ? html`<h2>Delete the agent pool</h2>
              ${button({
                action: path`/app/${org}/settings/agents/${pool.id}/delete`,
                csrf: p.csrf,
                label: 'Delete agent pool',
                danger: true,
                confirm: `Delete the agent pool ${pool.name}? Its tokens stop working at once.`,
              })}`
          : ''
      }`;
    return p.render({ title: `Agent pool ${pool.name}`, org, section: 'agents', crumbs: [['Agent pools', poolsUrl(org)]], body }, status);
  }

  pages.get('/:org/settings/agents/:pool', (p) => poolPage(p));

  pages.post('/:org/settings/agents/:pool', async (p) => {
    const name = p.form.get('name')?.trim() ?? '';
    try {
      await agentPools.update(p.caller, p.params.pool!, { name, organizationScoped: p.form.get('organization-scoped') === 'true' });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return poolPage(p, { settings: { errors: fieldErrors(error), name } }, 422);
    }
    return p.redirect(poolUrl(p.params.org!, p.params.pool!), 'Agent pool saved.');
  });

  pages.post('/:org/settings/agents/:pool/delete', async (p) => {
    try {
      await agentPools.destroy(p.caller, p.params.pool!);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(poolUrl(p.params.org!, p.params.pool!), { kind: 'error', text: Object.values(fieldErrors(error)).join('; ') });
    }
    return p.redirect(poolsUrl(p.params.org!), 'Agent pool deleted.');
  });

  // The secret is on this answer only: the pool's page, reloaded, lists the token without it.
  pages.post('/:org/settings/agents/:pool/tokens', async (p) => {
    const description = p.form.get('description')?.trim() ?? '';
    let secret: string;
    try {
      secret = (await agentPools.createToken(p.caller, p.params.pool!, { description })).secret;
    } catch (error) {
      if (!isFormError(error)) throw error;
      return poolPage(p, { token: { errors: fieldErrors(error), description } }, 422);
    }
    return poolPage(p, { secret });
  });

  pages.post('/:org/settings/agents/:pool/tokens/:token/delete', async (p) => {
    // Only this pool's tokens at this address (the tokens service checks who may revoke it).
    const token = await tokens.show(p.caller, p.params.token!);
    if (token.agentPoolId !== p.params.pool) throw errors.notFound();
    await tokens.destroy(p.caller, token.id);
    return p.redirect(poolUrl(p.params.org!, p.params.pool!), 'Token revoked.');
  });

  pages.post('/:org/settings/agents/:pool/agents/:agent/delete', async (p) => {
    try {
      await agents.destroy(p.caller, p.params.agent!);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 412)) throw error;
      return p.redirect(poolUrl(p.params.org!, p.params.pool!), { kind: 'error', text: error.errors[0]?.detail ?? 'The agent is running.' });
    }
    return p.redirect(poolUrl(p.params.org!, p.params.pool!), 'Agent deleted.');
  });
}

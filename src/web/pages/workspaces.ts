// Workspaces: the list, creating one, and a workspace's pages: overview (lock, latest runs),
// runs (with their live logs and the apply / discard buttons), states and outputs (sensitive
// values hidden), variables (sensitive values never shown), run triggers (the workspaces whose
// applies queue runs here), settings (execution mode among them).
// Each page asks the services with the person's Caller, as the API routes do.
import type { Caller } from '../../auth/caller.ts';
import { isFinal } from '../../runs/statuses.ts';
import { errors } from '../../jsonapi/errors.ts';
import type { WorkspaceView } from '../../workspace-views/service.ts';
import { button, checkbox, field, fieldErrors, form, isFormError, listPage, firstRows, pager, select, table, when, type FieldErrors } from '../components.ts';
import { html, path, type Html } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';

/** The most of a log a page shows (the API serves the whole log). */
const LOG_LIMIT = 512 * 1024;
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

const TABS: Array<[string, string]> = [
  ['', 'Overview'],
  ['runs', 'Runs'],
  ['states', 'States'],
  ['variables', 'Variables'],
  ['run-triggers', 'Run triggers'],
  ['settings', 'Settings'],
];

export function workspacePages(pages: Pages): void {
  const { workspaces, workspaceViews, workspaceLocks, variables, stateVersions, runs, runTriggers, planExports, jobs, projects } = pages.services;

  const find = async (p: PageContext): Promise<WorkspaceView> =>
    workspaceViews.one(await workspaces.show(p.caller, { organizationName: p.params.org!, name: p.params.name! }));
  const home = (org: string, name: string) => path`/app/${org}/workspaces/${name}`;

  /** A workspace page in the frame: its tabs above, the current one marked. */
  function frame(p: PageContext, view: WorkspaceView, tab: string, title: string, body: Html, status?: number) {
    const org = view.organizationName;
    const base = home(org, view.workspace.name);
    const tabs = html`<nav aria-label="Workspace">
      <ul class="crumbs tabs">
        ${TABS.map(([id, label]) => html`<li><a href="${id ? `${base}/${id}` : base}" ${id === tab ? html` aria-current="page"` : ''}>${label}</a></li>`)}
      </ul>
    </nav>`;
    return p.render(
      {
        title,
        org,
        section: 'workspaces',
        crumbs: [
          ['Workspaces', path`/app/${org}/workspaces`],
          [view.workspace.name, base],
        ],
        body: html`${tabs} ${body}`,
      },
      status,
    );
  }

  const createForm = (
    p: PageContext,
    org: string,
    projectOptions: Array<[string, string]>,
    values: { name?: string; project?: string },
    errors: FieldErrors = {},
  ) =>
    form({
      action: path`/app/${org}/workspaces`,
      csrf: p.csrf,
      submit: 'Create workspace',
      label: 'New workspace',
      error: errors[''] ?? errors.id,
      body: html`${field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, hint: 'Letters, digits, - and _.' })}
      ${select({ label: 'Project', name: 'project', value: values.project, options: projectOptions })}`,
    });

  async function projectOptions(caller: Caller, org: string): Promise<Array<[string, string]>> {
    const { items } = await projects.list(caller, org, { canCreateWorkspace: true, canUpdate: false, sort: { descending: false } }, firstRows(100));
    return items.map((v) => [v.project.id, v.project.name]);
  }

  pages.get('/:org/workspaces', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const project = p.query.project || undefined;
    const [list, options] = await Promise.all([
      workspaces.list(p.caller, org, { search: q, projectId: project, descending: false, sort: 'name' }, page).then(workspaceViews.page),
      projectOptions(p.caller, org),
    ]);
    const body = html`<form method="get" action="${path`/app/${org}/workspaces`}" class="toolbar" role="search" aria-label="Find workspaces">
        <div class="field grow"><label for="ws-q">Search by name</label><input type="search" id="ws-q" name="q" value="${q ?? ''}" /></div>
        ${project ? html`<input type="hidden" name="project" value="${project}" />` : ''}
        <button type="submit" class="secondary">Search</button>
      </form>
      ${table({
        caption: 'Workspaces',
        captionHidden: true,
        head: ['Name', 'Project', 'Execution', 'Locked'],
        rows: list.items.map((v) => [
          html`<a href="${home(org, v.workspace.name)}">${v.workspace.name}</a>`,
          html`<a href="${path`/app/${org}/projects/${v.project.id}`}">${v.project.name}</a>`,
          v.execution.mode,
          v.lock ? 'Locked' : 'No',
        ]),
        empty: q ? 'No workspace matches.' : 'No workspaces yet.',
      })}
      ${pager({ base: path`/app/${org}/workspaces`, query: { q, project }, page, total: list.total, noun: 'workspaces' })}
      ${
        options.length
          ? html`<h2>New workspace</h2>
              ${createForm(p, org, options, { project })}`
          : ''
      }`;
    return p.render({ title: 'Workspaces', org, section: 'workspaces', body });
  });

  pages.post('/:org/workspaces', async (p) => {
    const org = p.params.org!;
    const values = { name: p.form.get('name')?.trim() ?? '', project: p.form.get('project') ?? '' };
    try {
      await workspaces.create(p.caller, org, { name: values.name, projectId: values.project || undefined, settings: {} });
    } catch (error) {
      if (!isFormError(error)) throw error;
      const body = createForm(p, org, await projectOptions(p.caller, org), values, fieldErrors(error));
      return p.render({ title: 'New workspace', org, section: 'workspaces', body }, 422);
    }
    return p.redirect(home(org, values.name), `Workspace ${values.name} created.`);
  });

  function runRows(org: string, name: string, items: Array<{ run: { id: string; status: string; message: string; createdAt: string } }>) {
    return items.map((v) => [
      html`<a href="${path`/app/${org}/workspaces/${name}/runs/${v.run.id}`}">${v.run.id}</a>`,
      html`<span class="badge">${v.run.status}</span>`,
      v.run.message,
      when(v.run.createdAt),
    ]);
  }

  pages.get('/:org/workspaces/:name', async (p) => {
    const view = await find(p);
    const { workspace, permissions } = view;
    const org = view.organizationName;
    const base = home(org, workspace.name);
    const latest = await runs.list(p.caller, workspace.id, firstRows(5));
    const lockControls = view.lock
      ? permissions['can-unlock'] || permissions['can-force-unlock']
        ? button({ action: `${base}/unlock`, csrf: p.csrf, label: 'Unlock' })
        : ''
      : permissions['can-lock']
        ? form({
            action: `${base}/lock`,
            csrf: p.csrf,
            className: 'toolbar',
            label: 'Lock the workspace',
            submit: 'Lock',
            body: html`<div class="field grow"><label for="lock-reason">Reason (optional)</label><input type="text" id="lock-reason" name="reason" /></div>`,
          })
        : '';
    const body = html`<dl class="facts">
        <dt>ID</dt>
        <dd><code>${workspace.id}</code></dd>
        <dt>Project</dt>
        <dd><a href="${path`/app/${org}/projects/${view.project.id}`}">${view.project.name}</a></dd>
        <dt>Description</dt>
        <dd>${workspace.description || html`<span class="muted">None</span>`}</dd>
        <dt>Execution mode</dt>
        <dd>${view.execution.mode}${view.execution.own ? '' : ' (the organization’s default)'}</dd>
        <dt>Terraform version</dt>
        <dd>${workspace.terraformVersion}</dd>
        <dt>Resources</dt>
        <dd>${view.resourceCount}</dd>
        <dt>Lock</dt>
        <dd>${view.lock ? html`<span class="badge bad">Locked</span> ${view.lock.reason ?? ''}` : html`<span class="badge ok">Unlocked</span>`}</dd>
      </dl>
      ${lockControls}
      <h2>Latest runs</h2>
      ${table({ caption: 'Latest runs', captionHidden: true, head: ['Run', 'Status', 'Message', 'Created'], rows: runRows(org, workspace.name, latest.items), empty: 'No runs yet.' })}
      ${latest.total > latest.items.length ? html`<p><a href="${`${base}/runs`}">All ${latest.total} runs</a></p>` : ''}`;
    return frame(p, view, '', workspace.name, body);
  });

  pages.post('/:org/workspaces/:name/lock', async (p) => {
    const view = await find(p);
    const back = home(view.organizationName, view.workspace.name);
    try {
      await workspaceLocks.lock(p.caller, { id: view.workspace.id }, p.form.get('reason') || null);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(back, { kind: 'error', text: error.errors[0]?.detail ?? 'The workspace could not be locked.' });
    }
    return p.redirect(back, 'Workspace locked.');
  });

  pages.post('/:org/workspaces/:name/unlock', async (p) => {
    const view = await find(p);
    const back = home(view.organizationName, view.workspace.name);
    try {
      // Someone else's lock needs the force; the service says whether this person has it.
      if (view.lock && view.permissions['can-force-unlock'] && !(view.lock.holderType === 'users' && view.lock.holderId === p.user?.id)) {
        await workspaceLocks.forceUnlock(p.caller, { id: view.workspace.id });
      } else await workspaceLocks.unlock(p.caller, { id: view.workspace.id });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(back, { kind: 'error', text: error.errors[0]?.detail ?? 'The workspace could not be unlocked.' });
    }
    return p.redirect(back, 'Workspace unlocked.');
  });

  pages.get('/:org/workspaces/:name/runs', async (p) => {
    const view = await find(p);
    const page = listPage(p.query.page);
    const list = await runs.list(p.caller, view.workspace.id, page);
    const org = view.organizationName;
    const body = html`${table({ caption: 'Runs', captionHidden: true, head: ['Run', 'Status', 'Message', 'Created'], rows: runRows(org, view.workspace.name, list.items), empty: 'No runs yet.' })}
    ${pager({ base: `${home(org, view.workspace.name)}/runs`, query: {}, page, total: list.total, noun: 'runs' })}`;
    return frame(p, view, 'runs', `Runs of ${view.workspace.name}`, body);
  });

  /** The run, found for the caller, of the workspace the URL names. */
  async function runOf(p: PageContext) {
    const view = await find(p);
    const run = await runs.show(p.caller, p.params.run!);
    if (run.run.workspaceId !== view.workspace.id) throw errors.notFound();
    return { view, run };
  }

  async function logOf(p: PageContext, jobId: string, phase: 'plan' | 'apply'): Promise<{ text: string; complete: boolean }> {
    const { job } = await runs.phase(p.caller, jobId, phase);
    const framed = (await jobs.readLog(job, 0, LOG_LIMIT)).toString('utf8');
    return {
      text: framed
        .replace(/^\u0002/, '')
        .replace(/\u0003$/, '')
        .replace(ANSI, ''),
      complete: job.logComplete,
    };
  }

  pages.get('/:org/workspaces/:name/runs/:run', async (p) => {
    const { view, run } = await runOf(p);
    const org = view.organizationName;
    const base = path`/app/${org}/workspaces/${view.workspace.name}/runs/${run.run.id}`;
    const [plan, apply] = await Promise.all([logOf(p, run.plan.id, 'plan'), logOf(p, run.apply.id, 'apply')]);
    const done = isFinal(run.run.status);
    const canDiscard =
      run.run.status === 'planned' || run.run.status === 'policy_checked' || run.run.status === 'policy_override' || run.run.status === 'pending';
    const buttons = html`<div class="actions">
      ${
        run.may.apply && run.run.status === 'planned'
          ? button({ action: `${base}/apply`, csrf: p.csrf, label: 'Confirm and apply', confirm: 'Apply this plan?' })
          : ''
      }
      ${run.may.queue && canDiscard ? button({ action: `${base}/discard`, csrf: p.csrf, label: 'Discard run', confirm: 'Discard this run?', danger: true }) : ''}
      ${run.may.queue && !done && !canDiscard ? button({ action: `${base}/cancel`, csrf: p.csrf, label: 'Cancel run', confirm: 'Cancel this run?', danger: true }) : ''}
      ${run.may.downloadMocks && run.plan.status === 'finished' ? button({ action: `${base}/sentinel-mocks`, csrf: p.csrf, label: 'Download Sentinel mocks' }) : ''}
    </div>`;
    const follow = done ? '' : html` data-follow="${`${base}/log`}" data-status="run-status"`;
    const body = html`<dl class="facts">
        <dt>Status</dt>
        <dd><span class="badge" id="run-status">${run.run.status}</span></dd>
        <dt>Message</dt>
        <dd>${run.run.message}</dd>
        <dt>Created</dt>
        <dd>${when(run.run.createdAt)}</dd>
        <dt>Changes</dt>
        <dd>${run.plan.additions ?? 0} to add, ${run.plan.changes ?? 0} to change, ${run.plan.destructions ?? 0} to destroy</dd>
      </dl>
      ${buttons}
      <h2>Plan log</h2>
      <pre class="log" tabindex="0" aria-label="Plan log" aria-live="polite" ${follow}>${plan.text || 'No output yet.'}</pre>
      <h2>Apply log</h2>
      <pre class="log" tabindex="0" aria-label="Apply log">${apply.text || 'No output yet.'}</pre>`;
    return frame(p, view, 'runs', `Run ${run.run.id}`, body);
  });

  // What app.js polls while a run is going: the plan's and the apply's log, and whether it ended.
  pages.get('/:org/workspaces/:name/runs/:run/log', async (p) => {
    const { run } = await runOf(p);
    const [plan, apply] = await Promise.all([logOf(p, run.plan.id, 'plan'), logOf(p, run.apply.id, 'apply')]);
    const done = isFinal(run.run.status) || run.run.status === 'planned';
    return p.json({ status: run.run.status, done, log: apply.text ? `${plan.text}\n${apply.text}` : plan.text });
  });

  for (const action of ['apply', 'discard', 'cancel'] as const) {
    pages.post(`/:org/workspaces/:name/runs/:run/${action}`, async (p) => {
      const { view, run } = await runOf(p);
      const back = path`/app/${view.organizationName}/workspaces/${view.workspace.name}/runs/${run.run.id}`;
      try {
        await runs[action](p.caller, run.run.id);
      } catch (error) {
        if (!isFormError(error)) throw error;
        return p.redirect(back, { kind: 'error', text: error.errors[0]?.detail ?? `The run could not be ${action === 'apply' ? 'applied' : `${action}ed`}.` });
      }
      return p.redirect(back, action === 'apply' ? 'Apply queued.' : action === 'discard' ? 'Run discarded.' : 'Run canceled.');
    });
  }

  // The plan's Sentinel mocks, as a plan export's download has them (docs/policies.md).
  pages.post('/:org/workspaces/:name/runs/:run/sentinel-mocks', async (p) => {
    const { run } = await runOf(p);
    return p.file(`${run.run.id}-sentinel-mocks.tar.gz`, 'application/x-gzip', await planExports.mocksOfPlan(p.caller, run.plan.id));
  });

  pages.get('/:org/workspaces/:name/states', async (p) => {
    const view = await find(p);
    const page = listPage(p.query.page);
    const [list, outputs] = await Promise.all([
      stateVersions.list(p.caller, view.organizationName, view.workspace.name, page),
      stateVersions.currentOutputs(p.caller, view.workspace.id),
    ]);
    const body = html`<h2>Outputs</h2>
      ${table({
        caption: 'Outputs of the current state',
        captionHidden: true,
        head: ['Name', 'Type', 'Value'],
        rows: outputs.map((o) => [
          o.output.name,
          o.output.type,
          o.output.sensitive ? html`<span class="badge">Sensitive</span> <span class="muted">hidden</span>` : html`<code>${JSON.stringify(o.value)}</code>`,
        ]),
        empty: 'No outputs.',
      })}
      <h2>State versions</h2>
      ${table({
        caption: 'State versions',
        captionHidden: true,
        head: ['Serial', 'ID', 'Terraform', 'Created'],
        rows: list.items.map((v) => [v.version.serial, html`<code>${v.version.id}</code>`, v.version.terraformVersion ?? '', when(v.version.createdAt)]),
        empty: 'No state yet.',
      })}
      ${pager({ base: `${home(view.organizationName, view.workspace.name)}/states`, query: {}, page, total: list.total, noun: 'state versions' })}`;
    return frame(p, view, 'states', `States of ${view.workspace.name}`, body);
  });

  const variableForm = (
    p: PageContext,
    view: WorkspaceView,
    values: { key?: string; value?: string; category?: string; sensitive?: boolean; description?: string },
    errors: FieldErrors = {},
  ) =>
    form({
      action: `${home(view.organizationName, view.workspace.name)}/variables`,
      csrf: p.csrf,
      submit: 'Add variable',
      label: 'Add a variable',
      error: errors[''],
      body: html`${field({ label: 'Key', name: 'key', value: values.key, required: true, error: errors.key })}
      ${field({ label: 'Value', name: 'value', type: 'textarea', value: values.sensitive ? '' : values.value, error: errors.value })}
      ${select({
        label: 'Category',
        name: 'category',
        value: values.category ?? 'terraform',
        options: [
          ['terraform', 'Terraform variable'],
          ['env', 'Environment variable'],
        ],
        error: errors.category,
      })}
      ${field({ label: 'Description', name: 'description', value: values.description, error: errors.description })}
      ${checkbox({ label: 'Sensitive', name: 'sensitive', checked: values.sensitive, hint: 'A sensitive value is write-only: never shown again, to anyone.' })}`,
    });

  async function variablesPage(
    p: PageContext,
    view: WorkspaceView,
    o: { values?: Parameters<typeof variableForm>[2]; errors?: FieldErrors; status?: number } = {},
  ) {
    const list = await variables.list(p.caller, view.workspace.id, firstRows(100));
    const base = home(view.organizationName, view.workspace.name);
    const body = html`${table({
        caption: 'Variables',
        captionHidden: true,
        head: ['Key', 'Value', 'Category', 'Description', ''],
        rows: list.items.map((v) => [
          html`<code>${v.key}</code>`,
          v.sensitive ? html`<span class="badge">Sensitive</span> <span class="muted">write-only</span>` : html`<code>${v.value ?? ''}</code>`,
          v.category,
          v.description,
          view.permissions['can-update']
            ? button({
                action: path`${base}/variables/${v.id}/delete`,
                csrf: p.csrf,
                label: 'Delete',
                accessibleLabel: `Delete ${v.key}`,
                confirm: `Delete the variable ${v.key}?`,
                danger: true,
              })
            : '',
        ]),
        empty: 'No variables.',
      })}
      <h2>Add a variable</h2>
      ${variableForm(p, view, o.values ?? {}, o.errors)}`;
    return frame(p, view, 'variables', `Variables of ${view.workspace.name}`, body, o.status);
  }

  pages.get('/:org/workspaces/:name/variables', async (p) => variablesPage(p, await find(p)));

  pages.post('/:org/workspaces/:name/variables', async (p) => {
    const view = await find(p);
    const category: 'env' | 'terraform' = p.form.get('category') === 'env' ? 'env' : 'terraform';
    const values = {
      key: p.form.get('key')?.trim() ?? '',
      value: p.form.get('value') ?? '',
      category,
      sensitive: p.form.get('sensitive') === 'true',
      description: p.form.get('description') ?? '',
    };
    try {
      await variables.create(p.caller, view.workspace.id, {
        key: values.key,
        value: values.value,
        category,
        sensitive: values.sensitive,
        description: values.description,
      });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return variablesPage(p, view, { values, errors: fieldErrors(error), status: 422 });
    }
    return p.redirect(`${home(view.organizationName, view.workspace.name)}/variables`, `Variable ${values.key} added.`);
  });

  pages.post('/:org/workspaces/:name/variables/:variable/delete', async (p) => {
    const view = await find(p);
    await variables.destroy(p.caller, view.workspace.id, p.params.variable!);
    return p.redirect(`${home(view.organizationName, view.workspace.name)}/variables`, 'Variable deleted.');
  });

  /**
   * Run triggers, as HCP Terraform's settings show them: the source workspaces whose successful
   * applies queue a run here (added and removed by whoever may change the workspace's settings),
   * and, for reading only, the workspaces this one's applies trigger.
   */
  async function runTriggersPage(p: PageContext, view: WorkspaceView, o: { source?: string; error?: string; status?: number } = {}) {
    const { workspace } = view;
    const org = view.organizationName;
    const base = `${home(org, workspace.name)}/run-triggers`;
    const manage = view.permissions['can-update'];
    // A workspace has at most 20 sources: one page holds them all.
    const [inbound, outbound] = await Promise.all([
      runTriggers.list(p.caller, workspace.id, 'inbound', firstRows(100)),
      runTriggers.list(p.caller, workspace.id, 'outbound', firstRows(100)),
    ]);
    const sources = new Set(inbound.items.map((v) => v.trigger.sourceableId));
    const candidates = manage
      ? (await workspaces.list(p.caller, org, { descending: false, sort: 'name' }, firstRows(100))).items.filter(
          (v) => v.workspace.id !== workspace.id && !sources.has(v.workspace.id),
        )
      : [];
    const body = html`<p>A successful apply in a source workspace queues a run in this one, from its newest configuration.</p>
      ${table({
        caption: 'Source workspaces',
        head: ['Source workspace', 'Added', ''],
        rows: inbound.items.map((v) => [
          html`<a href="${home(org, v.sourceableName)}">${v.sourceableName}</a>`,
          when(v.trigger.createdAt),
          manage
            ? button({
                action: path`/app/${org}/workspaces/${workspace.name}/run-triggers/${v.trigger.id}/delete`,
                csrf: p.csrf,
                label: 'Remove',
                accessibleLabel: `Remove the run trigger from ${v.sourceableName}`,
                confirm: `Stop runs triggered by ${v.sourceableName}?`,
                danger: true,
              })
            : '',
        ]),
        empty: 'No source workspaces.',
      })}
      ${
        manage
          ? candidates.length
            ? html`<h2>Add a source workspace</h2>
                ${form({
                  action: base,
                  csrf: p.csrf,
                  submit: 'Add run trigger',
                  label: 'New run trigger',
                  error: o.error,
                  body: select({
                    label: 'Source workspace',
                    name: 'source',
                    value: o.source,
                    options: candidates.map((v) => [v.workspace.id, v.workspace.name]),
                  }),
                })}`
            : html`${o.error ? html`<p class="error-text" role="alert">${o.error}</p>` : ''}
                <p>No other workspace to add as a source.</p>`
          : html`<p>You may not change this workspace’s run triggers.</p>`
      }
      ${table({
        caption: 'Workspaces this one triggers',
        head: ['Workspace', 'Added'],
        rows: outbound.items.map((v) => [html`<a href="${home(org, v.workspaceName)}">${v.workspaceName}</a>`, when(v.trigger.createdAt)]),
        empty: 'None.',
      })}`;
    return frame(p, view, 'run-triggers', `Run triggers of ${workspace.name}`, body, o.status);
  }

  pages.get('/:org/workspaces/:name/run-triggers', async (p) => runTriggersPage(p, await find(p)));

  pages.post('/:org/workspaces/:name/run-triggers', async (p) => {
    const view = await find(p);
    const source = p.form.get('source') ?? '';
    try {
      await runTriggers.create(p.caller, view.workspace.id, source || undefined);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return runTriggersPage(p, view, { source, error: error.errors.map((e) => e.detail).join('; '), status: 422 });
    }
    return p.redirect(`${home(view.organizationName, view.workspace.name)}/run-triggers`, 'Run trigger added.');
  });

  pages.post('/:org/workspaces/:name/run-triggers/:trigger/delete', async (p) => {
    const view = await find(p);
    // Only a trigger of this workspace, as the address says.
    const shown = await runTriggers.show(p.caller, p.params.trigger!);
    if (shown.trigger.workspaceId !== view.workspace.id) throw errors.notFound();
    await runTriggers.destroy(p.caller, shown.trigger.id);
    return p.redirect(`${home(view.organizationName, view.workspace.name)}/run-triggers`, 'Run trigger removed.');
  });

  const MODES: Array<[string, string]> = [
    ['', 'The organization’s default'],
    ['remote', 'Remote: Hangar runs Terraform'],
    ['local', 'Local: Terraform runs on your machine; Hangar keeps the state'],
    ['agent', 'Agent: an agent pool runs Terraform'],
  ];

  function settingsForm(
    p: PageContext,
    view: WorkspaceView,
    values: { description?: string | null; mode?: string; pool?: string; autoApply?: boolean; terraformVersion?: string },
    errors: FieldErrors = {},
  ) {
    return form({
      action: `${home(view.organizationName, view.workspace.name)}/settings`,
      csrf: p.csrf,
      submit: 'Save settings',
      label: 'Workspace settings',
      // Execution mode and pool problems point at attributes or relationships: shown above the form.
      error:
        Object.entries(errors)
          .filter(([k]) => k !== 'description' && k !== 'terraform-version')
          .map(([, v]) => v)
          .join('; ') || undefined,
      body: html`${field({ label: 'Description', name: 'description', type: 'textarea', value: values.description, error: errors.description })}
      ${select({ label: 'Execution mode', name: 'execution_mode', value: values.mode, options: MODES })}
      ${field({ label: 'Agent pool ID', name: 'agent_pool', value: values.pool, hint: 'Only for the agent mode (apool-…).' })}
      ${field({ label: 'Terraform version', name: 'terraform_version', value: values.terraformVersion, error: errors['terraform-version'] })}
      ${checkbox({ label: 'Apply automatically', name: 'auto_apply', checked: values.autoApply, hint: 'Apply a successful plan without asking.' })}`,
    });
  }

  pages.get('/:org/workspaces/:name/settings', async (p) => {
    const view = await find(p);
    const { workspace } = view;
    const body = view.permissions['can-update']
      ? html`${settingsForm(p, view, {
          description: workspace.description,
          mode: view.execution.own ? view.execution.mode : '',
          pool: view.execution.own ? (view.execution.agentPoolId ?? '') : '',
          autoApply: workspace.autoApply,
          terraformVersion: workspace.terraformVersion,
        })}
        ${
          view.permissions['can-destroy']
            ? html`<h2>Delete</h2>
                ${button({
                  action: `${home(view.organizationName, workspace.name)}/delete`,
                  csrf: p.csrf,
                  label: 'Delete workspace',
                  confirm: `Delete the workspace ${workspace.name} and its state?`,
                  danger: true,
                })}`
            : ''
        }`
      : html`<p>You may not change this workspace’s settings.</p>`;
    return frame(p, view, 'settings', `Settings of ${workspace.name}`, body);
  });

  pages.post('/:org/workspaces/:name/settings', async (p) => {
    const view = await find(p);
    const mode = p.form.get('execution_mode') ?? '';
    const pool = p.form.get('agent_pool')?.trim() ?? '';
    const values = {
      description: p.form.get('description') || null,
      mode,
      pool,
      autoApply: p.form.get('auto_apply') === 'true',
      terraformVersion: p.form.get('terraform_version')?.trim() ?? '',
    };
    try {
      await workspaces.update(
        p.caller,
        { id: view.workspace.id },
        {
          description: values.description,
          settings: { autoApply: values.autoApply, ...(values.terraformVersion ? { terraformVersion: values.terraformVersion } : {}) },
          ...(mode === 'remote' || mode === 'local' || mode === 'agent'
            ? { executionMode: mode, agentPoolId: mode === 'agent' ? pool || null : null, overwrites: { executionMode: true, agentPool: true } }
            : { overwrites: { executionMode: false, agentPool: false } }),
        },
      );
    } catch (error) {
      if (!isFormError(error)) throw error;
      return frame(p, view, 'settings', `Settings of ${view.workspace.name}`, settingsForm(p, view, values, fieldErrors(error)), 422);
    }
    return p.redirect(`${home(view.organizationName, view.workspace.name)}/settings`, 'Settings saved.');
  });

  pages.post('/:org/workspaces/:name/delete', async (p) => {
    const view = await find(p);
    try {
      await workspaces.destroy(p.caller, { id: view.workspace.id });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(`${home(view.organizationName, view.workspace.name)}/settings`, {
        kind: 'error',
        text: error.errors[0]?.detail ?? 'The workspace could not be deleted.',
      });
    }
    return p.redirect(path`/app/${view.organizationName}/workspaces`, `Workspace ${view.workspace.name} deleted.`);
  });
}

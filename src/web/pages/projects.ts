// Projects: the list (search, filters, sort, paging), creating, editing and deleting one, moving
// workspaces into it, and which teams have access to it. Every read and write goes through the
// projects, workspaces, teams and team-projects services with the person's Caller.
import { PROJECT_ACCESS_LEVELS, type ProjectAccessLevel } from '../../grants.ts';
import type { Caller } from '../../auth/caller.ts';
import { errors } from '../../jsonapi/errors.ts';
import { button, fieldErrors, field, form, isFormError, listPage, firstRows, pager, select, table, type FieldErrors } from '../components.ts';
import { html, path, withQuery } from '../html.ts';
import type { Pages, PageContext } from '../page.ts';

const FILTERS: Array<[string, string]> = [
  ['', 'All projects'],
  ['create-workspace', 'Where I can create workspaces'],
  ['update', 'Where I can change settings'],
];
const SORTS: Array<[string, string]> = [
  ['', 'Newest first'],
  ['name', 'Name, A to Z'],
  ['-name', 'Name, Z to A'],
];

export function projectPages(pages: Pages): void {
  const { projects, organizations, workspaces, teamProjects, teams } = pages.services;

  /** The project, found for the caller, in the organization the URL names (else 404, as for any hidden thing). */
  async function projectIn(caller: Caller, org: string, id: string) {
    const view = await projects.show(caller, id);
    if (view.organizationName !== org) throw errors.notFound();
    return view;
  }

  const projectForm = (p: PageContext, o: { action: string; submit: string; values: { name?: string; description?: string | null }; errors?: FieldErrors }) =>
    form({
      action: o.action,
      csrf: p.csrf,
      submit: o.submit,
      error: o.errors?.[''],
      body: html`${field({ label: 'Name', name: 'name', value: o.values.name, required: true, error: o.errors?.name, maxlength: 40 })}
      ${field({ label: 'Description', name: 'description', type: 'textarea', value: o.values.description, error: o.errors?.description })}`,
    });

  pages.get('/:org/projects', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const filter = FILTERS.some(([v]) => v === p.query.filter) ? p.query.filter : '';
    const sort = SORTS.some(([v]) => v === p.query.sort) ? p.query.sort : '';
    const [orgView, list] = await Promise.all([
      organizations.show(p.caller, org),
      projects.list(
        p.caller,
        org,
        {
          search: q,
          canCreateWorkspace: filter === 'create-workspace',
          canUpdate: filter === 'update',
          sort: sort ? { descending: sort === '-name' } : null,
        },
        page,
      ),
    ]);
    const body = html`<form method="get" action="${path`/app/${org}/projects`}" class="toolbar" role="search" aria-label="Find projects">
        <div class="field grow"><label for="prj-q">Search by name</label><input type="search" id="prj-q" name="q" value="${q ?? ''}" /></div>
        <div class="field">${select({ label: 'Show', name: 'filter', value: filter, options: FILTERS })}</div>
        <div class="field">${select({ label: 'Sort', name: 'sort', value: sort, options: SORTS })}</div>
        <button type="submit" class="secondary">Apply</button>
      </form>
      ${orgView.permissions['can-create-project'] ? html`<p><a class="button" href="${path`/app/${org}/projects/new`}">New project</a></p>` : ''}
      ${table({
        caption: 'Projects',
        captionHidden: true,
        head: ['Name', 'Description', 'Workspaces', 'Teams'],
        rows: list.items.map((v) => [
          html`<a href="${path`/app/${org}/projects/${v.project.id}`}">${v.project.name}</a>`,
          v.project.description ?? '',
          v.workspaceCount,
          v.teamCount,
        ]),
        empty: q || filter ? 'No project matches.' : 'No projects yet.',
      })}
      ${pager({ base: path`/app/${org}/projects`, query: { q, filter: filter || undefined, sort: sort || undefined }, page, total: list.matching, noun: 'projects' })}`;
    return p.render({ title: 'Projects', org, section: 'projects', body });
  });

  pages.get('/:org/projects/new', async (p) => {
    const org = p.params.org!;
    await organizations.show(p.caller, org);
    return p.render({
      title: 'New project',
      org,
      section: 'projects',
      crumbs: [['Projects', path`/app/${org}/projects`]],
      body: projectForm(p, { action: path`/app/${org}/projects`, submit: 'Create project', values: {} }),
    });
  });

  pages.post('/:org/projects', async (p) => {
    const org = p.params.org!;
    const values = { name: p.form.get('name')?.trim() ?? '', description: p.form.get('description') || null };
    let created;
    try {
      created = await projects.create(p.caller, org, { name: values.name, description: values.description });
    } catch (error) {
      if (!isFormError(error)) throw error;
      const body = projectForm(p, { action: path`/app/${org}/projects`, submit: 'Create project', values, errors: fieldErrors(error) });
      return p.render({ title: 'New project', org, section: 'projects', crumbs: [['Projects', path`/app/${org}/projects`]], body }, 422);
    }
    return p.redirect(path`/app/${org}/projects/${created.project.id}`, `Project ${created.project.name} created.`);
  });

  async function projectPage(
    p: PageContext,
    o: { editValues?: { name?: string; description?: string | null }; editErrors?: FieldErrors; status?: number } = {},
  ) {
    const org = p.params.org!;
    const view = await projectIn(p.caller, org, p.params.id!);
    const { project, permissions } = view;
    const base = path`/app/${org}/projects/${project.id}`;
    const [inside, orgWorkspaces, grants, orgTeams] = await Promise.all([
      workspaces.list(p.caller, org, { projectId: project.id, descending: false, sort: 'name' }, firstRows(100)),
      permissions['can-move-workspace'] ? workspaces.list(p.caller, org, { descending: false, sort: 'name' }, firstRows(100)) : null,
      teamProjects.list(p.caller, { projectId: project.id }, firstRows(100)),
      teams.list(p.caller, org, {}, firstRows(100)),
    ]);
    const teamName = new Map(orgTeams.teams.map((t) => [t.team.id, t.team.name]));
    const movable = (orgWorkspaces?.items ?? []).filter((w) => w.project.id !== project.id);
    const granted = new Set(grants.items.map((g) => g.teamId));
    const grantable = orgTeams.teams.filter((t) => !granted.has(t.team.id));

    const body = html`<dl class="facts">
        <dt>ID</dt>
        <dd><code>${project.id}</code></dd>
        <dt>Description</dt>
        <dd>${project.description || html`<span class="muted">None</span>`}</dd>
        <dt>Workspaces</dt>
        <dd>${view.workspaceCount}</dd>
        <dt>Teams with access</dt>
        <dd>${view.teamCount}</dd>
      </dl>

      <h2>Workspaces</h2>
      ${table({
        caption: `Workspaces in ${project.name}`,
        captionHidden: true,
        head: ['Name', 'Description'],
        rows: inside.items.map((w) => [
          html`<a href="${path`/app/${org}/workspaces/${w.workspace.name}`}">${w.workspace.name}</a>`,
          w.workspace.description ?? '',
        ]),
        empty: 'No workspaces in this project.',
      })}
      ${inside.total > inside.items.length ? html`<p><a href="${withQuery(path`/app/${org}/workspaces`, { project: project.id })}">All ${inside.total} workspaces</a></p>` : ''}
      ${
        permissions['can-move-workspace'] && movable.length
          ? html`<h2 id="move">Move workspaces here</h2>
              ${form({
                action: `${base}/move`,
                csrf: p.csrf,
                submit: 'Move selected workspaces',
                label: 'Move workspaces here',
                body: html`<fieldset>
                  <legend>Workspaces in other projects</legend>
                  ${movable.map(
                    (w) =>
                      html`<div class="check">
                        <input type="checkbox" id="${`mv-${w.workspace.id}`}" name="workspace" value="${w.workspace.id}" /><label
                          for="${`mv-${w.workspace.id}`}"
                          >${w.workspace.name} <span class="muted">(in ${w.project.name})</span></label
                        >
                      </div>`,
                  )}
                </fieldset>`,
              })}`
          : ''
      }

      <h2>Team access</h2>
      ${table({
        caption: `Teams with access to ${project.name}`,
        captionHidden: true,
        head: ['Team', 'Access', ''],
        rows: grants.items.map((g) => [
          teamName.get(g.teamId) ?? g.teamId,
          g.access,
          permissions['can-manage-teams']
            ? button({
                action: path`/app/${org}/projects/${project.id}/team-access/${g.id}/delete`,
                csrf: p.csrf,
                label: 'Remove',
                accessibleLabel: `Remove access of ${teamName.get(g.teamId) ?? g.teamId}`,
                confirm: 'Remove this team’s access to the project?',
                danger: true,
              })
            : '',
        ]),
        empty: 'No team has access to this project yet (owners always do).',
      })}
      ${
        permissions['can-manage-teams'] && grantable.length
          ? form({
              action: `${base}/team-access`,
              csrf: p.csrf,
              submit: 'Give access',
              label: 'Give a team access',
              body: html`${select({ label: 'Team', name: 'team', options: grantable.map((t) => [t.team.id, t.team.name]) })}
              ${select({ label: 'Access', name: 'access', value: 'read', options: PROJECT_ACCESS_LEVELS.filter((l) => l !== 'custom').map((l) => [l, l]) })}`,
            })
          : ''
      }
      ${
        permissions['can-update']
          ? html`<h2>Settings</h2>
              ${projectForm(p, {
                action: base,
                submit: 'Save settings',
                values: o.editValues ?? { name: project.name, description: project.description },
                errors: o.editErrors,
              })}`
          : ''
      }
      ${
        permissions['can-destroy']
          ? html`<h2>Delete</h2>
              <p>Only an empty project can be deleted.</p>
              ${button({ action: `${base}/delete`, csrf: p.csrf, label: 'Delete project', confirm: `Delete the project ${project.name}?`, danger: true })}`
          : ''
      }`;
    return p.render({ title: project.name, org, section: 'projects', crumbs: [['Projects', path`/app/${org}/projects`]], body }, o.status);
  }

  pages.get('/:org/projects/:id', (p) => projectPage(p));

  pages.post('/:org/projects/:id', async (p) => {
    const org = p.params.org!;
    const { project } = await projectIn(p.caller, org, p.params.id!);
    const values = { name: p.form.get('name')?.trim() ?? '', description: p.form.get('description') || null };
    try {
      await projects.update(p.caller, project.id, values);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return projectPage(p, { editValues: values, editErrors: fieldErrors(error), status: 422 });
    }
    return p.redirect(path`/app/${org}/projects/${project.id}`, 'Project settings saved.');
  });

  pages.post('/:org/projects/:id/delete', async (p) => {
    const org = p.params.org!;
    const { project } = await projectIn(p.caller, org, p.params.id!);
    try {
      await projects.destroy(p.caller, project.id);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(path`/app/${org}/projects/${project.id}`, { kind: 'error', text: error.errors[0]?.detail ?? 'The project could not be deleted.' });
    }
    return p.redirect(path`/app/${org}/projects`, `Project ${project.name} deleted.`);
  });

  pages.post('/:org/projects/:id/move', async (p) => {
    const org = p.params.org!;
    const { project } = await projectIn(p.caller, org, p.params.id!);
    const ids = p.form.getAll('workspace');
    const back = path`/app/${org}/projects/${project.id}`;
    if (ids.length === 0) return p.redirect(back, { kind: 'error', text: 'Select at least one workspace to move.' });
    try {
      await projects.moveWorkspaces(p.caller, project.id, ids);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(back, { kind: 'error', text: error.errors[0]?.detail ?? 'The workspaces could not be moved.' });
    }
    return p.redirect(back, ids.length === 1 ? 'Workspace moved.' : `${ids.length} workspaces moved.`);
  });

  pages.post('/:org/projects/:id/team-access', async (p) => {
    const org = p.params.org!;
    const { project } = await projectIn(p.caller, org, p.params.id!);
    const back = path`/app/${org}/projects/${project.id}`;
    const access = p.form.get('access') ?? '';
    if (!(PROJECT_ACCESS_LEVELS as readonly string[]).includes(access)) return p.redirect(back, { kind: 'error', text: 'Choose an access level.' });
    try {
      await teamProjects.create(p.caller, { projectId: project.id, teamId: p.form.get('team') ?? '', access: access as ProjectAccessLevel });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(back, { kind: 'error', text: error.errors[0]?.detail ?? 'Access could not be given.' });
    }
    return p.redirect(back, 'Team access given.');
  });

  pages.post('/:org/projects/:id/team-access/:grant/delete', async (p) => {
    const org = p.params.org!;
    const { project } = await projectIn(p.caller, org, p.params.id!);
    const grant = await teamProjects.show(p.caller, p.params.grant!);
    if (grant.projectId !== project.id) throw errors.notFound();
    await teamProjects.destroy(p.caller, grant.id);
    return p.redirect(path`/app/${org}/projects/${project.id}`, 'Team access removed.');
  });
}

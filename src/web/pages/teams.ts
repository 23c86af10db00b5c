// Teams of an organization (TFE: Settings → Teams): the list, creating one, and a team's page:
// its settings and organization access, its members (added and removed by organization
// membership, invitees included), its API token, deleting it. Every read and write goes through
// the teams, memberships and tokens services with the person's caller, so what the API refuses
// is refused here, and the buttons shown are those the team's `permissions` allow.
import { ORGANIZATION_ACCESS_KEYS, type OrganizationAccess } from '../../grants.ts';
import { ApiError } from '../../jsonapi/errors.ts';
import type { TeamInput, TeamView } from '../../teams/service.ts';
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
import { shownOnce } from './shown-once.ts';

/** The memberships offered in a team's "add member" list (the API's largest page). */
const MEMBERSHIP_CHOICES = 100;

const VISIBILITIES: Array<[string, string]> = [
  ['secret', 'Secret: only its members and those who manage teams see it'],
  ['organization', 'Visible to the whole organization'],
];

const teamsUrl = (org: string) => path`/app/${org}/settings/teams`;
const teamUrl = (org: string, id: string) => path`/app/${org}/settings/teams/${id}`;

interface TeamValues {
  name?: string;
  visibility?: string;
  access?: Partial<OrganizationAccess>;
}

/** The organization-access checkboxes, one per flag (the API's names, which TFE's docs explain). */
function accessFields(access: Partial<OrganizationAccess>): Html {
  return html`<fieldset>
    <legend>Organization access</legend>
    ${ORGANIZATION_ACCESS_KEYS.map((k) => checkbox({ label: k, name: 'access', value: k, checked: Boolean(access[k]) }))}
  </fieldset>`;
}

function teamFields(values: TeamValues, errors: FieldErrors, o: { name: boolean; access: boolean }): Html {
  return html`${o.name ? field({ label: 'Name', name: 'name', value: values.name, required: true, error: errors.name, maxlength: 255 }) : ''}
  ${select({ label: 'Visibility', name: 'visibility', value: values.visibility ?? 'secret', options: VISIBILITIES, error: errors.visibility })}
  ${o.access ? accessFields(values.access ?? {}) : ''}`;
}

/** The checked flags as a whole access map: an unchecked box is a flag turned off. */
function postedAccess(form: URLSearchParams): OrganizationAccess {
  const checked = new Set(form.getAll('access'));
  return Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((k) => [k, checked.has(k)])) as OrganizationAccess;
}

const postedVisibility = (form: URLSearchParams): TeamInput['visibility'] => (form.get('visibility') === 'organization' ? 'organization' : 'secret');

export function teamPages(pages: Pages): void {
  const { teams, organizations, organizationMemberships, tokens, users } = pages.services;

  const createForm = (p: PageContext, org: string, values: TeamValues, errors: FieldErrors = {}) =>
    form({
      action: teamsUrl(org),
      csrf: p.csrf,
      label: 'New team',
      error: errors[''] ?? errors['organization-access'],
      submit: 'Create team',
      body: teamFields(values, errors, { name: true, access: true }),
    });

  pages.get('/:org/settings/teams', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const [shown, list] = await Promise.all([organizations.show(p.caller, org), teams.list(p.caller, org, { search: q }, page)]);
    const body = html`${searchForm({ action: teamsUrl(org), id: 'team-q', label: 'Search teams', value: q })}
    ${table({
      caption: 'Teams',
      captionHidden: true,
      head: ['Name', 'Visibility', 'Members', 'Created'],
      rows: list.teams.map((v) => [
        html`<a href="${teamUrl(org, v.team.id)}">${v.team.name}</a>`,
        v.team.visibility,
        String(v.memberIds.length),
        when(v.team.createdAt),
      ]),
      empty: q ? 'No team matches.' : 'No teams you can see.',
    })}
    ${pager({ base: teamsUrl(org), query: { q }, page, total: list.total, noun: 'teams' })}
    ${
      shown.permissions['can-create-team']
        ? html`<h2>New team</h2>
            ${createForm(p, org, {})}`
        : ''
    }`;
    return p.render({ title: 'Teams', org, section: 'teams', body });
  });

  pages.post('/:org/settings/teams', async (p) => {
    const org = p.params.org!;
    const values = { name: p.form.get('name')?.trim() ?? '', visibility: postedVisibility(p.form), access: postedAccess(p.form) };
    let created: TeamView;
    try {
      created = await teams.create(p.caller, org, { name: values.name, visibility: values.visibility, organizationAccess: values.access });
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'New team', org, section: 'teams', body: createForm(p, org, values, fieldErrors(error)) }, 422);
    }
    return p.redirect(teamUrl(org, created.team.id), `Team ${created.team.name} created.`);
  });

  /** A team's page: its settings, members and token, with what the person may change. */
  async function teamPage(p: PageContext, extra: { secret?: string; errors?: FieldErrors; values?: TeamValues } = {}, status = 200) {
    const org = p.params.org!;
    const { teams: view } = await teams.show(p.caller, p.params.team!);
    // A team of another organization is not at this address.
    if (view.organizationName !== org) return p.render({ title: 'Not found', body: html`<p>There is nothing here, or you may not see it.</p>` }, 404);
    const { team, permissions } = view;
    const url = teamUrl(org, team.id);
    const linked = await organizationMemberships.ofTeams(p.caller, [{ id: team.id, organizationId: team.organizationId, memberIds: view.memberIds }]);
    const people = new Map(
      (
        await users.views(
          p.caller,
          linked.memberships.map((m) => m.membership.userId),
        )
      ).map((u) => [u.user.id, u.user.username]),
    );
    const onTeam = new Set(linked.byTeam.get(team.id) ?? []);
    const members = linked.memberships.filter((m) => onTeam.has(m.membership.id));
    const canMembers = permissions['can-update-membership'];

    let addForm: Html | string = '';
    if (canMembers) {
      const all = await organizationMemberships.list(p.caller, org, {}, firstRows(MEMBERSHIP_CHOICES), ['user']);
      const names = new Map((all.users ?? []).map((u) => [u.user.id, u.user.username]));
      const choices = all.memberships.filter((m) => !onTeam.has(m.membership.id));
      addForm = choices.length
        ? form({
            action: path`/app/${org}/settings/teams/${team.id}/members`,
            csrf: p.csrf,
            label: 'Add a member',
            submit: 'Add to team',
            error: extra.errors?.members,
            body: select({
              label: 'Member or invitee',
              name: 'membership',
              hint: 'Invited people join the team when they accept their invitation.',
              options: choices.map((m) => [
                m.membership.id,
                `${names.get(m.membership.userId) ?? m.membership.email}${m.membership.status === 'invited' ? ' (invited)' : ''}`,
              ]),
            }),
          })
        : html`<p class="muted">Everyone in the organization is on this team. <a href="${path`/app/${org}/settings/members`}">Invite someone</a>.</p>`;
    }

    const settings = permissions['can-update-visibility']
      ? form({
          action: url,
          csrf: p.csrf,
          label: 'Team settings',
          submit: 'Save team',
          error: extra.errors?.[''] ?? extra.errors?.['organization-access'],
          body: teamFields(extra.values ?? { name: team.name, visibility: team.visibility, access: team.organizationAccess }, extra.errors ?? {}, {
            name: !team.isOwners,
            access: permissions['can-update-organization-access'],
          }),
        })
      : html`<dl class="facts">
          <dt>Visibility</dt>
          <dd>${team.visibility}</dd>
          <dt>Organization access</dt>
          <dd>${ORGANIZATION_ACCESS_KEYS.filter((k) => team.organizationAccess[k]).join(', ') || 'none'}</dd>
        </dl>`;

    let tokenSection: Html | string = '';
    if (permissions['can-update-api-token']) {
      const existing = await tokens.showTeamToken(p.caller, team.id).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      });
      tokenSection = html`<h2>Team API token</h2>
        ${extra.secret ? shownOnce({ secret: extra.secret, what: 'team token', subsection: true }) : ''}
        ${
          existing
            ? html`<p>
                Created ${when(existing.createdAt)}; last used ${when(existing.lastUsedAt)}; expires ${existing.expiredAt ? when(existing.expiredAt) : 'never'}.
              </p>`
            : html`<p class="muted">The team has no token.</p>`
        }
        <p>
          ${button({
            action: path`/app/${org}/settings/teams/${team.id}/token`,
            csrf: p.csrf,
            label: existing ? 'Regenerate token' : 'Create a token',
            confirm: existing ? 'The current token stops working at once. Regenerate it?' : undefined,
          })}
          ${
            existing
              ? button({
                  action: path`/app/${org}/settings/teams/${team.id}/token/delete`,
                  csrf: p.csrf,
                  label: 'Delete token',
                  danger: true,
                  confirm: 'Delete the team token? It stops working at once.',
                })
              : ''
          }
        </p>`;
    }

    const body = html`${settings}
      <h2>Members</h2>
      ${table({
        caption: `Members of ${team.name}`,
        captionHidden: true,
        head: canMembers ? ['Username', 'Status', 'Action'] : ['Username', 'Status'],
        rows: members.map((m) => {
          const name = people.get(m.membership.userId) ?? m.membership.userId;
          const row: unknown[] = [name, m.membership.status === 'invited' ? html`<span class="badge">invited</span>` : 'member'];
          if (canMembers)
            row.push(
              button({
                action: path`/app/${org}/settings/teams/${team.id}/members/remove`,
                csrf: p.csrf,
                label: 'Remove',
                fields: { membership: m.membership.id },
                accessibleLabel: `Remove ${name} from the team`,
                confirm: `Take ${name} off the team?`,
              }),
            );
          return row;
        }),
        empty: 'No members.',
      })}
      ${addForm} ${tokenSection}
      ${
        permissions['can-destroy']
          ? html`<h2>Delete the team</h2>
              ${button({
                action: path`/app/${org}/settings/teams/${team.id}/delete`,
                csrf: p.csrf,
                label: 'Delete team',
                danger: true,
                confirm: `Delete the team ${team.name}? Its members lose what it grants.`,
              })}`
          : ''
      }`;
    return p.render({ title: `Team ${team.name}`, org, section: 'teams', crumbs: [['Teams', teamsUrl(org)]], body }, status);
  }

  pages.get('/:org/settings/teams/:team', (p) => teamPage(p));

  pages.post('/:org/settings/teams/:team', async (p) => {
    const org = p.params.org!;
    const { teams: view } = await teams.show(p.caller, p.params.team!);
    const { permissions, team } = view;
    const input: TeamInput = { visibility: postedVisibility(p.form) };
    if (!team.isOwners) input.name = p.form.get('name')?.trim() ?? '';
    if (permissions['can-update-organization-access']) input.organizationAccess = postedAccess(p.form);
    try {
      await teams.update(p.caller, team.id, input);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return teamPage(p, { errors: fieldErrors(error), values: { name: input.name, visibility: input.visibility, access: input.organizationAccess } }, 422);
    }
    return p.redirect(teamUrl(org, team.id), 'Team saved.');
  });

  pages.post('/:org/settings/teams/:team/delete', async (p) => {
    await teams.destroy(p.caller, p.params.team!);
    return p.redirect(teamsUrl(p.params.org!), 'Team deleted.');
  });

  pages.post('/:org/settings/teams/:team/members', async (p) => {
    const id = p.form.get('membership') ?? '';
    try {
      await organizationMemberships.addToTeam(p.caller, p.params.team!, [id]);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return teamPage(p, { errors: { members: Object.values(fieldErrors(error)).join('; ') } }, 422);
    }
    return p.redirect(teamUrl(p.params.org!, p.params.team!), 'Member added.');
  });

  pages.post('/:org/settings/teams/:team/members/remove', async (p) => {
    try {
      await organizationMemberships.removeFromTeam(p.caller, p.params.team!, [p.form.get('membership') ?? '']);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(teamUrl(p.params.org!, p.params.team!), { kind: 'error', text: Object.values(fieldErrors(error)).join('; ') });
    }
    return p.redirect(teamUrl(p.params.org!, p.params.team!), 'Member removed.');
  });

  // The secret is on this answer only: a reload of the team's page shows no secret.
  pages.post('/:org/settings/teams/:team/token', async (p) => {
    const issued = await tokens.createTeamToken(p.caller, p.params.team!, {});
    return teamPage(p, { secret: issued.secret });
  });

  pages.post('/:org/settings/teams/:team/token/delete', async (p) => {
    await tokens.deleteTeamToken(p.caller, p.params.team!);
    return p.redirect(teamUrl(p.params.org!, p.params.team!), 'Team token deleted.');
  });
}

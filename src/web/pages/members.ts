// People in an organization (TFE: Settings → Users): the memberships and invitations, inviting
// someone by e-mail address (optionally onto teams), removing a member or withdrawing an
// invitation. And the person's own invitations, in every organization, with Accept and Decline:
// the step TFE takes in its web UI. All through the memberships service with the person's caller.
import type { MembershipStatus } from '../../organization-memberships/service.ts';
import { button, checkbox, fieldErrors, field, form, isFormError, listPage, firstRows, pager, select, table, when, type FieldErrors } from '../components.ts';
import { html, path } from '../html.ts';
import type { PageContext, Pages } from '../page.ts';

/** The teams offered as checkboxes when inviting (the API's largest page). */
const TEAM_CHOICES = 100;

const membersUrl = (org: string) => path`/app/${org}/settings/members`;
export const INVITATIONS_URL = '/app/invitations';

const statusOf = (value: string | undefined): MembershipStatus | undefined => (value === 'invited' || value === 'active' ? value : undefined);

export function memberPages(pages: Pages): void {
  const { organizationMemberships: memberships, teams } = pages.services;

  async function inviteForm(p: PageContext, org: string, values: { email?: string; teamIds?: string[] }, errors: FieldErrors = {}) {
    const choices = await teams.list(p.caller, org, {}, firstRows(TEAM_CHOICES));
    const chosen = new Set(values.teamIds ?? []);
    return form({
      action: membersUrl(org),
      csrf: p.csrf,
      label: 'Invite someone',
      submit: 'Send invitation',
      error: errors[''] ?? errors.teams ?? errors.data,
      body: html`${field({
        label: 'E-mail address',
        name: 'email',
        type: 'email',
        value: values.email,
        required: true,
        error: errors.email,
        hint: 'Hangar sends no e-mail: tell them to sign in and accept the invitation under Invitations.',
      })}
      ${
        choices.teams.length
          ? html`<fieldset>
              <legend>Teams they join when they accept</legend>
              ${choices.teams.map((v) => checkbox({ label: v.team.name, name: 'team', value: v.team.id, checked: chosen.has(v.team.id) }))}
            </fieldset>`
          : ''
      }`,
    });
  }

  pages.get('/:org/settings/members', async (p) => {
    const org = p.params.org!;
    const page = listPage(p.query.page);
    const q = p.query.q?.trim() || undefined;
    const status = statusOf(p.query.status);
    const list = await memberships.list(p.caller, org, { search: q, status }, page, ['user', 'teams']);
    const names = new Map((list.users ?? []).map((u) => [u.user.id, u.user.username]));
    const teamNames = new Map((list.teams ?? []).map((t) => [t.team.id, t.team.name]));
    const body = html`<form method="get" action="${membersUrl(org)}" class="toolbar" role="search">
        <div class="field grow">
          <label for="member-q">Search by username or address</label><input type="search" id="member-q" name="q" value="${q ?? ''}" />
        </div>
        ${select({
          label: 'Status',
          name: 'status',
          value: status ?? '',
          options: [
            ['', 'Everyone'],
            ['active', 'Members'],
            ['invited', 'Invited'],
          ],
        })}
        <button type="submit" class="secondary">Filter</button>
      </form>
      ${table({
        caption: 'Members and invitations',
        captionHidden: true,
        head: ['Username', 'E-mail address', 'Status', 'Teams', 'Since', 'Action'],
        rows: list.memberships.map((m) => {
          const name = names.get(m.membership.userId) ?? '';
          const invited = m.membership.status === 'invited';
          return [
            name,
            m.membership.email,
            invited ? html`<span class="badge">invited</span>` : 'member',
            m.teamIds.map((id) => teamNames.get(id) ?? id).join(', '),
            when(m.membership.createdAt),
            button({
              action: path`/app/${org}/settings/members/${m.membership.id}/delete`,
              csrf: p.csrf,
              label: invited ? 'Withdraw' : 'Remove',
              danger: true,
              accessibleLabel: `${invited ? 'Withdraw the invitation of' : 'Remove'} ${name || m.membership.email}`,
              confirm: invited ? 'Withdraw this invitation?' : 'Remove this member from the organization and all its teams?',
            }),
          ];
        }),
        empty: q || status ? 'Nobody matches.' : 'No members yet.',
      })}
      ${pager({ base: membersUrl(org), query: { q, status }, page, total: list.total, noun: 'people' })}
      <h2>Invite someone</h2>
      ${await inviteForm(p, org, {})}`;
    return p.render({ title: 'Members', org, section: 'members', body });
  });

  pages.post('/:org/settings/members', async (p) => {
    const org = p.params.org!;
    const values = { email: p.form.get('email')?.trim() ?? '', teamIds: p.form.getAll('team') };
    try {
      await memberships.invite(p.caller, org, values);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.render({ title: 'Invite someone', org, section: 'members', body: await inviteForm(p, org, values, fieldErrors(error)) }, 422);
    }
    return p.redirect(membersUrl(org), `${values.email} is invited.`);
  });

  pages.post('/:org/settings/members/:membership/delete', async (p) => {
    try {
      await memberships.destroy(p.caller, p.params.membership!);
    } catch (error) {
      if (!isFormError(error)) throw error;
      return p.redirect(membersUrl(p.params.org!), { kind: 'error', text: Object.values(fieldErrors(error)).join('; ') });
    }
    return p.redirect(membersUrl(p.params.org!), 'Removed.');
  });

  // The person's own invitations, whatever organization they are to.
  pages.get('/invitations', async (p) => {
    const own = await memberships.listOwn(p.caller, ['teams']);
    const teamNames = new Map((own.teams ?? []).map((t) => [t.team.id, t.team.name]));
    const pending = own.memberships.filter((m) => m.membership.status === 'invited');
    const body = html`${table({
      caption: 'Invitations waiting for you',
      captionHidden: true,
      head: ['Organization', 'Teams', 'Invited', 'Action'],
      rows: pending.map((m) => [
        m.organizationName,
        m.teamIds.map((id) => teamNames.get(id) ?? id).join(', '),
        when(m.membership.createdAt),
        html`${button({
          action: path`/app/invitations/${m.membership.id}/accept`,
          csrf: p.csrf,
          label: 'Accept',
          accessibleLabel: `Accept the invitation to ${m.organizationName}`,
        })}
        ${button({
          action: path`/app/invitations/${m.membership.id}/decline`,
          csrf: p.csrf,
          label: 'Decline',
          danger: true,
          accessibleLabel: `Decline the invitation to ${m.organizationName}`,
          confirm: `Decline the invitation to ${m.organizationName}?`,
        })}`,
      ]),
      empty: 'No invitations are waiting for you.',
    })}`;
    return p.render({ title: 'Invitations', section: 'invitations', body });
  });

  pages.post('/invitations/:membership/accept', async (p) => {
    const accepted = await memberships.accept(p.caller, p.params.membership!);
    const org = accepted.memberships.organizationName;
    // Straight to the teams they joined (a redirect through /app/<org> would spend the message).
    return p.redirect(path`/app/${org}/settings/teams`, `Welcome to ${org}.`);
  });

  pages.post('/invitations/:membership/decline', async (p) => {
    await memberships.destroy(p.caller, p.params.membership!);
    return p.redirect(INVITATIONS_URL, 'Invitation declined.');
  });
}

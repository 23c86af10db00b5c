import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const OU_ID = /^ou-[0-9A-Za-z]{16}$/;

type Org = Awaited<ReturnType<TestContext['organization']>>;

const inviteBody = (email: string, teams: string[] = []) => ({
  data: {
    type: 'organization-memberships',
    attributes: { email },
    ...(teams.length ? { relationships: { teams: { data: teams.map((id) => ({ type: 'teams', id })) } } } : {}),
  },
});
const refs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'organization-memberships', id })) });

suite('organization memberships', (ctx) => {
  const listOf = (org: string) => `/api/v2/organizations/${org}/organization-memberships`;
  const one = (id: string) => `/api/v2/organization-memberships/${id}`;

  async function invite(org: Org, email = `${unique('p')}@example.test`, teams: string[] = []) {
    const res = await ctx.post(listOf(org.name), org.owner.token, inviteBody(email, teams));
    assertStatus(res, 201);
    return res.body;
  }
  async function team(org: Org, access: Record<string, boolean> = {}, visibility = 'organization') {
    const res = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: unique('team'), visibility, 'organization-access': access } },
    });
    assertStatus(res, 200);
    return res.body.data.id as string;
  }
  /** An existing user with a token, invited by address. */
  async function invitedUser(org: Org, teams: string[] = []) {
    const user = await ctx.user();
    const doc = await invite(org, `${user.username}@example.test`, teams);
    return { user, membership: doc.data };
  }

  it('invites by e-mail address: 201, invited, with the user included; show and list agree', async () => {
    const org = await ctx.organization();
    const email = `${unique('new')}@example.test`;
    const doc = await invite(org, email);
    const m = doc.data;
    assert.match(m.id, OU_ID);
    assert.equal(m.type, 'organization-memberships');
    assert.equal(m.attributes.status, 'invited');
    assert.equal(m.attributes.email, email);
    assert.deepEqual(m.relationships.organization.data, { id: org.name, type: 'organizations' });
    assert.deepEqual(m.relationships.teams.data, []);
    // A new user was made for the address, named after its local part.
    assert.equal(doc.included.length, 1);
    assert.equal(doc.included[0].type, 'users');
    assert.equal(doc.included[0].id, m.relationships.user.data.id);
    assert.equal(doc.included[0].attributes.username, email.split('@')[0]);

    const shown = await ctx.get(`${one(m.id)}?include=user`, org.owner.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body, doc);
    const list = await ctx.get(listOf(org.name), org.owner.token);
    assertStatus(list, 200);
    // The creator of the organization is its first, active, member.
    assert.deepEqual(
      list.body.data.map((d: any) => [d.relationships.user.data.id, d.attributes.status]),
      [
        [org.owner.id, 'active'],
        [m.relationships.user.data.id, 'invited'],
      ],
    );
    assert.deepEqual(list.body.data[1], m);
    assert.equal(list.body.meta.pagination['total-count'], 2);
  });

  it('matches an existing user by address, case-insensitively, and refuses a second invitation', async () => {
    const org = await ctx.organization();
    const user = await ctx.user();
    const doc = await invite(org, `${user.username.toUpperCase()}@EXAMPLE.test`);
    assert.equal(doc.data.relationships.user.data.id, user.id);
    assertError(await ctx.post(listOf(org.name), org.owner.token, inviteBody(`${user.username}@example.test`)), 422, '/data/attributes/email');
    // The owner is a member already.
    assertError(await ctx.post(listOf(org.name), org.owner.token, inviteBody(`${org.owner.username}@example.test`)), 422, '/data/attributes/email');
  });

  it('filters by filter[email], filter[status] and q, pages, and includes users and teams', async () => {
    const org = await ctx.organization();
    const t = await team(org);
    const a = (await invite(org, `${unique('alpha')}@example.test`, [t])).data;
    const b = (await invite(org)).data;
    await invite(org);
    const ids = (res: any) => res.body.data.map((d: any) => d.id);

    const byEmail = await ctx.get(`${listOf(org.name)}?filter[email]=${a.attributes.email.toUpperCase()},${b.attributes.email}`, org.owner.token);
    assert.deepEqual(ids(byEmail), [a.id, b.id]);
    const invited = await ctx.get(`${listOf(org.name)}?filter[status]=invited`, org.owner.token);
    assert.equal(invited.body.data.length, 3);
    assert.ok(invited.body.data.every((d: any) => d.attributes.status === 'invited'));
    const active = await ctx.get(`${listOf(org.name)}?filter[status]=active`, org.owner.token);
    assert.deepEqual(
      active.body.data.map((d: any) => d.relationships.user.data.id),
      [org.owner.id],
    );
    const searched = await ctx.get(`${listOf(org.name)}?q=alpha`, org.owner.token);
    assert.deepEqual(ids(searched), [a.id]);
    const byUsername = await ctx.get(`${listOf(org.name)}?q=${org.owner.username}`, org.owner.token);
    assert.equal(byUsername.body.data.length, 1);

    const paged = await ctx.get(`${listOf(org.name)}?page[size]=2&page[number]=2`, org.owner.token);
    assert.equal(paged.body.data.length, 2);
    assert.equal(paged.body.meta.pagination['total-count'], 4);
    const far = await ctx.get(`${listOf(org.name)}?page[number]=999`, org.owner.token);
    assert.deepEqual(far.body.data, []);
    assert.equal(far.body.meta.pagination['current-page'], 999);

    const withTeams = await ctx.get(`${listOf(org.name)}?filter[email]=${a.attributes.email}&include=user,teams`, org.owner.token);
    assertStatus(withTeams, 200);
    assert.deepEqual(withTeams.body.data[0].relationships.teams.data, [{ id: t, type: 'teams' }]);
    assert.deepEqual(withTeams.body.included.map((r: any) => `${r.type} ${r.id}`).sort(), [`teams ${t}`, `users ${a.relationships.user.data.id}`].sort());

    assertError(await ctx.get(`${listOf(org.name)}?filter[status]=gone`, org.owner.token), 400);
    assertError(await ctx.get(`${listOf(org.name)}?include=users`, org.owner.token), 400);
    assertError(await ctx.get(`${one(a.id)}?include=users`, org.owner.token), 400);
    assertError(await ctx.get(`${listOf(org.name)}?page[size]=x`, org.owner.token), 400);
  });

  it('refuses bad bodies with 422 at their pointer, a wrong content type with 415, and changes nothing', async () => {
    const org = await ctx.organization();
    const stranger = await ctx.organization();
    const foreignTeam = await team(stranger);
    assertError(await ctx.post(listOf(org.name), org.owner.token, inviteBody('not-an-email-address')), 422, '/data/attributes/email');
    assertError(
      await ctx.post(listOf(org.name), org.owner.token, { data: { type: 'organization-memberships', attributes: {} } }),
      422,
      '/data/attributes/email',
    );
    assertError(await ctx.post(listOf(org.name), org.owner.token, { data: { type: 'users', attributes: { email: 'a@b' } } }), 422, '/data/type');
    assertError(await ctx.post(listOf(org.name), org.owner.token, inviteBody('x@example.test', ['team-nope'])), 422, '/data/relationships/teams/data/0/id');
    assertError(await ctx.post(listOf(org.name), org.owner.token, inviteBody('x@example.test', [foreignTeam])), 422, '/data/relationships/teams/data/0/id');
    const wrongType = await ctx.request('POST', listOf(org.name), {
      token: org.owner.token,
      body: inviteBody('x@example.test'),
      contentType: 'application/json',
    });
    assertError(wrongType, 415);
    const list = await ctx.get(listOf(org.name), org.owner.token);
    assert.equal(list.body.data.length, 1, 'nothing was invited');
    assertError(await ctx.get(one('ou-nonexisting00000'), org.owner.token), 404);
    assertError(await ctx.delete(one('not-an-identifier'), org.owner.token), 404);
    assertError(await ctx.get(listOf(org.name), null), 401);
  });

  it('grants nothing until the invited user accepts; accepting joins the invited teams', async () => {
    const org = await ctx.organization();
    const t = await team(org, { 'manage-projects': true, 'manage-workspaces': true });
    const { user, membership } = await invitedUser(org, [t]);
    // Invited: the organization, its teams and its projects do not exist for the user yet.
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, user.token), 404);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}/projects`, user.token), 404);
    const teamBefore = await ctx.get(`/api/v2/teams/${t}?include=users,organization-memberships`, org.owner.token);
    assert.deepEqual(teamBefore.body.data.relationships.users.data, []);
    assert.deepEqual(teamBefore.body.data.relationships['organization-memberships'].data, [{ id: membership.id, type: 'organization-memberships' }]);

    // The user sees its own invitation, and the teams it names.
    const mine = await ctx.get('/api/v2/organization-memberships', user.token);
    assertStatus(mine, 200);
    assert.deepEqual(
      mine.body.data.map((d: any) => [d.id, d.attributes.status]),
      [[membership.id, 'invited']],
    );
    assert.deepEqual(mine.body.data[0].relationships.teams.data, [{ id: t, type: 'teams' }]);
    assertStatus(await ctx.get(one(membership.id), user.token), 200);

    // Nobody else accepts it: the owner sees it (403), a stranger does not (404).
    const accept = `${one(membership.id)}/actions/accept`;
    const post = (token: string) => ctx.request('POST', accept, { token, contentType: 'application/vnd.api+json' });
    assertError(await post(org.owner.token), 403);
    assertError(await post((await ctx.user()).token), 404);

    const accepted = await post(user.token);
    assertStatus(accepted, 200);
    assert.equal(accepted.body.data.attributes.status, 'active');
    assert.deepEqual(accepted.body.data.relationships.teams.data, [{ id: t, type: 'teams' }]);
    assertError(await post(user.token), 409);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, user.token), 200);
    assertStatus(
      await ctx.post(`/api/v2/organizations/${org.name}/projects`, user.token, { data: { type: 'projects', attributes: { name: unique('prj') } } }),
      201,
    );
    const teamAfter = await ctx.get(`/api/v2/teams/${t}?include=organization-memberships`, org.owner.token);
    assert.deepEqual(teamAfter.body.data.relationships.users.data, [{ id: user.id, type: 'users' }]);
    assert.deepEqual(teamAfter.body.data.relationships['organization-memberships'].data, [{ id: membership.id, type: 'organization-memberships' }]);
    assert.deepEqual(
      teamAfter.body.included.map((r: any) => r.id),
      [membership.id],
    );
  });

  it('adds and removes team members by membership: active ones at once, invited ones on accepting', async () => {
    const org = await ctx.organization();
    const t = await team(org);
    const { user, membership } = await invitedUser(org);
    const members = `/api/v2/teams/${t}/relationships/organization-memberships`;
    assertStatus(await ctx.post(members, org.owner.token, refs(membership.id)), 204);
    const users = async () => (await ctx.get(`/api/v2/teams/${t}`, org.owner.token)).body.data.relationships.users.data.map((u: any) => u.id);
    assert.deepEqual(await users(), []);
    assertStatus(await ctx.request('POST', `${one(membership.id)}/actions/accept`, { token: user.token, contentType: 'application/vnd.api+json' }), 200);
    assert.deepEqual(await users(), [user.id]);
    assertStatus(await ctx.delete(members, org.owner.token, refs(membership.id)), 204);
    assert.deepEqual(await users(), []);
    // The owner's own active membership puts the owner on the team at once.
    const ownerMembership = (await ctx.get(`${listOf(org.name)}?filter[status]=active`, org.owner.token)).body.data[0].id;
    assertStatus(await ctx.post(members, org.owner.token, refs(ownerMembership)), 204);
    assert.deepEqual(await users(), [org.owner.id]);

    // Another organization's membership, or none at all, is named in a 422.
    const other = await ctx.organization();
    const foreign = (await invite(other)).data.id;
    assertError(await ctx.post(members, org.owner.token, refs('ou-nope', foreign)), 422, '/data/1/id');
    assertError(await ctx.post(members, org.owner.token, { data: [] }), 422);
    assertError(await ctx.post(members, other.owner.token, refs(foreign)), 404);
  });

  it('putting an invited user on a team by username invites them to it instead', async () => {
    const org = await ctx.organization();
    const t = await team(org);
    const { user, membership } = await invitedUser(org);
    assertStatus(await ctx.post(`/api/v2/teams/${t}/relationships/users`, org.owner.token, { data: [{ type: 'users', id: user.username }] }), 204);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, user.token), 404);
    const shown = await ctx.get(one(membership.id), org.owner.token);
    assert.deepEqual(shown.body.data.relationships.teams.data, [{ id: t, type: 'teams' }]);
    // A user with no membership becomes an active member, as before invitations existed.
    const direct = await ctx.user();
    assertStatus(await ctx.post(`/api/v2/teams/${t}/relationships/users`, org.owner.token, { data: [{ type: 'users', id: direct.username }] }), 204);
    const active = await ctx.get(`${listOf(org.name)}?filter[status]=active&include=user`, org.owner.token);
    assert.ok(active.body.data.some((d: any) => d.relationships.user.data.id === direct.id));
  });

  it('deleting a membership takes its user off every team; the last owner cannot leave', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org);
    const list = await ctx.get(`${listOf(org.name)}?filter[status]=active`, org.owner.token);
    const byUser = new Map(list.body.data.map((d: any) => [d.relationships.user.data.id, d.id]));
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, member.token), 200);
    assertStatus(await ctx.delete(one(byUser.get(member.id) as string), org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, member.token), 404);
    const team = await ctx.get(`/api/v2/teams/${member.teamId}`, org.owner.token);
    assert.deepEqual(team.body.data.relationships.users.data, []);
    assertError(await ctx.delete(one(byUser.get(org.owner.id) as string), org.owner.token), 409);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token), 200);
  });

  it('lets a user decline an invitation or leave an organization', async () => {
    const org = await ctx.organization();
    const { user, membership } = await invitedUser(org);
    assertStatus(await ctx.delete(one(membership.id), user.token), 204);
    assertError(await ctx.get(one(membership.id), org.owner.token), 404);
  });

  it('keeps memberships to owners and manage-membership, and their powers to what they hold', async () => {
    const org = await ctx.organization();
    const plain = await ctx.member(org);
    const manager = await ctx.member(org, { 'manage-membership': true });
    const invitation = (await invite(org)).data;
    // A plain member sees the organization but not its members' addresses; the invitation does not exist for it.
    assertError(await ctx.get(listOf(org.name), plain.token), 403);
    assertError(await ctx.post(listOf(org.name), plain.token, inviteBody('z@example.test')), 403);
    assertError(await ctx.get(one(invitation.id), plain.token), 404);
    assertError(await ctx.delete(one(invitation.id), plain.token), 404);
    // Another organization's owner: everything is a 404.
    const stranger = await ctx.organization();
    assertError(await ctx.get(listOf(org.name), stranger.owner.token), 404);
    assertError(await ctx.post(listOf(org.name), stranger.owner.token, inviteBody('z@example.test')), 404);
    assertError(await ctx.get(one(invitation.id), stranger.owner.token), 404);
    assertError(await ctx.delete(one(invitation.id), stranger.owner.token), 404);

    // A membership manager lists and invites, but not onto the owners team, nor onto a team
    // holding what it does not hold; nor may it remove an owner.
    assertStatus(await ctx.get(listOf(org.name), manager.token), 200);
    assertStatus(await ctx.post(listOf(org.name), manager.token, inviteBody(`${unique('m')}@example.test`)), 201);
    const owners = (await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=owners`, org.owner.token)).body.data[0].id;
    const strong = await team(org, { 'manage-policies': true });
    // The owners team is secret: to the manager it does not exist.
    assertError(
      await ctx.post(listOf(org.name), manager.token, inviteBody(`${unique('m')}@example.test`, [owners])),
      422,
      '/data/relationships/teams/data/0/id',
    );
    assertError(await ctx.post(listOf(org.name), manager.token, inviteBody(`${unique('m')}@example.test`, [strong])), 403);
    assertError(await ctx.post(`/api/v2/teams/${strong}/relationships/organization-memberships`, manager.token, refs(invitation.id)), 403);
    const ownerMembership = (await ctx.get(`${listOf(org.name)}?q=${org.owner.username}`, org.owner.token)).body.data[0].id;
    assertError(await ctx.delete(one(ownerMembership), manager.token), 403);
    assertStatus(await ctx.delete(one(invitation.id), manager.token), 204);
    // Nothing leaked into the logs.
    assert.ok(!ctx.logs.includes(org.owner.token));
  });

  it('answers a list with a fixed number of queries, whatever its length', async () => {
    const org = await ctx.organization();
    const t = await team(org);
    const count = async () => (await ctx.countQueries(() => ctx.get(`${listOf(org.name)}?include=user,teams`, org.owner.token))).queries;
    await invite(org, undefined, [t]);
    const few = await count();
    for (let i = 0; i < 4; i++) await invite(org, undefined, [t]);
    assert.equal(await count(), few);
  });
});

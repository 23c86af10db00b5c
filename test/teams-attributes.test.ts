// The team attributes and includes real clients use (go-tfe's team tests): names with spaces,
// `sso-team-id`, `allow-member-token-management`, organization access merged key by key, and
// `include=users`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes } });
const members = (...usernames: string[]) => ({ data: usernames.map((id) => ({ type: 'users', id })) });

suite('team attributes', (ctx) => {
  const teamsOf = (org: string) => `/api/v2/organizations/${org}/teams`;

  it('stores sso-team-id and allow-member-token-management (default true); create, show, list and update agree', async () => {
    const org = await ctx.organization();
    const plain = await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: unique('plain') }));
    assertStatus(plain, 200);
    assert.equal(plain.body.data.attributes['sso-team-id'], null);
    assert.equal(plain.body.data.attributes['allow-member-token-management'], true);

    const sso = '7dddb675-73e0-4858-a8ad-0e597064301b';
    const made = await ctx.post(
      teamsOf(org.name),
      org.owner.token,
      teamBody({ name: unique('sso'), 'sso-team-id': sso, 'allow-member-token-management': false }),
    );
    assertStatus(made, 200);
    const team = made.body.data;
    assert.equal(team.attributes['sso-team-id'], sso);
    assert.equal(team.attributes['allow-member-token-management'], false);
    assert.deepEqual((await ctx.get(`/api/v2/teams/${team.id}`, org.owner.token)).body.data, team);
    const listed = await ctx.get(`${teamsOf(org.name)}?filter[names]=${team.attributes.name}`, org.owner.token);
    assert.deepEqual(listed.body.data, [team]);

    const url = `/api/v2/teams/${team.id}`;
    const flipped = await ctx.patch(url, org.owner.token, teamBody({ 'allow-member-token-management': true }));
    assert.equal(flipped.body.data.attributes['allow-member-token-management'], true);
    assert.equal(flipped.body.data.attributes['sso-team-id'], sso, 'unsent attributes stay');
    // An empty or null identifier clears it.
    assert.equal((await ctx.patch(url, org.owner.token, teamBody({ 'sso-team-id': '' }))).body.data.attributes['sso-team-id'], null);
    await ctx.patch(url, org.owner.token, teamBody({ 'sso-team-id': 'abc' }));
    assert.equal((await ctx.patch(url, org.owner.token, teamBody({ 'sso-team-id': null }))).body.data.attributes['sso-team-id'], null);
  });

  it('accepts names with spaces inside, as the service does, but not at either end', async () => {
    const org = await ctx.organization();
    const made = await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: 'foo bar' }));
    assertStatus(made, 200);
    assert.equal(made.body.data.attributes.name, 'foo bar');
    const url = `/api/v2/teams/${made.body.data.id}`;
    assertStatus(await ctx.patch(url, org.owner.token, teamBody({ name: 'foo  bar_-9' })), 200);
    for (const bad of [' foo', 'foo ', 'foo.bar', 'föö']) {
      const refused = assertError(await ctx.patch(url, org.owner.token, teamBody({ name: bad })), 422, '/data/attributes/name');
      assert.match(refused.detail!, /spaces/);
    }
    assertError(await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: 'FOO  BAR_-9' })), 422, '/data/attributes/name');
    // An unknown team is 404 whatever the body holds.
    assertError(await ctx.patch('/api/v2/teams/nonexisting', org.owner.token, teamBody({ name: ' bad ' })), 404);
  });

  it('merges organization access key by key and changes nothing else', async () => {
    const org = await ctx.organization();
    const initial = { 'manage-policies': true, 'manage-policy-overrides': true, 'manage-providers': true, 'manage-modules': true };
    const made = await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: unique('t'), 'organization-access': initial }));
    const before = made.body.data.attributes['organization-access'];
    const url = `/api/v2/teams/${made.body.data.id}`;
    const change = { 'manage-membership': true, 'manage-teams': true, 'access-secret-teams': true, 'manage-agent-pools': true, 'manage-policies': false };
    const updated = await ctx.patch(url, org.owner.token, teamBody({ 'organization-access': change }));
    assertStatus(updated, 200);
    assert.deepEqual(updated.body.data.attributes['organization-access'], { ...before, ...change });
    assert.deepEqual((await ctx.get(url, org.owner.token)).body.data.attributes['organization-access'], { ...before, ...change });
    for (const key of [
      'manage-policies',
      'manage-policy-overrides',
      'manage-workspaces',
      'manage-vcs-settings',
      'manage-providers',
      'manage-modules',
      'manage-run-tasks',
      'manage-projects',
      'read-workspaces',
      'read-projects',
      'manage-membership',
      'manage-teams',
      'manage-organization-access',
      'access-secret-teams',
      'manage-agent-pools',
    ]) {
      assert.equal(typeof before[key], 'boolean', `organization-access.${key}`);
    }
  });

  it('includes the members as users with include=users, on a team and on a list', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org);
    const other = await ctx.user();
    assertStatus(await ctx.post(`/api/v2/teams/${member.teamId}/relationships/users`, org.owner.token, members(other.username)), 204);

    const plain = await ctx.get(`/api/v2/teams/${member.teamId}`, member.token);
    assert.equal(plain.body.included, undefined);
    const shown = await ctx.get(`/api/v2/teams/${member.teamId}?include=users`, member.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, plain.body.data);
    const users = new Map(shown.body.included.map((u: any) => [u.id, u]));
    assert.deepEqual([...users.keys()].sort(), [member.id, other.id].sort());
    const self: any = users.get(member.id);
    assert.equal(self.type, 'users');
    assert.equal(self.attributes.username, member.username);
    // As on /users/:id, only the caller's own e-mail address is shown.
    assert.equal(self.attributes.email, `${member.username}@example.test`);
    assert.equal((users.get(other.id) as any).attributes.email, undefined);

    const list = await ctx.get(`${teamsOf(org.name)}?include=users&page[size]=100`, org.owner.token);
    assertStatus(list, 200);
    const included = list.body.included.map((u: any) => u.id).sort();
    assert.deepEqual(included, [org.owner.id, member.id, other.id].sort());
    assert.equal((await ctx.get(teamsOf(org.name), org.owner.token)).body.included, undefined);
  });

  it("refuses bad values with 422 at their pointer, unknown includes with 400, and hides other organizations' teams", async () => {
    const org = await ctx.organization();
    const made = (await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: unique('t') }))).body.data;
    const url = `/api/v2/teams/${made.id}`;
    assertError(await ctx.patch(url, org.owner.token, teamBody({ 'sso-team-id': 42 })), 422, '/data/attributes/sso-team-id');
    assertError(await ctx.patch(url, org.owner.token, teamBody({ 'sso-team-id': 'x'.repeat(256) })), 422, '/data/attributes/sso-team-id');
    assertError(
      await ctx.post(teamsOf(org.name), org.owner.token, teamBody({ name: unique('t'), 'allow-member-token-management': 'yes' })),
      422,
      '/data/attributes/allow-member-token-management',
    );
    const badInclude = assertError(await ctx.get(`${url}?include=memberships`, org.owner.token), 400);
    assert.match(badInclude.detail!, /memberships/);
    assertError(await ctx.get(`${teamsOf(org.name)}?include=nope`, org.owner.token), 400);
    const stranger = await ctx.organization();
    assertError(await ctx.get(`${url}?include=users`, stranger.owner.token), 404);
    assertError(await ctx.patch(url, stranger.owner.token, teamBody({ 'sso-team-id': 'x' })), 404);
    assertError(await ctx.get(`${url}?include=users`), 401);
    assertError(await ctx.request('PATCH', url, { token: org.owner.token, body: teamBody({ 'sso-team-id': 'x' }), contentType: 'text/plain' }), 415);
    // Nothing changed.
    assert.deepEqual((await ctx.get(url, org.owner.token)).body.data, made);
  });
});

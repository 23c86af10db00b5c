import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { settledStatements } from './helpers/settled.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const teamBody = (name: string, attributes: Record<string, unknown> = {}) => ({ data: { type: 'teams', attributes: { name, ...attributes } } });
const members = (...usernames: string[]) => ({ data: usernames.map((id) => ({ type: 'users', id })) });

suite('teams', (ctx) => {
  it('creates a team (200, as TFE) with organization access, and membership grants it', async () => {
    const org = await ctx.organization();
    const name = unique('devs');
    const res = await ctx.post(
      `/api/v2/organizations/${org.name}/teams`,
      org.owner.token,
      teamBody(name, {
        visibility: 'organization',
        'organization-access': { 'manage-projects': true, 'not-a-real-flag': true },
      }),
    );
    assertStatus(res, 200);
    const team = res.body.data;
    assert.match(team.id, /^team-[0-9A-Za-z]{16}$/);
    assert.equal(team.attributes['organization-access']['manage-projects'], true);
    assert.equal(team.attributes['organization-access']['manage-policies'], false);
    assert.equal(team.attributes['organization-access']['not-a-real-flag'], undefined);
    assert.equal(team.attributes['users-count'], 0);

    const user = await ctx.user();
    // Not a member yet: the organization does not exist for this user.
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, user.token), 404);
    assertStatus(await ctx.post(`/api/v2/teams/${team.id}/relationships/users`, org.owner.token, members(user.username.toUpperCase())), 204);
    const shown = await ctx.get(`/api/v2/organizations/${org.name}`, user.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.permissions['can-create-project'], true);
    assert.equal(shown.body.data.attributes.permissions['can-update'], false);

    const after = await ctx.get(`/api/v2/teams/${team.id}`, user.token);
    assert.equal(after.body.data.attributes['users-count'], 1);
    assert.deepEqual(after.body.data.relationships.users.data, [{ id: user.id, type: 'users' }]);

    assertStatus(await ctx.delete(`/api/v2/teams/${team.id}/relationships/users`, org.owner.token, members(user.username)), 204);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, user.token), 404);
  });

  it('a page of teams is one statement with members and count once the caller is known, each team as its show answers; past the end, one more', async () => {
    const org = await ctx.organization();
    const a = await ctx.member(org);
    const b = await ctx.member(org, { 'manage-teams': true });
    const shared = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, teamBody(unique('shared'), { visibility: 'organization' }));
    // Put on the team together: the same creation time, ordered alike by the show and the page.
    const people = [a, b].map((u) => u.username);
    assertStatus(await ctx.post(`/api/v2/teams/${shared.body.data.id}/relationships/users`, org.owner.token, members(...people)), 204);
    const url = (qs: string) => `/api/v2/organizations/${org.name}/teams${qs}`;
    for (const caller of [org.owner, a, b]) {
      const get = (qs: string) => ctx.get(url(qs), caller.token);
      const settled = async (qs: string, expected: number) => {
        const found = await settledStatements(ctx, () => get(qs), expected);
        assertStatus(found.result, 200);
        assert.equal(found.statements.length, expected, found.statements.join('\n'));
        return found;
      };
      const page = await settled('?page[size]=3', 1);
      const all = (await get('?page[size]=100')).body;
      assert.equal(page.result.body.meta.pagination['total-count'], all.data.length);
      assert.deepEqual(page.result.body.data, all.data.slice(0, 3));
      // Members who joined together come in the database's order, which a show and a page need not share.
      const joined = (t: any) => ({
        ...t,
        relationships: { ...t.relationships, users: { data: [...t.relationships.users.data].sort((x, y) => (x.id < y.id ? -1 : 1)) } },
      });
      for (const team of all.data) {
        const shown = await ctx.get(`/api/v2/teams/${team.id}`, caller.token);
        assert.deepEqual(joined(team), joined(shown.body.data), `${team.attributes.name} as its show answers`);
      }
      const past = await settled('?page[size]=3&page[number]=9', 2);
      assert.deepEqual([past.result.body.data.length, past.result.body.meta.pagination['total-count']], [0, all.data.length]);
    }
    // The owner sees the four teams, a plain member its own and the shared one.
    assert.equal((await ctx.get(url(''), org.owner.token)).body.meta.pagination['total-count'], 4);
    assert.equal((await ctx.get(url(''), a.token)).body.meta.pagination['total-count'], 2);
    const listed = (await ctx.get(url(''), a.token)).body.data.find((t: any) => t.id === shared.body.data.id);
    assert.equal(listed.attributes['users-count'], 2);
    // What is kept is the statement, never its answer.
    await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, teamBody(unique('later'), { visibility: 'organization' }));
    assert.equal((await ctx.get(url(''), a.token)).body.meta.pagination['total-count'], 3);
  });

  it('lists with q and filter[names], and hides secret teams from plain members', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org); // on a secret team of its own
    const visible = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, teamBody(unique('visible'), { visibility: 'organization' }));
    const secret = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, teamBody(unique('hidden')));

    const asOwner = await ctx.get(`/api/v2/organizations/${org.name}/teams?page[size]=100`, org.owner.token);
    assert.equal(asOwner.body.meta.pagination['total-count'], 4);
    const asMember = await ctx.get(`/api/v2/organizations/${org.name}/teams`, member.token);
    const seen = asMember.body.data.map((t: any) => t.id).sort();
    assert.deepEqual(seen, [member.teamId, visible.body.data.id].sort());
    assertError(await ctx.get(`/api/v2/teams/${secret.body.data.id}`, member.token), 404);

    const byName = await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=OWNERS,${visible.body.data.attributes.name}`, org.owner.token);
    assert.equal(byName.body.data.length, 2);
    const bySearch = await ctx.get(`/api/v2/organizations/${org.name}/teams?q=hidd`, org.owner.token);
    assert.deepEqual(
      bySearch.body.data.map((t: any) => t.id),
      [secret.body.data.id],
    );
    // LIKE wildcards in the search are literal characters.
    const wildcard = await ctx.get(`/api/v2/organizations/${org.name}/teams?q=%25`, org.owner.token);
    assert.equal(wildcard.body.data.length, 0);
  });

  it('protects the owners team: no delete, rename or access change, never empty', async () => {
    const org = await ctx.organization();
    const list = await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=owners`, org.owner.token);
    const owners = list.body.data[0];
    assertError(await ctx.delete(`/api/v2/teams/${owners.id}`, org.owner.token), 403);
    assertError(await ctx.patch(`/api/v2/teams/${owners.id}`, org.owner.token, teamBody('admins')), 422, '/data/attributes/name');
    assertError(
      await ctx.patch(`/api/v2/teams/${owners.id}`, org.owner.token, {
        data: { type: 'teams', attributes: { 'organization-access': { 'manage-projects': false } } },
      }),
      422,
      '/data/attributes/organization-access',
    );
    assertError(await ctx.delete(`/api/v2/teams/${owners.id}/relationships/users`, org.owner.token, members(org.owner.username)), 409);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token), 200);
  });

  it('lets only owners change who is on the owners team, so team managers cannot make themselves owners', async () => {
    const org = await ctx.organization();
    // With access to secret teams a manager sees the owners team, and still may not change it.
    const manager = await ctx.member(org, { 'manage-teams': true, 'manage-membership': true, 'access-secret-teams': true });
    const owners = (await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=owners`, manager.token)).body.data[0];
    assert.equal(owners.attributes.name, 'owners', 'this manager sees the owners team');
    const blind = await ctx.member(org, { 'manage-teams': true, 'manage-membership': true });
    assertError(await ctx.post(`/api/v2/teams/${owners.id}/relationships/users`, blind.token, members(blind.username)), 404);
    const add = assertError(await ctx.post(`/api/v2/teams/${owners.id}/relationships/users`, manager.token, members(manager.username)), 403);
    assert.match(add.detail!, /owners/);
    assertError(await ctx.delete(`/api/v2/teams/${owners.id}/relationships/users`, manager.token, members(org.owner.username)), 403);
    // Nothing changed: the manager is still no owner, the owner still is.
    assertError(await ctx.delete(`/api/v2/organizations/${org.name}`, manager.token), 403);
    const after = (await ctx.get(`/api/v2/teams/${owners.id}`, org.owner.token)).body.data;
    assert.deepEqual(
      after.relationships.users.data.map((u: { id: string }) => u.id),
      [org.owner.id],
    );
    // Owners still manage it.
    assertStatus(await ctx.post(`/api/v2/teams/${owners.id}/relationships/users`, org.owner.token, members(manager.username)), 204);
    assertStatus(await ctx.delete(`/api/v2/teams/${owners.id}/relationships/users`, org.owner.token, members(manager.username)), 204);
  });

  it('lets team managers hand out organization access only with manage-organization-access', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/teams`;
    const manager = await ctx.member(org, { 'manage-teams': true });
    const grant = { 'organization-access': { 'manage-projects': true } };
    const refused = assertError(await ctx.post(url, manager.token, teamBody(unique('t'), grant)), 403);
    assert.match(refused.detail!, /manage-organization-access/);
    // Not even to its own team: that would be a way to any permission.
    assertError(await ctx.patch(`/api/v2/teams/${manager.teamId}`, manager.token, { data: { type: 'teams', attributes: grant } }), 403);
    const own = await ctx.get(`/api/v2/organizations/${org.name}`, manager.token);
    assert.equal(own.body.data.attributes.permissions['can-create-project'], false);
    // Plain team management still works, and sending the flags a team already has is no change.
    const made = await ctx.post(url, manager.token, teamBody(unique('t'), { visibility: 'organization', 'organization-access': { 'manage-projects': false } }));
    assertStatus(made, 200);
    // Giving a flag also takes holding it (see escalation.test.ts): this granter holds manage-projects.
    const granter = await ctx.member(org, { 'manage-teams': true, 'manage-organization-access': true, 'manage-projects': true });
    const granted = await ctx.patch(`/api/v2/teams/${made.body.data.id}`, granter.token, { data: { type: 'teams', attributes: grant } });
    assertStatus(granted, 200);
    assert.equal(granted.body.data.attributes['organization-access']['manage-projects'], true);
  });

  it('shows secret teams to their members, owners and access-secret-teams, not to team managers', async () => {
    const org = await ctx.organization();
    const secret = (await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, teamBody(unique('secret')))).body.data;
    const manager = await ctx.member(org, { 'manage-teams': true });
    const seer = await ctx.member(org, { 'access-secret-teams': true });
    assertError(await ctx.get(`/api/v2/teams/${secret.id}`, manager.token), 404);
    assertError(await ctx.delete(`/api/v2/teams/${secret.id}`, manager.token), 404);
    assertStatus(await ctx.get(`/api/v2/teams/${secret.id}`, seer.token), 200);
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/teams?page[size]=100`, seer.token);
    assert.ok(listed.body.data.some((t: any) => t.id === secret.id));
  });

  it('validates bodies and names, and keeps names unique per organization', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/teams`;
    assertError(await ctx.post(url, org.owner.token, teamBody(' leading space')), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, teamBody('dot.ted')), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, teamBody('ok', { visibility: 'public' })), 422, '/data/attributes/visibility');
    assertError(
      await ctx.post(url, org.owner.token, teamBody('ok', { 'organization-access': { 'manage-projects': 'yes' } })),
      422,
      '/data/attributes/organization-access/manage-projects',
    );
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'users', attributes: { name: 'x' } } }), 422, '/data/type');
    const name = unique('dup');
    assertStatus(await ctx.post(url, org.owner.token, teamBody(name)), 200);
    assertError(await ctx.post(url, org.owner.token, teamBody(name.toUpperCase())), 422, '/data/attributes/name');
    assertError(await ctx.request('POST', url, { token: org.owner.token, body: teamBody(unique('t')), contentType: 'text/plain' }), 415);
    const team = (await ctx.post(url, org.owner.token, teamBody(unique('t')))).body.data;
    assertError(await ctx.post(`/api/v2/teams/${team.id}/relationships/users`, org.owner.token, members('no-such-user')), 422, '/data/0/id');
    assertError(await ctx.post(`/api/v2/teams/${team.id}/relationships/users`, org.owner.token, { data: [] }), 422, '/data');
    assertError(await ctx.get('/api/v2/teams/team-0000000000000000', org.owner.token), 404);
  });

  it('lets only team managers change teams; other organizations see nothing', async () => {
    const org = await ctx.organization();
    const plain = await ctx.member(org);
    const manager = await ctx.member(org, { 'manage-teams': true });
    const stranger = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/teams`;
    assertError(await ctx.post(url, plain.token, teamBody(unique('t'))), 403);
    assertError(await ctx.post(url, stranger.owner.token, teamBody(unique('t'))), 404);
    assertError(await ctx.get(url, stranger.owner.token), 404);
    const made = await ctx.post(url, manager.token, teamBody(unique('t'), { visibility: 'organization' }));
    assertStatus(made, 200);
    const id = made.body.data.id;
    assertError(await ctx.patch(`/api/v2/teams/${id}`, plain.token, teamBody(unique('r'))), 403);
    assertError(await ctx.patch(`/api/v2/teams/${id}`, stranger.owner.token, teamBody(unique('r'))), 404);
    assertError(await ctx.delete(`/api/v2/teams/${id}`, plain.token), 403);
    assertError(await ctx.delete(`/api/v2/teams/${id}`, stranger.owner.token), 404);
    assertError(await ctx.post(`/api/v2/teams/${id}/relationships/users`, plain.token, members(plain.username)), 403);
    const renamed = await ctx.patch(`/api/v2/teams/${id}`, manager.token, teamBody('renamed-team'));
    assertStatus(renamed, 200);
    assert.equal(renamed.body.data.attributes.name, 'renamed-team');
    assertStatus(await ctx.delete(`/api/v2/teams/${id}`, manager.token), 204);
    assertError(await ctx.get(`/api/v2/teams/${id}`, manager.token), 404);
  });
});

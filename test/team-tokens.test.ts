import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { digestSecret } from '../src/auth/secrets.ts';
import { MAX_TEAM_TOKENS } from '../src/tokens/service.ts';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const SECRET = /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/;
// go-tfe sends an empty type.
const body = (attributes: Record<string, unknown> = {}) => ({ data: { type: '', attributes } });

suite('team tokens', (ctx) => {
  async function team(org: { name: string; owner: { token: string } }, access: Record<string, boolean> = {}, visibility = 'organization') {
    const res = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: unique('team'), visibility, 'organization-access': access } },
    });
    assertStatus(res, 200);
    return res.body.data.id as string;
  }

  it('caps the tokens of one team at 20, the legacy token included; replacing the legacy token adds none', async () => {
    const org = await ctx.organization();
    const teamId = await team(org);
    const mint = (description: string) => ctx.post(`/api/v2/teams/${teamId}/authentication-tokens`, org.owner.token, body({ description }));
    assertStatus(await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body()), 201);
    for (let i = 1; i < MAX_TEAM_TOKENS; i++) assertStatus(await mint(`t${i}`), 201);
    const refused = assertError(await mint('one too many'), 409);
    assert.match(refused.detail ?? '', /at most 20 tokens/);
    // The legacy token is replaced, not added to.
    assertStatus(await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body()), 201);
    const tokens = await ctx.database.db.selectFrom('auth_tokens').select('id').where('team_id', '=', teamId).execute();
    assert.equal(tokens.length, MAX_TEAM_TOKENS);
    // Deleting one makes room; another team is not concerned.
    assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${tokens[1]!.id}`, org.owner.token), 204);
    assertStatus(await mint('room again'), 201);
    assertStatus(await ctx.post(`/api/v2/teams/${await team(org)}/authentication-tokens`, org.owner.token, body({ description: 'x' })), 201);
    // Created at once, no more than the cap get through.
    const crowded = await team(org);
    const all = await Promise.all(
      Array.from({ length: MAX_TEAM_TOKENS + 5 }, (_, i) =>
        ctx.post(`/api/v2/teams/${crowded}/authentication-tokens`, org.owner.token, body({ description: `c${i}` })),
      ),
    );
    assert.equal(all.filter((r) => r.status === 201).length, MAX_TEAM_TOKENS);
    assert.equal((await ctx.database.db.selectFrom('auth_tokens').select('id').where('team_id', '=', crowded).execute()).length, MAX_TEAM_TOKENS);
  });

  it('creates a token shown once, that acts as its team and is stored only as a digest', async () => {
    const org = await ctx.organization();
    const teamId = await team(org, { 'manage-projects': true });
    const res = await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body());
    assertStatus(res, 201);
    const secret = res.body.data.attributes.token;
    assert.match(secret, SECRET);
    assert.equal(res.body.data.type, 'authentication-tokens');
    assert.deepEqual(res.body.data.relationships.team.data, { id: teamId, type: 'teams' });
    assert.deepEqual(res.body.data.relationships['created-by'].data, { id: org.owner.id, type: 'users' });

    // The team holds manage-projects: its token creates projects, and is no user.
    const created = await ctx.post(`/api/v2/organizations/${org.name}/projects`, secret, { data: { type: 'projects', attributes: { name: unique('p') } } });
    assertStatus(created, 201);
    assertError(await ctx.get('/api/v2/account/details', secret), 404);
    assertError(await ctx.post('/api/v2/organizations', secret, { data: { type: 'organizations', attributes: { name: unique('o'), email: 'a@b.c' } } }), 403);
    // Nothing the team does not hold: organization settings and tokens.
    assertError(await ctx.patch(`/api/v2/organizations/${org.name}`, secret, { data: { type: 'organizations', attributes: { email: 'x@y.z' } } }), 403);
    // Another organization does not exist for it.
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/organizations/${other.name}`, secret), 404);

    const shown = await ctx.get(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.id, res.body.data.id);
    assert.equal(shown.body.data.attributes.token, null);
    const byId = await ctx.get(`/api/v2/authentication-tokens/${res.body.data.id}`, org.owner.token);
    assertStatus(byId, 200);
    assert.equal(byId.body.data.attributes.token, null);

    const rows = await ctx.database.db.selectFrom('auth_tokens').selectAll().execute();
    assert.ok(rows.some((r) => r.digest === digestSecret(secret) && r.kind === 'team' && r.team_id === teamId));
    assert.ok(!JSON.stringify(rows).includes(secret));
    assert.ok(!ctx.logs.includes(secret));
  });

  it('replaces the previous token on create; delete revokes it; deleting the team deletes it', async () => {
    const org = await ctx.organization();
    const teamId = await team(org);
    const first = (await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body())).body.data.attributes.token;
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, first), 200);
    const second = (await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body())).body.data.attributes.token;
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, first), 401);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, second), 200);
    assertStatus(await ctx.delete(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, second), 401);
    assertError(await ctx.get(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token), 404);

    const third = (await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body())).body.data.attributes.token;
    assertStatus(await ctx.delete(`/api/v2/teams/${teamId}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, third), 401);
  });

  it('validates the body, the content type and the expiry', async () => {
    const org = await ctx.organization();
    const teamId = await team(org);
    const url = `/api/v2/teams/${teamId}/authentication-token`;
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'tokens' } }), 422, '/data/type');
    assertError(await ctx.post(url, org.owner.token, body({ 'expired-at': '2001-01-01T00:00:00Z' })), 422, '/data/attributes/expired-at');
    assertError(await ctx.post(url, org.owner.token, body({ 'expired-at': 'soon' })), 422, '/data/attributes/expired-at');
    assertError(await ctx.request('POST', url, { token: org.owner.token, rawBody: '{}', contentType: 'text/plain' }), 415);
    assertError(await ctx.post(url, null, body()), 401);
    const ok = await ctx.post(url, org.owner.token, body({ 'expired-at': '2099-01-01T00:00:00Z' }));
    assertStatus(ok, 201);
    assert.equal(ok.body.data.attributes['expired-at'], '2099-01-01T00:00:00.000Z');
    assertError(await ctx.post('/api/v2/teams/team-doesnotexist00000/authentication-token', org.owner.token, body()), 404);
  });

  it('is managed by owners and manage-teams; hidden from other organizations', async () => {
    const org = await ctx.organization();
    const teamId = await team(org, {});
    const url = `/api/v2/teams/${teamId}/authentication-token`;
    const plain = await ctx.member(org);
    const managers = await ctx.member(org, { 'manage-teams': true });
    // A member who sees the team but does not manage teams is refused; a secret team is not seen.
    assertError(await ctx.post(url, plain.token, body()), 403);
    assertError(await ctx.get(url, plain.token), 403);
    const secret = await team(org, {}, 'secret');
    assertError(await ctx.post(`/api/v2/teams/${secret}/authentication-token`, plain.token, body()), 404);
    assertStatus(await ctx.post(url, managers.token, body()), 201);
    const other = await ctx.organization();
    assertError(await ctx.post(url, other.owner.token, body()), 404);
    assertError(await ctx.get(url, other.owner.token), 404);
    assertError(await ctx.delete(url, other.owner.token), 404);
  });

  it('nobody takes a token of a team holding more than they do', async () => {
    const org = await ctx.organization();
    const managers = await ctx.member(org, { 'manage-teams': true });
    const strong = await team(org, { 'manage-projects': true });
    const refused = assertError(await ctx.post(`/api/v2/teams/${strong}/authentication-token`, managers.token, body()), 403);
    assert.match(refused.detail ?? '', /manage-projects/);
    // Nor of the owners team.
    const teams = await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=owners`, org.owner.token);
    const owners = teams.body.data[0].id;
    const res = await ctx.post(`/api/v2/teams/${owners}/authentication-token`, managers.token, body());
    assert.ok(res.status === 403 || res.status === 404, `got ${res.status}`);
  });

  it('an owners-team token is an owner of its organization', async () => {
    const org = await ctx.organization();
    const teams = await ctx.get(`/api/v2/organizations/${org.name}/teams?filter[names]=owners`, org.owner.token);
    const owners = teams.body.data[0].id;
    const secret = (await ctx.post(`/api/v2/teams/${owners}/authentication-token`, org.owner.token, body())).body.data.attributes.token;
    assertStatus(await ctx.patch(`/api/v2/organizations/${org.name}`, secret, { data: { type: 'organizations', attributes: { email: 'x@y.z' } } }), 200);
  });

  describe('several tokens per team (POST /teams/:team_id/authentication-tokens)', () => {
    const described = (teamId: string, token: string, attributes: Record<string, unknown>) =>
      ctx.post(`/api/v2/teams/${teamId}/authentication-tokens`, token, { data: { type: 'authentication-tokens', attributes } });

    it('creates tokens beside each other and beside the legacy one, each working, each description once per team', async () => {
      const org = await ctx.organization();
      const teamId = await team(org, { 'manage-projects': true });
      const legacy = await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body());
      const ci = await described(teamId, org.owner.token, { description: 'ci' });
      assertStatus(ci, 201);
      assert.equal(ci.body.data.attributes.description, 'ci');
      assert.match(ci.body.data.attributes.token, SECRET);
      assert.deepEqual(ci.body.data.relationships.team.data, { id: teamId, type: 'teams' });
      // An empty description is a description (go-tfe sends one); it too is taken once.
      const empty = await described(teamId, org.owner.token, { description: '', 'expired-at': '2099-01-01T00:00:00Z' });
      assertStatus(empty, 201);
      assert.equal(empty.body.data.attributes.description, '');
      assert.equal(empty.body.data.attributes['expired-at'], '2099-01-01T00:00:00.000Z');
      // The legacy token, replaced, replaces only itself.
      const legacy2 = await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body());
      for (const secret of [ci.body.data.attributes.token, empty.body.data.attributes.token, legacy2.body.data.attributes.token]) {
        assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, secret), 200);
      }
      assertError(await ctx.get(`/api/v2/organizations/${org.name}`, legacy.body.data.attributes.token), 401);
      assert.equal((await ctx.get(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token)).body.data.id, legacy2.body.data.id);

      // A taken description: 422 in the words go-tfe recognizes, and nothing written.
      const before = await ctx.database.db.selectFrom('auth_tokens').select('id').where('team_id', '=', teamId).execute();
      const taken = assertError(await described(teamId, org.owner.token, { description: 'ci' }), 422, '/data/attributes/description');
      assert.equal(taken.title, 'invalid attributes');
      assert.equal(taken.detail, 'Validation failed: Description has already been taken');
      assert.equal((await ctx.database.db.selectFrom('auth_tokens').select('id').where('team_id', '=', teamId).execute()).length, before.length);
      // Another team may use it.
      assertStatus(await described(await team(org), org.owner.token, { description: 'ci' }), 201);

      // Deleting the legacy token leaves the others; each goes by its id.
      assertStatus(await ctx.delete(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token), 204);
      assertError(await ctx.get(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token), 404);
      assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, ci.body.data.attributes.token), 200);
      assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${ci.body.data.id}`, org.owner.token), 204);
      assertError(await ctx.get(`/api/v2/organizations/${org.name}`, ci.body.data.attributes.token), 401);
      assert.ok(!ctx.logs.includes(ci.body.data.attributes.token));
    });

    it('validates the body; refuses members, other organizations and teams holding more than the caller', async () => {
      const org = await ctx.organization();
      const teamId = await team(org);
      assertError(await described(teamId, org.owner.token, {}), 422, '/data/attributes/description');
      assertError(await described(teamId, org.owner.token, { description: null }), 422, '/data/attributes/description');
      assertError(await described(teamId, org.owner.token, { description: 'x'.repeat(256) }), 422, '/data/attributes/description');
      assertError(await described(teamId, org.owner.token, { description: 'd', 'expired-at': '2001-01-01T00:00:00Z' }), 422, '/data/attributes/expired-at');
      assertError(
        await ctx.request('POST', `/api/v2/teams/${teamId}/authentication-tokens`, { token: org.owner.token, rawBody: '{}', contentType: 'application/json' }),
        415,
      );
      assertError(await described(teamId, null as unknown as string, { description: 'd' }), 401);
      assertError(await described('team-doesnotexist00000', org.owner.token, { description: 'd' }), 404);
      const plain = await ctx.member(org);
      assertError(await described(teamId, plain.token, { description: 'd' }), 403);
      const other = await ctx.organization();
      assertError(await described(teamId, other.owner.token, { description: 'd' }), 404);
      const managers = await ctx.member(org, { 'manage-teams': true });
      assertError(await described(await team(org, { 'manage-projects': true }), managers.token, { description: 'd' }), 403);
      assertStatus(await described(teamId, managers.token, { description: 'd' }), 201);
    });

    it("lists the organization's team tokens: by expiry, by team name, sorted, paginated, never a secret", async () => {
      const org = await ctx.organization();
      const [alpha, beta] = [await team(org), await team(org)];
      const names = new Map<string, string>();
      for (const id of [alpha, beta]) names.set(id, (await ctx.get(`/api/v2/teams/${id}`, org.owner.token)).body.data.attributes.name);
      const made = async (teamId: string, attributes: Record<string, unknown>) => (await described(teamId, org.owner.token, attributes)).body.data.id as string;
      const soon = await made(alpha, { description: 'soon', 'expired-at': '2090-01-01T00:00:00Z' });
      const later = await made(beta, { description: 'later', 'expired-at': '2095-01-01T00:00:00Z' });
      const never = await made(beta, { description: 'never' });
      const legacy = (await ctx.post(`/api/v2/teams/${alpha}/authentication-token`, org.owner.token, body({ 'expired-at': '2092-01-01T00:00:00Z' }))).body.data
        .id;
      // Another organization's team token is not listed.
      const other = await ctx.organization();
      await ctx.post(`/api/v2/teams/${await team(other)}/authentication-token`, other.owner.token, body());

      const list = async (query = '') => {
        const res = await ctx.get(`/api/v2/organizations/${org.name}/team-tokens${query}`, org.owner.token);
        assertStatus(res, 200);
        return res;
      };
      const ids = async (query = '') => (await list(query)).body.data.map((t: { id: string }) => t.id);
      const all = await list();
      assert.deepEqual(
        all.body.data.map((t: { id: string }) => t.id),
        [soon, legacy, later, never],
      );
      assert.ok(all.body.data.every((t: { attributes: { token: unknown } }) => t.attributes.token === null));
      assert.equal(all.body.meta.pagination['total-count'], 4);
      assert.deepEqual(await ids('?sort=-expired-at'), [never, later, legacy, soon]);
      assert.deepEqual(await ids(`?q=${encodeURIComponent(names.get(alpha)!.toUpperCase())}`), [soon, legacy]);
      const byName = [alpha, beta].sort((a, b) => names.get(a)!.toLowerCase().localeCompare(names.get(b)!.toLowerCase()));
      assert.deepEqual(
        (await list('?sort=team-name')).body.data.map((t: { relationships: { team: { data: { id: string } } } }) => t.relationships.team.data.id),
        [byName[0], byName[0], byName[1], byName[1]],
      );
      // Used tokens after the never-used ones, ascending.
      const secret = (await described(alpha, org.owner.token, { description: 'used' })).body.data;
      assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, secret.attributes.token), 200);
      assert.equal((await ids('?sort=last-used-at')).at(-1), secret.id);
      assert.equal((await ids('?sort=-last-used-at'))[0], secret.id);
      const page = await list('?page%5Bsize%5D=2&page%5Bnumber%5D=2');
      assert.deepEqual(
        page.body.data.map((t: { id: string }) => t.id),
        [later, never],
      );
      assert.equal(page.body.meta.pagination['total-count'], 5);
      assertError(await ctx.get(`/api/v2/organizations/${org.name}/team-tokens?sort=description`, org.owner.token), 400);

      // By creator's username, each creator's tokens together; one a team token made (no user) after them all.
      const manager = await ctx.member(org, { 'manage-teams': true });
      const byManager = (await described(beta, manager.token, { description: 'by-manager' })).body.data.id;
      const teamSecret = (await ctx.post(`/api/v2/teams/${manager.teamId}/authentication-token`, org.owner.token, body())).body.data.attributes.token;
      const byTeam = await described(beta, teamSecret, { description: 'by-team' });
      assert.equal(byTeam.body.data.relationships['created-by'].data, null);
      const byCreator = await ids('?sort=created-by');
      assert.equal(byCreator.at(-1), byTeam.body.data.id);
      assert.equal((await ids('?sort=-created-by'))[0], byTeam.body.data.id);
      const byUsers = byCreator.slice(0, -1);
      assert.ok(byUsers[0] === byManager || byUsers.at(-1) === byManager, `the manager's token is not at either end of ${byUsers}`);
      // Only the sort by creator reads the users table for the page.
      const pageQuery = async (query: string, marker: string) => (await ctx.statementsOf(() => ids(query))).statements.filter((text) => text.includes(marker));
      const [byTeamName] = await pageQuery('?sort=team-name', 'lower(teams.name)');
      assert.ok(byTeamName && !/\busers\b/.test(byTeamName), `the page by team name reads users: ${byTeamName}`);
      const [byCreatorName] = await pageQuery('?sort=created-by', 'creator');
      assert.match(byCreatorName ?? '', /\busers\b/);
    });

    it('keeps one legacy token per team and each description once per team in the schema itself', async () => {
      const org = await ctx.organization();
      const teamId = await team(org);
      const legacy = (await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, body())).body.data.id;
      assertStatus(await described(teamId, org.owner.token, { description: 'one' }), 201);
      const row = await ctx.database.db.selectFrom('auth_tokens').selectAll().where('id', '=', legacy).executeTakeFirstOrThrow();
      const copy = (id: string, description: string | null) => ({ ...row, id, digest: `${row.digest.slice(0, -4)}${id.slice(-4)}`, description });
      // What a race between two creates would write: refused by the indexes, not by code.
      await assert.rejects(ctx.database.db.insertInto('auth_tokens').values(copy('at-racelegacy0000', null)).execute());
      await assert.rejects(ctx.database.db.insertInto('auth_tokens').values(copy('at-racedescribed0', 'one')).execute());
      await ctx.database.db.insertInto('auth_tokens').values(copy('at-racedifferent0', 'two')).execute();
      assert.equal((await ctx.database.db.selectFrom('auth_tokens').select('id').where('team_id', '=', teamId).execute()).length, 3);
    });

    it('lists only for those who manage teams, and only the teams they see', async () => {
      const org = await ctx.organization();
      const url = `/api/v2/organizations/${org.name}/team-tokens`;
      const visible = await team(org);
      const secretTeam = await team(org, {}, 'secret');
      await described(visible, org.owner.token, { description: 'v' });
      await described(secretTeam, org.owner.token, { description: 's' });
      assert.equal((await ctx.get(url, org.owner.token)).body.data.length, 2);
      const managers = await ctx.member(org, { 'manage-teams': true });
      const seen = await ctx.get(url, managers.token);
      assertStatus(seen, 200);
      assert.deepEqual(
        seen.body.data.map((t: { relationships: { team: { data: { id: string } } } }) => t.relationships.team.data.id),
        [visible],
      );
      assertError(await ctx.get(url, (await ctx.member(org)).token), 404);
      assertError(await ctx.get(url, (await ctx.organization()).owner.token), 404);
      assertError(await ctx.get(url, null), 401);
      assertError(await ctx.get(`/api/v2/organizations/no-such-org-000/team-tokens`, org.owner.token), 404);
    });
  });
});

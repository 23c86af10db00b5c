import assert from 'node:assert/strict';
import { it } from 'node:test';
import { digestSecret } from '../src/auth/secrets.ts';
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
});

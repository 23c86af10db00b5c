import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const orgBody = (name: string, extra: Record<string, unknown> = {}) => ({
  data: { type: 'organizations', attributes: { name, email: `${name}@example.test`, ...extra } },
});

suite('organizations', (ctx) => {
  it('creates an organization with an owners team, a Default Project and the creator as owner', async () => {
    const user = await ctx.user();
    const name = unique('acme');
    // go-tfe sends attributes Hangar does not model; they are ignored, not refused.
    const res = await ctx.post('/api/v2/organizations', user.token, orgBody(name, { 'cost-estimation-enabled': true }));
    assertStatus(res, 201);
    const org = res.body.data;
    assert.equal(org.id, name);
    assert.equal(org.type, 'organizations');
    assert.match(org.attributes['external-id'], /^org-[0-9A-Za-z]{16}$/);
    assert.match(org.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(org.attributes.permissions['can-destroy'], true);
    assert.match(org.relationships['default-project'].data.id, /^prj-[0-9A-Za-z]{16}$/);
    assert.equal(org.links.self, `/api/v2/organizations/${name}`);

    const teams = await ctx.get(`/api/v2/organizations/${name}/teams`, user.token);
    assertStatus(teams, 200);
    assert.deepEqual(
      teams.body.data.map((t: any) => t.attributes.name),
      ['owners'],
    );
    assert.deepEqual(teams.body.data[0].relationships.users.data, [{ id: user.id, type: 'users' }]);
  });

  it('lists only the organizations the caller belongs to; site admins see all', async () => {
    const a = await ctx.organization();
    const b = await ctx.organization();
    const mine = await ctx.get('/api/v2/organizations', a.owner.token);
    assertStatus(mine, 200);
    assert.deepEqual(
      mine.body.data.map((o: any) => o.id),
      [a.name],
    );
    assert.equal(mine.body.meta.pagination['total-count'], 1);
    const admin = await ctx.user({ siteAdmin: true });
    const all = await ctx.get('/api/v2/organizations?page[size]=100', admin.token);
    const names = all.body.data.map((o: any) => o.id);
    assert.ok(names.includes(a.name) && names.includes(b.name));
  });

  it('refuses a duplicate name, case-insensitively, with 422 at /data/attributes/name', async () => {
    const org = await ctx.organization();
    const res = await ctx.post('/api/v2/organizations', org.owner.token, orgBody(org.name.toUpperCase()));
    const e = assertError(res, 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name has already been taken');
  });

  it('answers bad bodies with one 422 per problem, each with a pointer, and writes nothing', async () => {
    const user = await ctx.user();
    const res = await ctx.post('/api/v2/organizations', user.token, { data: { type: 'orgs', attributes: { name: 5 } } });
    assertError(res, 422);
    const pointers = res.body.errors.map((e: any) => e.source.pointer).sort();
    assert.deepEqual(pointers, ['/data/attributes/email', '/data/attributes/name', '/data/type']);
    assertError(await ctx.post('/api/v2/organizations', user.token, {}), 422, '/data');
    assertError(await ctx.post('/api/v2/organizations', user.token, orgBody('bad name!')), 422, '/data/attributes/name');
    const list = await ctx.get('/api/v2/organizations', user.token);
    assert.equal(list.body.data.length, 0);
  });

  it('answers malformed JSON with 400, a wrong content type with 415, an oversized body with 413', async () => {
    const user = await ctx.user();
    assertError(await ctx.request('POST', '/api/v2/organizations', { token: user.token, rawBody: '{"data":' }), 400);
    assertError(await ctx.request('POST', '/api/v2/organizations', { token: user.token, body: orgBody(unique('x')), contentType: 'application/json' }), 415);
    assertError(await ctx.request('POST', '/api/v2/organizations', { token: user.token, contentType: null }), 415);
    const huge = JSON.stringify(orgBody(unique('x'), { padding: 'x'.repeat(1024 * 1024) }));
    assertError(await ctx.request('POST', '/api/v2/organizations', { token: user.token, rawBody: huge }), 413);
    // A charset parameter on the right media type is fine.
    const ok = await ctx.request('POST', '/api/v2/organizations', {
      token: user.token,
      body: orgBody(unique('cs')),
      contentType: 'application/vnd.api+json; charset=utf-8',
    });
    assertStatus(ok, 201);
  });

  it('shows, renames and deletes; non-owners get 403, outsiders 404', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org, { 'manage-projects': true });
    const outsider = await ctx.user();
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, member.token), 200);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, outsider.token), 404);
    const rename = { data: { type: 'organizations', attributes: { name: unique('renamed') } } };
    assertError(await ctx.patch(`/api/v2/organizations/${org.name}`, member.token, rename), 403);
    assertError(await ctx.patch(`/api/v2/organizations/${org.name}`, outsider.token, rename), 404);
    assertError(await ctx.delete(`/api/v2/organizations/${org.name}`, member.token), 403);

    const renamed = await ctx.patch(`/api/v2/organizations/${org.name}`, org.owner.token, rename);
    assertStatus(renamed, 200);
    assert.equal(renamed.body.data.id, rename.data.attributes.name);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token), 404);

    assertStatus(await ctx.delete(`/api/v2/organizations/${rename.data.attributes.name}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/organizations/${rename.data.attributes.name}`, org.owner.token), 404);
    // Everything inside went with it: the member's team no longer exists.
    assertError(await ctx.get(`/api/v2/teams/${member.teamId}`, org.owner.token), 404);
  });

  it('requires a token: none or a bad one is 401 with the TFE body', async () => {
    for (const token of [null, 'nonsense', `${'a'.repeat(14)}.atlasv1.${'b'.repeat(67)}`]) {
      const res = await ctx.get('/api/v2/organizations', token);
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { errors: [{ status: '401', title: 'unauthorized' }] });
    }
  });
});

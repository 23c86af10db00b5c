import assert from 'node:assert/strict';
import { it } from 'node:test';
import { digestSecret } from '../src/auth/secrets.ts';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const SECRET = /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/;
const tokenBody = (attributes: Record<string, unknown> = {}) => ({ data: { type: 'authentication-tokens', attributes } });

suite('user API tokens', (ctx) => {
  it('creates a token whose secret is shown once, works, and is stored only as a digest', async () => {
    const user = await ctx.user();
    const res = await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody({ description: 'ci' }));
    assertStatus(res, 201);
    const secret = res.body.data.attributes.token;
    assert.match(secret, SECRET);
    assert.match(res.body.data.id, /^at-[0-9A-Za-z]{16}$/);
    assert.equal(res.body.data.attributes.description, 'ci');
    assert.equal(res.body.data.attributes['last-used-at'], null);
    assert.deepEqual(res.body.data.relationships['created-by'].data, { id: user.id, type: 'users' });

    assertStatus(await ctx.get('/api/v2/account/details', secret), 200);

    // Never again: show and list answer token: null.
    const shown = await ctx.get(`/api/v2/authentication-tokens/${res.body.data.id}`, user.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.token, null);
    const list = await ctx.get(`/api/v2/users/${user.id}/authentication-tokens`, user.token);
    assert.ok(list.body.data.every((t: any) => t.attributes.token === null));
    assert.equal(list.body.links, undefined, 'unpaginated unless a page is asked for');

    // The database holds the digest, never the secret; no log line holds it either.
    const rows = await ctx.database.db.selectFrom('auth_tokens').selectAll().execute();
    assert.ok(rows.some((r) => r.digest === digestSecret(secret)));
    assert.ok(!JSON.stringify(rows).includes(secret));
    assert.ok(!ctx.logs.includes(secret));
  });

  it('records last-used-at on first use, then at most once a minute', async () => {
    const user = await ctx.user();
    const created = await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody());
    const id = created.body.data.id;
    const secret = created.body.data.attributes.token;
    await ctx.get('/api/v2/account/details', secret);
    const first = (await ctx.get(`/api/v2/authentication-tokens/${id}`, secret)).body.data.attributes['last-used-at'];
    assert.match(first, /Z$/);
    await ctx.get('/api/v2/account/details', secret);
    const second = (await ctx.get(`/api/v2/authentication-tokens/${id}`, secret)).body.data.attributes['last-used-at'];
    assert.equal(second, first, 'a use within the minute does not write again');
    // Age the recorded use past the resolution: the next use writes again.
    await ctx.database.db.updateTable('auth_tokens').set({ last_used_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', id).execute();
    await ctx.get('/api/v2/account/details', secret);
    const third = (await ctx.get(`/api/v2/authentication-tokens/${id}`, secret)).body.data.attributes['last-used-at'];
    assert.ok(third > '2000-01-01T00:00:00.000Z');
  });

  it('paginates the list when asked, and shows another user an empty list', async () => {
    const user = await ctx.user();
    for (let i = 0; i < 3; i++) await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody());
    const page = await ctx.get(`/api/v2/users/${user.id}/authentication-tokens?page[size]=2&page[number]=2`, user.token);
    assertStatus(page, 200);
    assert.equal(page.body.data.length, 2); // 4 tokens: the harness's and three more
    assert.equal(page.body.meta.pagination['total-count'], 4);
    assert.equal(page.body.meta.pagination['prev-page'], 1);
    const other = await ctx.user();
    const theirs = await ctx.get(`/api/v2/users/${user.id}/authentication-tokens`, other.token);
    assertStatus(theirs, 200);
    assert.deepEqual(theirs.body.data, []);
    assertError(await ctx.get('/api/v2/users/user-doesnotexist0000/authentication-tokens', user.token), 404);
    assertError(await ctx.get(`/api/v2/users/${user.id}/authentication-tokens?page[size]=abc`, user.token), 400);
  });

  it('refuses to create tokens for someone else, and validates the body', async () => {
    const user = await ctx.user();
    const other = await ctx.user();
    assertError(await ctx.post(`/api/v2/users/${other.id}/authentication-tokens`, user.token, tokenBody()), 404);
    assertError(await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, { data: { type: 'tokens' } }), 422, '/data/type');
    assertError(
      await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody({ 'expired-at': '2001-01-01T00:00:00Z' })),
      422,
      '/data/attributes/expired-at',
    );
    assertError(
      await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody({ description: 42 })),
      422,
      '/data/attributes/description',
    );
  });

  it('stops accepting a token the moment it is deleted or expires', async () => {
    const user = await ctx.user();
    const created = await ctx.post(`/api/v2/users/${user.id}/authentication-tokens`, user.token, tokenBody());
    const { id } = created.body.data;
    const secret = created.body.data.attributes.token;
    const other = await ctx.user();
    assertError(await ctx.delete(`/api/v2/authentication-tokens/${id}`, other.token), 404);
    assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${id}`, user.token), 204);
    assertError(await ctx.get('/api/v2/account/details', secret), 401);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${id}`, user.token), 404);

    const expiring = await ctx.post(
      `/api/v2/users/${user.id}/authentication-tokens`,
      user.token,
      tokenBody({ 'expired-at': new Date(Date.now() + 60_000).toISOString() }),
    );
    const expSecret = expiring.body.data.attributes.token;
    assertStatus(await ctx.get('/api/v2/account/details', expSecret), 200);
    await ctx.database.db.updateTable('auth_tokens').set({ expired_at: '2001-01-01T00:00:00.000Z' }).where('id', '=', expiring.body.data.id).execute();
    assertError(await ctx.get('/api/v2/account/details', expSecret), 401);
  });
});

suite('organization token', (ctx) => {
  const orgTokenBody = { data: { type: 'authentication-token', attributes: {} } };

  it('is created by owners, acts as the organization, and a new one replaces the old', async () => {
    const org = await ctx.organization();
    const first = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, orgTokenBody);
    assertStatus(first, 201);
    const secret = first.body.data.attributes.token;
    assert.match(secret, SECRET);

    const account = await ctx.get('/api/v2/account/details', secret);
    assertStatus(account, 200);
    assert.equal(account.body.data.attributes['is-service-account'], true);
    assert.deepEqual(account.body.data.relationships['authenticated-resource'].data, { id: org.name, type: 'organizations' });
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, secret), 200);
    const orgs = await ctx.get('/api/v2/organizations', secret);
    assert.deepEqual(orgs.body.data.map((o: any) => o.id), [org.name]);

    const shown = await ctx.get(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.token, null);

    const second = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, secret, orgTokenBody);
    assertStatus(second, 201);
    assertError(await ctx.get('/api/v2/account/details', secret), 401);
    assertStatus(await ctx.get('/api/v2/account/details', second.body.data.attributes.token), 200);

    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token), 204);
    assertError(await ctx.get('/api/v2/account/details', second.body.data.attributes.token), 401);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token), 404);
  });

  it('is hidden (404) from members who are not owners and from other organizations', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org, { 'manage-teams': true });
    const stranger = await ctx.organization();
    for (const token of [member.token, stranger.owner.token]) {
      assertError(await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, token, orgTokenBody), 404);
      assertError(await ctx.get(`/api/v2/organizations/${org.name}/authentication-token`, token), 404);
      assertError(await ctx.delete(`/api/v2/organizations/${org.name}/authentication-token`, token), 404);
    }
    const created = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, orgTokenBody);
    // The other organization's token sees nothing of this one.
    const theirs = await ctx.post(`/api/v2/organizations/${stranger.name}/authentication-token`, stranger.owner.token, orgTokenBody);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, theirs.body.data.attributes.token), 404);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${created.body.data.id}`, member.token), 404);
    assertError(await ctx.post('/api/v2/organizations', theirs.body.data.attributes.token, {
      data: { type: 'organizations', attributes: { name: 'from-org-token', email: 'x@example.test' } },
    }), 403);
  });
});

// The caller's own account: `GET /account/details` and `PATCH /account/update`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

const update = (attributes?: Record<string, unknown>) => ({ data: { type: 'users', ...(attributes ? { attributes } : {}) } });
const UPDATE = '/api/v2/account/update';
const DETAILS = '/api/v2/account/details';

suite('account', (ctx) => {
  it("shows a stable Gravatar avatar-url to the account's owner, and the silhouette to everyone else", async () => {
    const user = await ctx.user();
    const first = await ctx.get(DETAILS, user.token);
    assertStatus(first, 200);
    const hash = createHash('sha256').update(`${user.username}@example.test`.toLowerCase()).digest('hex');
    assert.equal(first.body.data.attributes['avatar-url'], `https://www.gravatar.com/avatar/${hash}?s=100&d=mm`);
    assert.deepEqual((await ctx.get(DETAILS, user.token)).body.data, first.body.data, 'the same document on every read');
    const other = await ctx.user();
    const seen = await ctx.get(`/api/v2/users/${user.id}`, other.token);
    assert.equal(seen.body.data.attributes['avatar-url'], 'https://www.gravatar.com/avatar/?s=100&d=mm');
    assert.ok(!seen.raw.includes(hash), 'no hash of the address for others');
  });

  it('changes nothing for an update without attributes, and answers the account as details does', async () => {
    const user = await ctx.user();
    const before = await ctx.get(DETAILS, user.token);
    const res = await ctx.patch(UPDATE, user.token, update());
    assertStatus(res, 200);
    assert.deepEqual(res.body.data, before.body.data);
    assertStatus(await ctx.patch(UPDATE, user.token, update({})), 200);
    assert.deepEqual((await ctx.get(DETAILS, user.token)).body.data, before.body.data);
  });

  it('renames the caller (any case), keeps its tokens working, and lets teams find it by the new name', async () => {
    const org = await ctx.organization();
    const user = await ctx.user();
    const name = `New${unique('Name')}`;
    const res = await ctx.patch(UPDATE, user.token, update({ username: name }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.username, name);
    assert.equal((await ctx.get(DETAILS, user.token)).body.data.attributes.username, name);
    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, { data: { type: 'teams', attributes: { name: unique('t') } } });
    const added = await ctx.post(`/api/v2/teams/${team.body.data.id}/relationships/users`, org.owner.token, {
      data: [{ type: 'users', id: name.toLowerCase() }],
    });
    assertStatus(added, 204);
    // The old name is free again.
    const old = user.username;
    const other = await ctx.user();
    assertStatus(await ctx.patch(UPDATE, other.token, update({ username: old })), 200);
  });

  it('changes the e-mail address at once; admin@localhost is an address, notamailaddress is not', async () => {
    const user = await ctx.user();
    const res = await ctx.patch(UPDATE, user.token, update({ email: 'newtestemail@hashicorp.com' }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.email, 'newtestemail@hashicorp.com');
    assert.equal(res.body.data.attributes['unconfirmed-email'], null);
    const hash = createHash('sha256').update('newtestemail@hashicorp.com').digest('hex');
    assert.equal(res.body.data.attributes['avatar-url'], `https://www.gravatar.com/avatar/${hash}?s=100&d=mm`, 'the picture follows the address');
    const both = await ctx.patch(UPDATE, user.token, update({ email: 'admin@localhost', username: unique('admin') }));
    assertStatus(both, 200);
    assert.equal(both.body.data.attributes.email, 'admin@localhost');
    const before = await ctx.get(DETAILS, user.token);
    for (const email of ['notamailaddress', 'two@@example.test', 'a b@example.test', '@example.test', 'x@']) {
      const e = assertError(await ctx.patch(UPDATE, user.token, update({ email })), 422, '/data/attributes/email');
      assert.equal(e.detail, 'Email is invalid');
    }
    assert.deepEqual((await ctx.get(DETAILS, user.token)).body.data, before.body.data);
  });

  it('refuses taken, malformed and reserved usernames with 422 at the username, one error per attribute', async () => {
    const user = await ctx.user();
    const other = await ctx.user();
    const before = await ctx.get(DETAILS, user.token);
    const taken = assertError(await ctx.patch(UPDATE, user.token, update({ username: other.username.toUpperCase() })), 422, '/data/attributes/username');
    assert.equal(taken.detail, 'Username has already been taken');
    for (const username of ['has space', '-leading', 'x'.repeat(65), 'api-org-acme-123456', 'API-ORG-x']) {
      assertError(await ctx.patch(UPDATE, user.token, update({ username })), 422, '/data/attributes/username');
    }
    const two = await ctx.patch(UPDATE, user.token, update({ username: 'bad name', email: 'bad' }));
    assertError(two, 422);
    assert.deepEqual(two.body.errors.map((e: any) => e.source.pointer).sort(), ['/data/attributes/email', '/data/attributes/username']);
    assertError(await ctx.patch(UPDATE, user.token, update({ username: 42 })), 422, '/data/attributes/username');
    assertError(await ctx.patch(UPDATE, user.token, { data: { type: 'accounts' } }), 422, '/data/type');
    assertError(await ctx.patch(UPDATE, user.token, {}), 422, '/data');
    assert.deepEqual((await ctx.get(DETAILS, user.token)).body.data, before.body.data);
  });

  it('refuses the account of an organization token (403), no token (401), and other media types (415)', async () => {
    const org = await ctx.organization();
    const token = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, { data: { type: '' } });
    const secret = token.body.data.attributes.token;
    const before = await ctx.get(DETAILS, secret);
    const e = assertError(await ctx.patch(UPDATE, secret, update({ username: unique('svc') })), 403);
    assert.equal(e.detail, 'The account of an organization token cannot be changed');
    assertError(await ctx.patch(UPDATE, secret, update()), 403);
    assert.deepEqual((await ctx.get(DETAILS, secret)).body.data, before.body.data);
    assertError(await ctx.patch(UPDATE, null, update()), 401);
    const user = await ctx.user();
    assertError(await ctx.request('PATCH', UPDATE, { token: user.token, body: update(), contentType: 'application/json' }), 415);
  });
});

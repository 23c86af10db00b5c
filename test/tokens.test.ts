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
    // last-used-at is bookkeeping the token cache keeps itself; a write behind its back is not news to it.
    ctx.database.changes.bump();
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

  it('looks a presented secret up once: text that cannot be a token costs no query, an unknown token one', async () => {
    const notAToken = await ctx.countQueries(() => ctx.get('/api/v2/account/details', 'not-a-token'));
    assertError(notAToken.result, 401);
    assert.equal(notAToken.queries, 0);
    const unknown = `${'a'.repeat(14)}.atlasv1.${'b'.repeat(67)}`;
    assert.match(unknown, SECRET);
    const lookedUp = await ctx.countQueries(() => ctx.get('/api/v2/account/details', unknown));
    assertError(lookedUp.result, 401);
    assert.equal(lookedUp.queries, 1);
    // Not remembered as known: the next request asks again.
    assert.equal((await ctx.countQueries(() => ctx.get('/api/v2/account/details', unknown))).queries, 1);
  });

  it('refuses a token once its expiry passes, though nothing was written since it was last accepted', async () => {
    const user = await ctx.user();
    const expiresAt = Date.now() + 1_500;
    const created = await ctx.post(
      `/api/v2/users/${user.id}/authentication-tokens`,
      user.token,
      tokenBody({ 'expired-at': new Date(expiresAt).toISOString() }),
    );
    assertStatus(created, 201);
    const secret = created.body.data.attributes.token;
    // Twice: the second is answered from the token cache, which the third must not trust blindly.
    assertStatus(await ctx.get('/api/v2/account/details', secret), 200);
    assertStatus(await ctx.get('/api/v2/account/details', secret), 200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 50));
    assertError(await ctx.get('/api/v2/account/details', secret), 401);
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
    assert.deepEqual(
      orgs.body.data.map((o: any) => o.id),
      [org.name],
    );

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
    assertError(
      await ctx.post('/api/v2/organizations', theirs.body.data.attributes.token, {
        data: { type: 'organizations', attributes: { name: 'from-org-token', email: 'x@example.test' } },
      }),
      403,
    );
  });
});

suite('token bodies as go-tfe sends them, and expiry', (ctx) => {
  const userTokens = (id: string) => `/api/v2/users/${id}/authentication-tokens`;
  const orgToken = (name: string, query = '') => `/api/v2/organizations/${name}/authentication-token${query}`;

  it('accepts an empty data.type, with or without attributes; no expiry given is none at all', async () => {
    const org = await ctx.organization();
    const user = org.owner;
    for (const body of [{ data: { type: '' } }, { data: { type: '', attributes: { description: 'go-tfe' } } }]) {
      const res = await ctx.post(userTokens(user.id), user.token, body);
      assertStatus(res, 201);
      assert.equal(res.body.data.attributes['expired-at'], null);
      const shown = await ctx.get(`/api/v2/authentication-tokens/${res.body.data.id}`, user.token);
      assert.deepEqual(shown.body.data, { ...res.body.data, attributes: { ...res.body.data.attributes, token: null } });
    }
    for (const type of ['', 'authentication-token', 'authentication-tokens']) {
      const res = await ctx.post(orgToken(org.name), user.token, { data: { type } });
      assertStatus(res, 201);
      assert.equal(res.body.data.attributes['expired-at'], null);
      assert.deepEqual(res.body.data.relationships['created-by'].data, { id: user.id, type: 'users' });
    }
    assertError(await ctx.post(orgToken(org.name), user.token, { data: { type: 'tokens' } }), 422, '/data/type');
  });

  it('echoes an expiry as the same instant in UTC, and refuses what RFC 3339 cannot say or a year past 9999', async () => {
    const org = await ctx.organization();
    const user = org.owner;
    const cases: Array<[string, string]> = [
      ['2031-01-31T12:00:00Z', '2031-01-31T12:00:00.000Z'],
      ['2031-01-31T13:00:00+01:00', '2031-01-31T12:00:00.000Z'],
      ['2031-01-31t12:00:00.25z', '2031-01-31T12:00:00.250Z'],
      ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ];
    for (const [sent, echoed] of cases) {
      for (const url of [userTokens(user.id), orgToken(org.name)]) {
        const res = await ctx.post(url, user.token, { data: { type: '', attributes: { 'expired-at': sent } } });
        assertStatus(res, 201);
        assert.equal(res.body.data.attributes['expired-at'], echoed, sent);
      }
    }
    assert.equal((await ctx.get(orgToken(org.name), user.token)).body.data.attributes['expired-at'], '9999-12-31T23:59:59.000Z');
    const refused = [
      '+099999-01-01T00:00:00Z',
      '10000-01-01T00:00:00Z',
      '9999-12-31T23:00:00-05:00', // year 10000 in UTC
      '2031-02-30T00:00:00Z',
      '2031-04-31T00:00:00Z',
      '2031-01-31T24:00:00Z',
      '2031-01-31T12:60:00Z',
      '2031-01-31',
      '2031-01-31 12:00:00Z',
      '2031-01-31T12:00Z',
      'Fri, 31 Jan 2031 12:00:00 GMT',
      'tomorrow',
    ];
    for (const value of refused) {
      for (const url of [userTokens(user.id), orgToken(org.name)]) {
        const e = assertError(await ctx.post(url, user.token, { data: { type: '', attributes: { 'expired-at': value } } }), 422, '/data/attributes/expired-at');
        assert.match(e.detail!, /^Expired at must be an RFC 3339 timestamp/, value);
      }
    }
    const past = assertError(
      await ctx.post(userTokens(user.id), user.token, { data: { type: '', attributes: { 'expired-at': '2001-01-01T00:00:00Z' } } }),
      422,
    );
    assert.equal(past.detail, 'Expired at must be in the future');
  });
});

suite('the audit-trail token', (ctx) => {
  const url = (name: string, query = '') => `/api/v2/organizations/${name}/authentication-token${query}`;
  const AUDIT = '?token=audit-trails';
  const body = { data: { type: '' } };

  it('is a second slot beside the organization token: created, shown, replaced and deleted on its own', async () => {
    const org = await ctx.organization();
    const owner = org.owner.token;
    assertError(await ctx.get(url(org.name, AUDIT), owner), 404);
    const regular = await ctx.post(url(org.name), owner, body);
    const audit = await ctx.post(url(org.name, AUDIT), owner, body);
    assertStatus(audit, 201);
    assert.match(audit.body.data.attributes.token, SECRET);
    assert.notEqual(audit.body.data.id, regular.body.data.id);
    assert.equal((await ctx.get(url(org.name), owner)).body.data.id, regular.body.data.id);
    assert.equal((await ctx.get(url(org.name, AUDIT), owner)).body.data.id, audit.body.data.id);
    assert.equal((await ctx.get(`/api/v2/authentication-tokens/${audit.body.data.id}`, owner)).body.data.attributes.token, null);

    // Replacing one leaves the other as it was.
    const audit2 = await ctx.post(url(org.name, AUDIT), owner, body);
    assertStatus(audit2, 201);
    assertStatus(await ctx.get('/api/v2/account/details', regular.body.data.attributes.token), 200);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${audit.body.data.id}`, owner), 404);
    const regular2 = await ctx.post(url(org.name), owner, body);
    assert.equal((await ctx.get(url(org.name, AUDIT), owner)).body.data.id, audit2.body.data.id);

    assertStatus(await ctx.delete(url(org.name, AUDIT), owner), 204);
    assertError(await ctx.get(url(org.name, AUDIT), owner), 404);
    assertError(await ctx.delete(url(org.name, AUDIT), owner), 404);
    assert.equal((await ctx.get(url(org.name), owner)).body.data.id, regular2.body.data.id);
    assertStatus(await ctx.delete(url(org.name), owner), 204);
    assertError(await ctx.delete(url(org.name), owner), 404);
  });

  it('opens nothing: Hangar serves no audit trail, so the token is refused (401) everywhere', async () => {
    const org = await ctx.organization();
    const audit = await ctx.post(url(org.name, AUDIT), org.owner.token, body);
    const secret = audit.body.data.attributes.token;
    for (const path of ['/api/v2/account/details', `/api/v2/organizations/${org.name}`, url(org.name, AUDIT)]) {
      assertError(await ctx.get(path, secret), 401);
    }
    assertError(await ctx.post(url(org.name, AUDIT), secret, body), 401);
    const agent = await ctx.request('POST', '/api/agent/register', { token: secret, body: {}, contentType: 'application/json' });
    assert.equal(agent.status, 401);
  });

  it("is the owners' business like the organization token, and the token parameter takes no other value", async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org, { 'manage-teams': true, 'manage-organization-access': true });
    const stranger = await ctx.organization();
    const created = await ctx.post(url(org.name, AUDIT), org.owner.token, body);
    for (const token of [member.token, stranger.owner.token]) {
      assertError(await ctx.post(url(org.name, AUDIT), token, body), 404);
      assertError(await ctx.get(url(org.name, AUDIT), token), 404);
      assertError(await ctx.delete(url(org.name, AUDIT), token), 404);
      assertError(await ctx.get(`/api/v2/authentication-tokens/${created.body.data.id}`, token), 404);
    }
    // The organization token, as an owner, may manage it.
    const orgToken = await ctx.post(url(org.name), org.owner.token, body);
    assertStatus(await ctx.get(url(org.name, AUDIT), orgToken.body.data.attributes.token), 200);
    for (const query of ['?token=organization', '?token=', '?token=AUDIT-TRAILS']) {
      const e = assertError(await ctx.get(url(org.name, query), org.owner.token), 400);
      assert.equal((e as any).source?.parameter, 'token');
    }
    assertError(await ctx.post(url(org.name, '?token=team'), org.owner.token, body), 400);
    assertError(await ctx.request('POST', url(org.name, AUDIT), { token: org.owner.token, body, contentType: 'application/json' }), 415);
    assertError(await ctx.post(url(org.name, AUDIT), null, body), 401);
  });
});

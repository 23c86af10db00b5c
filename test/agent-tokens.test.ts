import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { settledStatements } from './helpers/settled.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import {
  agentCall,
  assertAgentError,
  createAgentToken,
  createPool,
  poolWithToken,
  spreadCreatedAt,
  TIMESTAMP,
  TOKEN_SHAPE,
  tokenBody,
} from './helpers/agents.ts';

suite('agent tokens', (ctx) => {
  const tokensUrl = (poolId: string) => `/api/v2/agent-pools/${poolId}/authentication-tokens`;

  it('creates a token (201) whose secret appears in that response only', async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const res = await ctx.post(tokensUrl(pool.id), org.owner.token, tokenBody('dc-east runner'));
    assertStatus(res, 201);
    const t = res.body.data;
    assert.match(t.id, /^at-[0-9A-Za-z]{16}$/);
    assert.equal(t.type, 'authentication-tokens');
    assert.match(t.attributes.token, TOKEN_SHAPE);
    assert.equal(t.attributes.description, 'dc-east runner');
    assert.equal(t.attributes['last-used-at'], null);
    assert.match(t.attributes['created-at'], TIMESTAMP);
    assert.deepEqual(t.relationships['created-by'].data, { id: org.owner.id, type: 'users' });

    const shown = await ctx.get(`/api/v2/authentication-tokens/${t.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.token, null);
    assert.equal(shown.body.data.attributes.description, 'dc-east runner');
    assert.equal(shown.body.data.attributes['created-at'], t.attributes['created-at']);
    assert.ok(!shown.raw.includes(t.attributes.token));
    // Only the digest is stored.
    const row = await ctx.database.db.selectFrom('auth_tokens').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
    assert.ok(!Object.values(row).includes(t.attributes.token));
    assert.match(row.digest, /^[0-9a-f]{64}$/);
    assert.equal(row.kind, 'agent');
    assert.equal(row.agent_pool_id, pool.id);
  });

  it("accepts the Go client's `agent-tokens` type, and records the service user for an organization token", async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const goStyle = await ctx.post(tokensUrl(pool.id), org.owner.token, tokenBody('from go-tfe', 'agent-tokens'));
    assertStatus(goStyle, 201);
    assert.equal(goStyle.body.data.type, 'authentication-tokens');

    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
      data: { type: 'authentication-token' },
    });
    const secret = orgToken.body.data.attributes.token;
    const serviceUser = (await ctx.get('/api/v2/account/details', secret)).body.data.id;
    assert.notEqual(serviceUser, org.owner.id);
    const res = await ctx.post(tokensUrl(pool.id), secret, tokenBody('by the org token'));
    assertStatus(res, 201);
    assert.deepEqual(res.body.data.relationships['created-by'].data, { id: serviceUser, type: 'users' });
  });

  it('refuses malformed bodies with 422 and a pointer, and creates nothing', async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const url = tokensUrl(pool.id);
    const t = org.owner.token;
    assertError(await ctx.post(url, t, { data: { type: 'authentication-tokens' } }), 422, '/data/attributes');
    assertError(await ctx.post(url, t, { data: { type: 'authentication-tokens', attributes: {} } }), 422, '/data/attributes/description');
    assertError(await ctx.post(url, t, tokenBody(12)), 422, '/data/attributes/description');
    assertError(await ctx.post(url, t, tokenBody(null)), 422, '/data/attributes/description');
    assertError(await ctx.post(url, t, tokenBody('')), 422, '/data/attributes/description');
    assertError(await ctx.post(url, t, tokenBody('   ')), 422, '/data/attributes/description');
    assertError(await ctx.post(url, t, tokenBody('x'.repeat(256))), 422, '/data/attributes/description');
    const wrongType = assertError(await ctx.post(url, t, tokenBody('x', 'users')), 422, '/data/type');
    assert.match(wrongType.detail!, /authentication-tokens/);
    assertError(await ctx.post(url, t, { data: 'nope' }), 422, '/data');
    assertError(await ctx.post(url, t, {}), 422, '/data');
    assertError(await ctx.request('POST', url, { token: t, rawBody: '{"data":' }), 400);
    assertError(await ctx.request('POST', url, { token: t, body: tokenBody('x'), contentType: 'application/json' }), 415);
    assertError(await ctx.request('POST', url, { token: t, contentType: null }), 415);
    const list = await ctx.get(url, t);
    assert.equal(list.body.meta.pagination['total-count'], 0);
    // The longest description allowed is fine.
    assertStatus(await ctx.post(url, t, tokenBody('x'.repeat(255))), 201);
  });

  it("lists a pool's tokens (never a secret), paginated and sorted by created-at; other sorts are 400", async () => {
    const { org, pool, token: first } = await poolWithToken(ctx);
    const second = await createAgentToken(ctx, pool.id, org.owner.token, 'second');
    const third = await createAgentToken(ctx, pool.id, org.owner.token, 'third');
    const otherPool = await createPool(ctx, org);
    await createAgentToken(ctx, otherPool.id, org.owner.token, 'elsewhere');
    const get = (qs = '') => ctx.get(`${tokensUrl(pool.id)}${qs}`, org.owner.token);

    const all = await get();
    assertStatus(all, 200);
    assert.equal(all.body.meta.pagination['total-count'], 3);
    for (const item of all.body.data) {
      assert.equal(item.type, 'authentication-tokens');
      assert.equal(item.attributes.token, null);
      assert.deepEqual(item.relationships['created-by'].data, { id: org.owner.id, type: 'users' });
    }
    for (const secret of [first.secret, second.secret, third.secret]) assert.ok(!all.raw.includes(secret));

    const asc = [first.id, second.id, third.id];
    await spreadCreatedAt(ctx, 'auth_tokens', asc);
    const ids = (res: any) => res.body.data.map((x: any) => x.id);
    const byCreation = (await get('?sort=created-at')).body.data;
    assert.deepEqual(
      byCreation.map((x: any) => x.id),
      asc,
    );
    const times = byCreation.map((x: any) => x.attributes['created-at']);
    assert.deepEqual(times, [...times].sort());
    assert.deepEqual(ids(await get('?sort=-created-at')), [...asc].reverse());

    const page = await get('?sort=-created-at&page[number]=2&page[size]=2');
    assert.deepEqual(ids(page), [first.id]);
    assert.equal(page.body.meta.pagination['total-pages'], 2);
    assert.equal(page.body.meta.pagination['prev-page'], 1);
    assert.match(page.body.links.prev, /^http:\/\/.+authentication-tokens\?.*page%5Bnumber%5D=1/);
    assert.deepEqual(ids(await get('?page[number]=9')), []);
    assert.equal(all.body.meta.pagination['page-size'], 20);

    // Equal creation times keep the order of creation (not of the random ids), in the same direction.
    const sameTime = new Date().toISOString();
    await ctx.database.db.updateTable('auth_tokens').set({ created_at: sameTime }).where('agent_pool_id', '=', pool.id).execute();
    assert.deepEqual(ids(await get('?sort=created-at')), asc);
    assert.deepEqual(ids(await get('?sort=-created-at')), [...asc].reverse());

    for (const qs of ['?sort=description', '?sort=last-used-at', '?sort=-', '?page[size]=-1']) assertError(await get(qs), 400);
  });

  it("a page of a pool's tokens is one statement with its count once the caller and pool are known; past the end, one more", async () => {
    const { org, pool } = await poolWithToken(ctx);
    await createAgentToken(ctx, pool.id, org.owner.token, 'second');
    await createAgentToken(ctx, pool.id, org.owner.token, 'third');
    const get = (qs: string) => ctx.get(`${tokensUrl(pool.id)}${qs}`, org.owner.token);
    // On PostgreSQL the writes' notifications arrive a moment later, and drop the caches again.
    const settled = async (qs: string, expected: number) => {
      const found = await settledStatements(ctx, () => get(qs), expected);
      assert.equal(found.statements.length, expected, found.statements.join('\n'));
      return found;
    };
    const first = await settled('?page[size]=2', 1);
    assertStatus(first.result, 200);
    assert.deepEqual([first.result.body.data.length, first.result.body.meta.pagination['total-count']], [2, 3]);
    assert.doesNotMatch(first.statements[0]!, /digest/, 'a token list never reads the digests');
    const second = await settled('?page[size]=2&page[number]=2', 1);
    assert.deepEqual([second.result.body.data.length, second.result.body.meta.pagination['total-count']], [1, 3]);
    const past = await settled('?page[size]=2&page[number]=5', 2);
    assert.deepEqual([past.result.body.data.length, past.result.body.meta.pagination['total-count']], [0, 3]);
    // A new token is counted and listed at once: what is kept is the statement, never its answer.
    await createAgentToken(ctx, pool.id, org.owner.token, 'fourth');
    assert.equal((await get('?page[size]=2')).body.meta.pagination['total-count'], 4);
  });

  it('shows and destroys through /authentication-tokens/:id; a destroyed token stops at once', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    assertStatus(await agentCall(ctx, 'register', token.secret), 201);
    const shown = await ctx.get(`/api/v2/authentication-tokens/${token.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.match(shown.body.data.attributes['last-used-at'], TIMESTAMP);

    const del = await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, org.owner.token);
    assertStatus(del, 204);
    assert.equal(del.raw, '');
    assertAgentError(await agentCall(ctx, 'register', token.secret), 401);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${token.id}`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, org.owner.token), 404);
    const list = await ctx.get(tokensUrl(pool.id), org.owner.token);
    assert.deepEqual(list.body.data, []);
    assertError(await ctx.get('/api/v2/authentication-tokens/at-0000000000000000', org.owner.token), 404);
  });

  it("keeps one organization's tokens from another organization: 404 everywhere, nothing changes", async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const other = await ctx.organization();
    const t = other.owner.token;
    assertError(await ctx.get(tokensUrl(pool.id), t), 404);
    assertError(await ctx.post(tokensUrl(pool.id), t, tokenBody('intruder')), 404);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${token.id}`, t), 404);
    assertError(await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, t), 404);
    // A hidden token and an absent one get the same body.
    const absent = await ctx.get('/api/v2/authentication-tokens/at-0000000000000000', t);
    const hidden = await ctx.get(`/api/v2/authentication-tokens/${token.id}`, t);
    assert.deepEqual(hidden.body, absent.body);
    assertStatus(await agentCall(ctx, 'register', token.secret), 201);
    assert.equal((await ctx.get(tokensUrl(pool.id), org.owner.token)).body.data.length, 1);
    assertError(await ctx.get(tokensUrl('apool-0000000000000000'), org.owner.token), 404);
    assertError(await ctx.post(tokensUrl('apool-0000000000000000'), org.owner.token, tokenBody('x')), 404);
  });

  it('lets only pool managers see tokens: other members get 404, a manage-agent-pools team may do it all', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const reader = await ctx.member(org, { 'manage-projects': true, 'manage-teams': true });
    const manager = await ctx.member(org, { 'manage-agent-pools': true });
    assertStatus(await ctx.get(`/api/v2/agent-pools/${pool.id}`, reader.token), 200);
    assertError(await ctx.get(tokensUrl(pool.id), reader.token), 404);
    assertError(await ctx.post(tokensUrl(pool.id), reader.token, tokenBody('x')), 404);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${token.id}`, reader.token), 404);
    assertError(await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, reader.token), 404);

    assertStatus(await ctx.get(tokensUrl(pool.id), manager.token), 200);
    const made = await ctx.post(tokensUrl(pool.id), manager.token, tokenBody('by a manager'));
    assertStatus(made, 201);
    assert.deepEqual(made.body.data.relationships['created-by'].data, { id: manager.id, type: 'users' });
    assertStatus(await ctx.get(`/api/v2/authentication-tokens/${token.id}`, manager.token), 200);
    assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, manager.token), 204);
  });

  it('keeps user tokens and agent tokens apart on the shared /authentication-tokens/:id routes', async () => {
    const { org, token } = await poolWithToken(ctx);
    const userTokens = await ctx.get(`/api/v2/users/${org.owner.id}/authentication-tokens`, org.owner.token);
    const ownUserToken = userTokens.body.data[0].id;
    const manager = await ctx.member(org, { 'manage-agent-pools': true });
    // Managing pools gives no say over someone's user token, and a user's token list holds no agent token.
    assertError(await ctx.get(`/api/v2/authentication-tokens/${ownUserToken}`, manager.token), 404);
    assertStatus(await ctx.get(`/api/v2/authentication-tokens/${ownUserToken}`, org.owner.token), 200);
    assert.ok(!userTokens.body.data.some((t: any) => t.id === token.id));
  });

  it('needs a valid user or organization token for every endpoint (401), and never takes an agent token there', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const endpoints: Array<[string, string, unknown]> = [
      ['GET', tokensUrl(pool.id), undefined],
      ['POST', tokensUrl(pool.id), tokenBody('x')],
      ['GET', `/api/v2/authentication-tokens/${token.id}`, undefined],
      ['DELETE', `/api/v2/authentication-tokens/${token.id}`, undefined],
      ['GET', `/api/v2/agent-pools/${pool.id}`, undefined],
      ['GET', `/api/v2/organizations/${org.name}/agent-pools`, undefined],
      ['GET', '/api/v2/account/details', undefined],
    ];
    for (const [method, url, body] of endpoints) {
      for (const bearer of [null, 'garbage', token.secret]) {
        const res = await ctx.request(method, url, { token: bearer, body });
        assert.equal(res.status, 401, `${method} ${url} with ${bearer === token.secret ? 'an agent token' : String(bearer)}`);
        assert.deepEqual(res.body, { errors: [{ status: '401', title: 'unauthorized' }] });
      }
    }
    // Refused is not used: the agent token's last-used-at was not touched, and it still exists.
    const shown = await ctx.get(`/api/v2/authentication-tokens/${token.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['last-used-at'], null);
  });

  it('answers a failure during creation with a 500 that reveals nothing, and leaves no token behind', async () => {
    const { org, pool } = await poolWithToken(ctx);
    const tokens = ctx.services.tokens;
    const realIssue = tokens.issue;
    let leaked: string | null = null;
    // The token row is written inside the create's transaction, then something fails.
    tokens.issue = async (...args: Parameters<typeof realIssue>) => {
      const issued = await realIssue(...args);
      leaked = issued.secret;
      throw new Error(`storage exploded after writing ${issued.token.id}`);
    };
    let res;
    try {
      res = await ctx.post(tokensUrl(pool.id), org.owner.token, tokenBody('doomed'));
    } finally {
      tokens.issue = realIssue;
    }
    assert.ok(leaked, 'the injected failure ran after the token was written');
    assertError(res, 500);
    assert.deepEqual(res.body, { errors: [{ status: '500', title: 'internal server error' }] });
    assert.ok(!res.raw.includes(leaked!) && !res.raw.includes('exploded'));
    assert.ok(!ctx.logs.includes(leaked!));
    const rows = await ctx.database.db
      .selectFrom('auth_tokens')
      .select('id')
      .where('agent_pool_id', '=', pool.id)
      .where('description', '=', 'doomed')
      .execute();
    assert.deepEqual(rows, []);
    assert.equal((await ctx.get(tokensUrl(pool.id), org.owner.token)).body.meta.pagination['total-count'], 1);
  });

  it('never writes a secret to a log line, an error or a list', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    await agentCall(ctx, 'register', token.secret, { name: 'logger' });
    await agentCall(ctx, 'status', token.secret, { id: 'agent-0000000000000000', status: 'idle' });
    const refused = await ctx.get(`/api/v2/agent-pools/${pool.id}`, token.secret);
    assert.ok(!refused.raw.includes(token.secret));
    const refusedAgent = await agentCall(ctx, 'register', org.owner.token);
    assert.ok(!refusedAgent.raw.includes(org.owner.token));
    const list = await ctx.get(tokensUrl(pool.id), org.owner.token);
    assert.ok(!list.raw.includes(token.secret));
    assert.ok(ctx.logs.length > 0);
    assert.ok(!ctx.logs.includes(token.secret), 'agent token secret found in the logs');
    assert.ok(!ctx.logs.includes(org.owner.token), 'user token secret found in the logs');
    // The secret's halves do not leak either (a log line could split or truncate it).
    assert.ok(!ctx.logs.includes(token.secret.split('.atlasv1.')[1]!));
  });
});

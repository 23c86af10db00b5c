import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import {
  agentCall,
  assertAgentError,
  createAgentToken,
  createPool,
  poolWithToken,
  registerAgent,
  silenceAgent,
  spreadCreatedAt,
  TIMESTAMP,
} from './helpers/agents.ts';

suite('agent endpoints', (ctx) => {
  it('registers an agent (201, plain JSON) with or without a name', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const res = await agentCall(ctx, 'register', token.secret, { name: 'runner-1', extra: true });
    assertStatus(res, 201);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(res.body.id, /^agent-[0-9A-Za-z]{16}$/);
    assert.equal(res.body['agent-pool-id'], pool.id);
    assert.equal(res.body.name, 'runner-1');
    assert.equal(res.body.status, 'idle');
    assert.match(res.body['last-ping-at'], TIMESTAMP);
    assert.equal(res.body.data, undefined, 'not a JSON:API document');

    const anonymous = await agentCall(ctx, 'register', token.secret);
    assertStatus(anonymous, 201);
    assert.equal(anonymous.body.name, null);
    const explicitNull = await agentCall(ctx, 'register', token.secret, { name: null });
    assertStatus(explicitNull, 201);
    assert.equal(explicitNull.body.name, null);

    const shown = await ctx.get(`/api/v2/agents/${res.body.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.name, 'runner-1');
    assert.equal(shown.body.data.attributes['ip-address'], '127.0.0.1');
  });

  it('refuses bad bodies: 422 with a pointer, 415 for another media type, 400 for broken JSON', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    assertAgentError(await agentCall(ctx, 'register', token.secret, { name: 7 }), 422, '/name');
    assertAgentError(await agentCall(ctx, 'register', token.secret, { name: '' }), 422, '/name');
    assertAgentError(await agentCall(ctx, 'register', token.secret, []), 422);
    const jsonApi = await ctx.request('POST', '/api/agent/register', { token: token.secret, body: { name: 'x' } });
    const e = assertAgentError(jsonApi, 415);
    assert.match(e.detail!, /application\/json/);
    assertAgentError(await ctx.request('POST', '/api/agent/register', { token: token.secret, rawBody: 'name=x', contentType: 'text/plain' }), 415);
    assertAgentError(await ctx.request('POST', '/api/agent/register', { token: token.secret, rawBody: '{"name":', contentType: 'application/json' }), 400);

    const agent = await registerAgent(ctx, token.secret);
    assertAgentError(await agentCall(ctx, 'status', token.secret, { id: agent, status: 'sleeping' }), 422, '/status');
    assertAgentError(await agentCall(ctx, 'status', token.secret, { status: 'idle' }), 422, '/id');
    assertAgentError(await agentCall(ctx, 'status', token.secret, { id: agent }), 422, '/status');
    assertAgentError(await agentCall(ctx, 'status', token.secret), 422);
    assertAgentError(await agentCall(ctx, 'status', token.secret, { id: 'agent-0000000000000000', status: 'idle' }), 404);
    // Only the one valid registration happened.
    const list = await ctx.get(`/api/v2/agent-pools/${pool.id}/agents`, org.owner.token);
    assert.deepEqual(
      list.body.data.map((a: any) => a.id),
      [agent],
    );
  });

  it('accepts only agent tokens: user, organization, destroyed, deleted-pool and bogus tokens are 401', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
      data: { type: 'authentication-token' },
    });
    const destroyed = await createAgentToken(ctx, pool.id, org.owner.token);
    assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${destroyed.id}`, org.owner.token), 204);
    const doomedPool = await createPool(ctx, org);
    const orphan = await createAgentToken(ctx, doomedPool.id, org.owner.token);
    assertStatus(await agentCall(ctx, 'register', orphan.secret), 201);
    assertStatus(await ctx.delete(`/api/v2/agent-pools/${doomedPool.id}`, org.owner.token), 204);

    const agent = await registerAgent(ctx, token.secret);
    const refused = [null, 'garbage', org.owner.token, orgToken.body.data.attributes.token, destroyed.secret, orphan.secret];
    for (const bearer of refused) {
      for (const [path, body] of [
        ['register', { name: 'x' }],
        ['status', { id: agent, status: 'busy' }],
      ] as const) {
        const res = await agentCall(ctx, path, bearer, body);
        assertAgentError(res, 401);
        assert.deepEqual(res.body, { errors: [{ status: '401', title: 'unauthorized' }] });
      }
    }
    // Nothing a refused caller sent was applied.
    const shown = await ctx.get(`/api/v2/agents/${agent}`, org.owner.token);
    assert.equal(shown.body.data.attributes.status, 'idle');
  });

  it('does not count a refused user token as used', async () => {
    const { token } = await poolWithToken(ctx);
    const user = await ctx.user();
    assertAgentError(await agentCall(ctx, 'register', user.token, { name: 'x' }), 401);
    const row = await ctx.database.db.selectFrom('auth_tokens').select('last_used_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.last_used_at, null);
    // The same token used where it belongs is recorded.
    assertStatus(await ctx.get('/api/v2/account/details', user.token), 200);
    const after = await ctx.database.db.selectFrom('auth_tokens').select('last_used_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.match(String(after.last_used_at), TIMESTAMP);
    assertStatus(await agentCall(ctx, 'register', token.secret), 201);
  });

  it("takes heartbeats for the token's own pool only", async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const otherPool = await createPool(ctx, org);
    const otherToken = await createAgentToken(ctx, otherPool.id, org.owner.token);
    const agent = await registerAgent(ctx, token.secret);

    const busy = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' });
    assertStatus(busy, 200);
    assert.match(String(busy.headers['content-type']), /^application\/json/);
    assert.deepEqual([busy.body.id, busy.body.status, busy.body['agent-pool-id']], [agent, 'busy', pool.id]);

    // A token of another pool cannot speak for this agent.
    assertAgentError(await agentCall(ctx, 'status', otherToken.secret, { id: agent, status: 'exited' }), 404);
    const shown = await ctx.get(`/api/v2/agents/${agent}`, org.owner.token);
    assert.equal(shown.body.data.attributes.status, 'busy');
  });

  it('writes a heartbeat that repeats the last one at most every 30 s; a new status at once', async () => {
    const { org, token } = await poolWithToken(ctx);
    const agent = await registerAgent(ctx, token.secret);
    const row = async () => ({
      ...(await ctx.database.db.selectFrom('agents').select(['status', 'last_ping_at']).where('id', '=', agent).executeTakeFirstOrThrow()),
    });
    const first = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' });
    assertStatus(first, 200);
    const written = await row();
    assert.deepEqual(written, { status: 'busy', last_ping_at: first.body['last-ping-at'] });
    await new Promise((r) => setTimeout(r, 5));
    const again = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' });
    assertStatus(again, 200);
    assert.ok(again.body['last-ping-at'] > written.last_ping_at, 'the agent is told of its ping');
    assert.deepEqual(await row(), written, 'the same status again is not written');
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: agent, status: 'idle' }), 200);
    assert.equal((await row()).status, 'idle', 'a change of status is written at once');
    assert.equal((await ctx.get(`/api/v2/agents/${agent}`, org.owner.token)).body.data.attributes.status, 'idle');
  });

  it('answers a ping that needs no write with the same document as a written one, but for its time', async () => {
    const { token } = await poolWithToken(ctx);
    // A name that JSON must escape: the answer is made from text kept between pings.
    const name = 'quote " backslash \\ tab \t é 💡';
    const registered = await agentCall(ctx, 'register', token.secret, { name });
    assertStatus(registered, 201);
    const agent = registered.body.id as string;
    const written = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' });
    const repeated = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' });
    for (const res of [registered, written, repeated]) assert.equal(res.raw, JSON.stringify(res.body), 'plain JSON text');
    const untimed = ({ 'last-ping-at': at, ...rest }: Record<string, unknown>) => (assert.match(String(at), TIMESTAMP), rest);
    assert.deepEqual(untimed(repeated.body), { id: agent, 'agent-pool-id': registered.body['agent-pool-id'], name, status: 'busy' });
    assert.deepEqual(untimed(repeated.body), untimed(written.body));
    // Back to idle (written), then idle again (not written): the status follows the report.
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: agent, status: 'idle' }), 200);
    const idle = await agentCall(ctx, 'status', token.secret, { id: agent, status: 'idle' });
    assert.equal(idle.body.status, 'idle');
    assert.equal(idle.body.name, name);
  });

  it('sets last-used-at on the first agent authentication and then at most once a minute', async () => {
    const { org, token } = await poolWithToken(ctx);
    const lastUsed = async () => (await ctx.get(`/api/v2/authentication-tokens/${token.id}`, org.owner.token)).body.data.attributes['last-used-at'];
    assert.equal(await lastUsed(), null);
    const before = Date.now();
    const agent = await registerAgent(ctx, token.secret);
    const first = await lastUsed();
    assert.match(first, TIMESTAMP);
    assert.ok(Date.parse(first) >= before - 1);

    assertStatus(await agentCall(ctx, 'status', token.secret, { id: agent, status: 'busy' }), 200);
    assert.equal(await lastUsed(), first, 'a second use within the minute does not write');

    const longAgo = new Date(Date.now() - 5 * 60_000).toISOString();
    await ctx.database.db.updateTable('auth_tokens').set({ last_used_at: longAgo }).where('id', '=', token.id).execute();
    // last-used-at is bookkeeping the token cache keeps itself; a write behind its back is not news to it.
    ctx.database.changes.bump();
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: agent, status: 'idle' }), 200);
    const later = await lastUsed();
    assert.ok(Date.parse(later) > Date.parse(longAgo) + 4 * 60_000, `${later} was not refreshed`);
  });
});

suite('agents', (ctx) => {
  it("lists a pool's agents, paginated, oldest first or newest first; a bad sort is 400", async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const ids = [await registerAgent(ctx, token.secret), await registerAgent(ctx, token.secret), await registerAgent(ctx, token.secret)];
    await spreadCreatedAt(ctx, 'agents', ids);
    const other = await createPool(ctx, org);
    await registerAgent(ctx, (await createAgentToken(ctx, other.id, org.owner.token)).secret);
    const url = `/api/v2/agent-pools/${pool.id}/agents`;
    const idsOf = (res: any) => res.body.data.map((a: any) => a.id);

    const all = await ctx.get(url, org.owner.token);
    assertStatus(all, 200);
    assert.deepEqual(idsOf(all), ids);
    assert.equal(all.body.meta.pagination['total-count'], 3);
    const a = all.body.data[0];
    assert.equal(a.type, 'agents');
    assert.deepEqual(Object.keys(a.attributes).sort(), ['ip-address', 'last-ping-at', 'name', 'status']);
    assert.equal(a.attributes.status, 'idle');
    assert.deepEqual(a.relationships['agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    assert.equal(a.links.self, `/api/v2/agents/${a.id}`);

    assert.deepEqual(idsOf(await ctx.get(`${url}?sort=-created-at`, org.owner.token)), [...ids].reverse());
    const page = await ctx.get(`${url}?page[number]=2&page[size]=2`, org.owner.token);
    assert.deepEqual(idsOf(page), [ids[2]]);
    assert.equal(page.body.meta.pagination['next-page'], null);
    assertError(await ctx.get(`${url}?sort=name`, org.owner.token), 400);
    assertError(await ctx.get(`${url}?page[number]=abc`, org.owner.token), 400);
  });

  it('reports an idle or busy agent silent for 2 minutes as unknown; exited and errored stay', async () => {
    const { org, token } = await poolWithToken(ctx);
    const idle = await registerAgent(ctx, token.secret);
    const busy = await registerAgent(ctx, token.secret);
    const recent = await registerAgent(ctx, token.secret);
    const exited = await registerAgent(ctx, token.secret);
    await agentCall(ctx, 'status', token.secret, { id: busy, status: 'busy' });
    await agentCall(ctx, 'status', token.secret, { id: exited, status: 'exited' });
    await silenceAgent(ctx, idle, 2 * 60_000 + 1000);
    await silenceAgent(ctx, busy, 60 * 60_000);
    await silenceAgent(ctx, recent, 90_000);
    await silenceAgent(ctx, exited, 60 * 60_000);
    const status = async (id: string) => (await ctx.get(`/api/v2/agents/${id}`, org.owner.token)).body.data.attributes.status;
    assert.equal(await status(idle), 'unknown');
    assert.equal(await status(busy), 'unknown');
    assert.equal(await status(recent), 'idle');
    assert.equal(await status(exited), 'exited');
    // A heartbeat brings it back.
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: idle, status: 'idle' }), 200);
    assert.equal(await status(idle), 'idle');
  });

  it('deletes an agent that is not running (204) and refuses a running one (412)', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const idle = await registerAgent(ctx, token.secret);
    const busy = await registerAgent(ctx, token.secret);
    const exited = await registerAgent(ctx, token.secret);
    const errored = await registerAgent(ctx, token.secret);
    const silent = await registerAgent(ctx, token.secret);
    await agentCall(ctx, 'status', token.secret, { id: busy, status: 'busy' });
    await agentCall(ctx, 'status', token.secret, { id: exited, status: 'exited' });
    await agentCall(ctx, 'status', token.secret, { id: errored, status: 'errored' });
    await silenceAgent(ctx, silent, 3 * 60_000);
    const del = (id: string) => ctx.delete(`/api/v2/agents/${id}`, org.owner.token);

    for (const id of [idle, busy]) {
      const e = assertError(await del(id), 412);
      assert.equal(e.title, 'precondition failed');
      assertStatus(await ctx.get(`/api/v2/agents/${id}`, org.owner.token), 200);
    }
    for (const id of [exited, errored, silent]) {
      const res = await del(id);
      assertStatus(res, 204);
      assert.equal(res.raw, '');
      assertError(await ctx.get(`/api/v2/agents/${id}`, org.owner.token), 404);
    }
    assertError(await del(exited), 404);
    assertError(await del('agent-0000000000000000'), 404);
    // A deleted agent cannot report any more; it has to register again.
    assertAgentError(await agentCall(ctx, 'status', token.secret, { id: exited, status: 'idle' }), 404);
    const list = await ctx.get(`/api/v2/agent-pools/${pool.id}/agents`, org.owner.token);
    assert.deepEqual(list.body.data.map((a: any) => a.id).sort(), [idle, busy].sort());
  });

  it('lets members read agents, only pool managers delete them (403), outsiders nothing (404)', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const reader = await ctx.member(org, {});
    const manager = await ctx.member(org, { 'manage-agent-pools': true });
    const outsider = await ctx.organization();
    const agent = await registerAgent(ctx, token.secret);
    await agentCall(ctx, 'status', token.secret, { id: agent, status: 'exited' });

    assertStatus(await ctx.get(`/api/v2/agent-pools/${pool.id}/agents`, reader.token), 200);
    assertStatus(await ctx.get(`/api/v2/agents/${agent}`, reader.token), 200);
    assertError(await ctx.delete(`/api/v2/agents/${agent}`, reader.token), 403);

    const t = outsider.owner.token;
    assertError(await ctx.get(`/api/v2/agent-pools/${pool.id}/agents`, t), 404);
    assertError(await ctx.get(`/api/v2/agents/${agent}`, t), 404);
    assertError(await ctx.delete(`/api/v2/agents/${agent}`, t), 404);
    assertError(await ctx.get('/api/v2/agent-pools/apool-0000000000000000/agents', org.owner.token), 404);
    assertError(await ctx.get('/api/v2/agents/agent-0000000000000000', org.owner.token), 404);

    for (const [method, url] of [
      ['GET', `/api/v2/agent-pools/${pool.id}/agents`],
      ['GET', `/api/v2/agents/${agent}`],
      ['DELETE', `/api/v2/agents/${agent}`],
    ]) {
      for (const bearer of [null, token.secret]) assertError(await ctx.request(method!, url!, { token: bearer }), 401);
    }
    // A DELETE that carries a body must say it is JSON:API.
    assertError(await ctx.request('DELETE', `/api/v2/agents/${agent}`, { token: manager.token, body: {}, contentType: 'application/json' }), 415);

    assertStatus(await ctx.delete(`/api/v2/agents/${agent}`, manager.token), 204);
  });
});

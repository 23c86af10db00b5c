import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { agentCall, createPool, poolBody, poolWithToken, registerAgent, silenceAgent, spreadCreatedAt, TIMESTAMP } from './helpers/agents.ts';

suite('agent pools', (ctx) => {
  const poolsUrl = (org: string) => `/api/v2/organizations/${org}/agent-pools`;

  it('creates a pool (201) with its defaults, links and relationships, ignoring unmodelled members', async () => {
    const org = await ctx.organization();
    const name = unique('dc-east_1');
    const body = poolBody(name, { 'some-future-attribute': 1 }) as any;
    // Relationships Hangar does not model are ignored (allowed-workspaces has its own suite).
    body.data.relationships = {
      'allowed-projects': { data: [{ id: 'prj-Aa11Bb22Cc33Dd44', type: 'projects' }] },
      'excluded-workspaces': { data: [{ id: 'ws-Aa11Bb22Cc33Dd44', type: 'workspaces' }] },
    };
    const res = await ctx.post(poolsUrl(org.name), org.owner.token, body);
    assertStatus(res, 201);
    const p = res.body.data;
    assert.match(p.id, /^apool-[0-9A-Za-z]{16}$/);
    assert.equal(p.type, 'agent-pools');
    assert.equal(p.attributes.name, name);
    assert.equal(p.attributes['organization-scoped'], true);
    assert.equal(p.attributes['agent-count'], 0);
    assert.match(p.attributes['created-at'], TIMESTAMP);
    assert.deepEqual(p.relationships.organization.data, { id: org.name, type: 'organizations' });
    assert.equal(p.relationships.agents.links.related, `/api/v2/agent-pools/${p.id}/agents`);
    assert.equal(p.relationships['authentication-tokens'].links.related, `/api/v2/agent-pools/${p.id}/authentication-tokens`);
    assert.deepEqual(p.relationships['allowed-workspaces'].data, []);
    assert.equal(p.links.self, `/api/v2/agent-pools/${p.id}`);
    assert.match(String(res.headers['content-type']), /application\/vnd\.api\+json/);

    const scoped = await ctx.post(poolsUrl(org.name), org.owner.token, poolBody(unique('p'), { 'organization-scoped': false }));
    assertStatus(scoped, 201);
    const shown = await ctx.get(`/api/v2/agent-pools/${scoped.body.data.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['organization-scoped'], false);
  });

  it('refuses bad create bodies with 422 and a pointer, and writes nothing', async () => {
    const org = await ctx.organization();
    const url = poolsUrl(org.name);
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'agent-pools', attributes: {} } }), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'agent-pools' } }), 422, '/data/attributes');
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'pools', attributes: { name: 'x' } } }), 422, '/data/type');
    assertError(await ctx.post(url, org.owner.token, poolBody('x', { 'organization-scoped': 'yes' })), 422, '/data/attributes/organization-scoped');
    assertError(await ctx.post(url, org.owner.token, poolBody(42 as unknown as string)), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, poolBody('')), 422, '/data/attributes/name');
    const e = assertError(await ctx.post(url, org.owner.token, poolBody('has space')), 422, '/data/attributes/name');
    assert.match(e.detail!, /letters, numbers/);
    assertError(await ctx.post(url, org.owner.token, {}), 422, '/data');
    const list = await ctx.get(url, org.owner.token);
    assert.equal(list.body.meta.pagination['total-count'], 0);
  });

  it('keeps names unique per organization, case-insensitively, but not across organizations', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const name = unique('Pool');
    assertStatus(await ctx.post(poolsUrl(org.name), org.owner.token, poolBody(name)), 201);
    const dup = assertError(await ctx.post(poolsUrl(org.name), org.owner.token, poolBody(name.toLowerCase())), 422, '/data/attributes/name');
    assert.equal(dup.detail, 'Name has already been taken');
    assertStatus(await ctx.post(poolsUrl(other.name), other.owner.token, poolBody(name)), 201);
  });

  it('answers a wrong content type with 415 and a missing or bad token with 401', async () => {
    const org = await ctx.organization();
    const url = poolsUrl(org.name);
    assertError(await ctx.request('POST', url, { token: org.owner.token, body: poolBody('x'), contentType: 'application/json' }), 415);
    const pool = await createPool(ctx, org);
    assertError(await ctx.request('PATCH', `/api/v2/agent-pools/${pool.id}`, { token: org.owner.token, body: poolBody('y'), contentType: 'text/plain' }), 415);
    for (const [method, path] of [
      ['GET', url],
      ['POST', url],
      ['GET', `/api/v2/agent-pools/${pool.id}`],
      ['PATCH', `/api/v2/agent-pools/${pool.id}`],
      ['DELETE', `/api/v2/agent-pools/${pool.id}`],
    ] as const) {
      assertError(await ctx.request(method, path, { token: null, body: method === 'GET' || method === 'DELETE' ? undefined : poolBody('z') }), 401);
      assertError(await ctx.request(method, path, { token: 'not-a-token' }), 401);
    }
    // The pool survived every refused request.
    assertStatus(await ctx.get(`/api/v2/agent-pools/${pool.id}`, org.owner.token), 200);
  });

  it('lets owners, the organization token and manage-agent-pools teams manage pools; other members read (403 on writes)', async () => {
    const org = await ctx.organization();
    const manager = await ctx.member(org, { 'manage-agent-pools': true });
    const reader = await ctx.member(org, { 'manage-projects': true });
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
      data: { type: 'authentication-token' },
    });
    assertStatus(orgToken, 201);

    const byManager = await createPool(ctx, org, manager.token);
    await createPool(ctx, org, orgToken.body.data.attributes.token);
    assertError(await ctx.post(poolsUrl(org.name), reader.token, poolBody(unique('p'))), 403);

    const list = await ctx.get(poolsUrl(org.name), reader.token);
    assertStatus(list, 200);
    assert.equal(list.body.data.length, 2);
    assertStatus(await ctx.get(`/api/v2/agent-pools/${byManager.id}`, reader.token), 200);
    assertError(await ctx.patch(`/api/v2/agent-pools/${byManager.id}`, reader.token, poolBody('renamed')), 403);
    assertError(await ctx.delete(`/api/v2/agent-pools/${byManager.id}`, reader.token), 403);
    assertStatus(await ctx.patch(`/api/v2/agent-pools/${byManager.id}`, manager.token, poolBody(unique('renamed'))), 200);
    assertStatus(await ctx.delete(`/api/v2/agent-pools/${byManager.id}`, manager.token), 204);
  });

  it('hides pools from callers of other organizations: 404 for every endpoint', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const pool = await createPool(ctx, org);
    const t = other.owner.token;
    assertError(await ctx.get(poolsUrl(org.name), t), 404);
    assertError(await ctx.post(poolsUrl(org.name), t, poolBody(unique('p'))), 404);
    assertError(await ctx.get(`/api/v2/agent-pools/${pool.id}`, t), 404);
    assertError(await ctx.patch(`/api/v2/agent-pools/${pool.id}`, t, poolBody(unique('p'))), 404);
    assertError(await ctx.delete(`/api/v2/agent-pools/${pool.id}`, t), 404);
    // The same body as for a pool that does not exist at all.
    const absent = await ctx.get('/api/v2/agent-pools/apool-0000000000000000', org.owner.token);
    const hidden = await ctx.get(`/api/v2/agent-pools/${pool.id}`, t);
    assert.deepEqual(hidden.body, absent.body);
    assertError(await ctx.get(poolsUrl('no-such-org'), org.owner.token), 404);
    assertStatus(await ctx.get(`/api/v2/agent-pools/${pool.id}`, org.owner.token), 200);
  });

  it('lists with pagination, q and every sort; a bad sort or page is 400', async () => {
    const org = await ctx.organization();
    const names = ['bravo', 'Alpha', 'charlie-x', 'delta-x'];
    const ids: string[] = [];
    for (const n of names) {
      const res = await ctx.post(poolsUrl(org.name), org.owner.token, poolBody(n));
      assertStatus(res, 201);
      ids.push(res.body.data.id);
    }
    await spreadCreatedAt(ctx, 'agent_pools', ids);
    const get = (qs: string) => ctx.get(`${poolsUrl(org.name)}?${qs}`, org.owner.token);
    const namesOf = (res: any) => res.body.data.map((p: any) => p.attributes.name);

    assert.deepEqual(namesOf(await get('')), names);
    assert.deepEqual(namesOf(await get('sort=created-at')), names);
    assert.deepEqual(namesOf(await get('sort=-created-at')), [...names].reverse());
    assert.deepEqual(namesOf(await get('sort=name')), ['Alpha', 'bravo', 'charlie-x', 'delta-x']);
    assert.deepEqual(namesOf(await get('sort=-name')), ['delta-x', 'charlie-x', 'bravo', 'Alpha']);
    assert.deepEqual(namesOf(await get('q=X&sort=name')), ['charlie-x', 'delta-x']);
    assert.deepEqual(namesOf(await get('q=%25')), []);

    const page = await get('page%5Bnumber%5D=2&page%5Bsize%5D=3&sort=name');
    assertStatus(page, 200);
    assert.deepEqual(namesOf(page), ['delta-x']);
    assert.deepEqual(page.body.meta.pagination, {
      'current-page': 2,
      'page-size': 3,
      'prev-page': 1,
      'next-page': null,
      'total-pages': 2,
      'total-count': 4,
    });
    const first = new URL(page.body.links.first);
    assert.equal(first.pathname, poolsUrl(org.name));
    assert.match(page.body.links.first, /page%5Bnumber%5D=1/);
    assert.deepEqual(Object.fromEntries(first.searchParams), { 'page[number]': '1', 'page[size]': '3', sort: 'name' });

    for (const qs of ['sort=agent-count', 'sort=', 'sort=--name', 'page[number]=0', 'page[size]=x']) {
      assertError(await get(qs), 400);
    }
  });

  it('shows, renames and toggles organization-scoped; refuses bad or duplicate names', async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const taken = await createPool(ctx, org);
    const url = `/api/v2/agent-pools/${pool.id}`;
    const newName = unique('renamed');
    const res = await ctx.patch(url, org.owner.token, poolBody(newName, { 'organization-scoped': false }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.name, newName);
    assert.equal(res.body.data.attributes['organization-scoped'], false);
    const shown = await ctx.get(url, org.owner.token);
    assert.equal(shown.body.data.attributes.name, newName);
    assert.equal(shown.body.data.attributes['organization-scoped'], false);

    // No attributes at all changes nothing.
    assertStatus(await ctx.patch(url, org.owner.token, { data: { type: 'agent-pools' } }), 200);
    assertError(await ctx.patch(url, org.owner.token, poolBody(taken.name.toUpperCase())), 422, '/data/attributes/name');
    assertError(await ctx.patch(url, org.owner.token, poolBody('bad/name')), 422, '/data/attributes/name');
    assertError(
      await ctx.patch(url, org.owner.token, { data: { type: 'agent-pools', attributes: { 'organization-scoped': 1 } } }),
      422,
      '/data/attributes/organization-scoped',
    );
    assertError(await ctx.patch(url, org.owner.token, { data: { type: 'teams', attributes: {} } }), 422, '/data/type');
    assertError(await ctx.patch('/api/v2/agent-pools/apool-0000000000000000', org.owner.token, poolBody('x')), 404);
    const after = await ctx.get(url, org.owner.token);
    assert.equal(after.body.data.attributes.name, newName);
  });

  it('deletes a pool (204): it, its agents and its tokens are gone, and the tokens stop working at once', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const agentId = await registerAgent(ctx, token.secret);
    const del = await ctx.delete(`/api/v2/agent-pools/${pool.id}`, org.owner.token);
    assertStatus(del, 204);
    assert.equal(del.raw, '');
    assertError(await ctx.get(`/api/v2/agent-pools/${pool.id}`, org.owner.token), 404);
    assertError(await ctx.get(`/api/v2/authentication-tokens/${token.id}`, org.owner.token), 404);
    assertError(await ctx.get(`/api/v2/agents/${agentId}`, org.owner.token), 404);
    assert.equal((await agentCall(ctx, 'register', token.secret)).status, 401);
    const rows = await ctx.database.db.selectFrom('auth_tokens').select('id').where('id', '=', token.id).execute();
    assert.deepEqual(rows, []);
    assertError(await ctx.delete(`/api/v2/agent-pools/${pool.id}`, org.owner.token), 404);
  });

  it('counts idle, busy and unknown agents in agent-count, never exited or errored ones', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const empty = await createPool(ctx, org);
    await spreadCreatedAt(ctx, 'agent_pools', [pool.id, empty.id]);
    const busy = await registerAgent(ctx, token.secret);
    await registerAgent(ctx, token.secret); // idle
    const silent = await registerAgent(ctx, token.secret);
    const exited = await registerAgent(ctx, token.secret);
    const errored = await registerAgent(ctx, token.secret);
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: busy, status: 'busy' }), 200);
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: exited, status: 'exited' }), 200);
    assertStatus(await agentCall(ctx, 'status', token.secret, { id: errored, status: 'errored' }), 200);
    await silenceAgent(ctx, silent, 10 * 60_000);
    await silenceAgent(ctx, exited, 10 * 60_000);

    const shown = await ctx.get(`/api/v2/agent-pools/${pool.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['agent-count'], 3);
    const list = await ctx.get(`${poolsUrl(org.name)}?sort=created-at`, org.owner.token);
    assert.deepEqual(
      list.body.data.map((p: any) => [p.id, p.attributes['agent-count']]),
      [
        [pool.id, 3],
        [empty.id, 0],
      ],
    );
  });
});

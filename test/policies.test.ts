import assert from 'node:assert/strict';
import { it } from 'node:test';
import { untilCaching } from './helpers/caches.ts';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createPolicySet, type Org } from './helpers/policy-sets.ts';

const ID = /^pol-[0-9A-Za-z]{16}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SOURCE = 'main = rule { true }\n';

const policyBody = (name: string, attributes: Record<string, unknown> = {}) => ({ data: { type: 'policies', attributes: { name, ...attributes } } });
const legacy = (name: string, mode = 'soft-mandatory') => ({ enforce: [{ path: `${name}.sentinel`, mode }] });
const policiesOf = (org: string) => `/api/v2/organizations/${org}/policies`;

async function createPolicy(ctx: TestContext, org: Org, attributes: Record<string, unknown> = {}) {
  const name = unique('pol');
  const res = await ctx.post(policiesOf(org.name), org.owner.token, policyBody(name, { 'enforcement-level': 'hard-mandatory', ...attributes }));
  if (res.status !== 201) throw new Error(`policy create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

suite('policies', (ctx) => {
  const upload = (id: string, token: string | null, body: string | Buffer, contentType: string | null = 'application/octet-stream') =>
    ctx.request('PUT', `/api/v2/policies/${id}/upload`, { token, rawBody: typeof body === 'string' ? body : body.toString('latin1'), contentType });
  const uploadBytes = (id: string, token: string, body: Buffer) =>
    ctx.app.inject({
      method: 'PUT',
      url: `/api/v2/policies/${id}/upload`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      payload: body,
    });

  it('creates a Sentinel policy from the legacy enforce form; enforce lists its file once the source is uploaded', async () => {
    const org = await ctx.organization();
    const name = unique('guard');
    const res = await ctx.post(policiesOf(org.name), org.owner.token, policyBody(name, { description: 'No public buckets', ...legacy(name) }));
    assertStatus(res, 201);
    const p = res.body.data;
    assert.match(p.id, ID);
    assert.equal(p.type, 'policies');
    assert.equal(p.attributes.name, name);
    assert.equal(p.attributes.description, 'No public buckets');
    assert.equal(p.attributes.kind, 'sentinel');
    assert.equal(p.attributes.query, null);
    assert.equal(p.attributes['enforcement-level'], 'soft-mandatory');
    assert.deepEqual(p.attributes.enforce, []);
    assert.equal(p.attributes['policy-set-count'], 0);
    assert.match(p.attributes['updated-at'], TIMESTAMP);
    assert.deepEqual(p.relationships.organization.data, { id: org.name, type: 'organizations' });
    assert.deepEqual(p.relationships['policy-sets'], { data: [] });
    assert.deepEqual(p.links, { self: `/api/v2/policies/${p.id}`, upload: `/api/v2/policies/${p.id}/upload`, download: `/api/v2/policies/${p.id}/download` });

    const shown = await ctx.get(`/api/v2/policies/${p.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, p);

    assertError(await ctx.get(`/api/v2/policies/${p.id}/download`, org.owner.token), 404);
    const up = await upload(p.id, org.owner.token, SOURCE);
    assertStatus(up, 204);
    const down = await ctx.get(`/api/v2/policies/${p.id}/download`, org.owner.token);
    assertStatus(down, 200);
    assert.equal(down.raw, SOURCE);
    assert.match(String(down.headers['content-type']), /application\/octet-stream/);
    const after = await ctx.get(`/api/v2/policies/${p.id}`, org.owner.token);
    assert.deepEqual(after.body.data.attributes.enforce, [{ path: `${name}.sentinel`, mode: 'soft-mandatory' }]);
  });

  it('stores bytes exactly, takes an empty upload, and a later upload replaces the source', async () => {
    const org = await ctx.organization();
    const p = await createPolicy(ctx, org);
    const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 13]);
    assert.equal((await uploadBytes(p.id, org.owner.token, bytes)).statusCode, 204);
    const down = await ctx.app.inject({ method: 'GET', url: `/api/v2/policies/${p.id}/download`, headers: { authorization: `Bearer ${org.owner.token}` } });
    assert.deepEqual(down.rawPayload, bytes);
    assertStatus(await ctx.request('PUT', `/api/v2/policies/${p.id}/upload`, { token: org.owner.token, contentType: 'application/octet-stream' }), 204);
    const empty = await ctx.get(`/api/v2/policies/${p.id}/download`, org.owner.token);
    assertStatus(empty, 200);
    assert.equal(empty.raw, '');
  });

  it('creates with enforcement-level, and OPA policies with their query and levels', async () => {
    const org = await ctx.organization();
    const hard = await ctx.post(
      policiesOf(org.name),
      org.owner.token,
      policyBody(unique('hard'), { kind: 'sentinel', 'enforcement-level': 'hard-mandatory', query: 'ignored' }),
    );
    assertStatus(hard, 201);
    assert.equal(hard.body.data.attributes['enforcement-level'], 'hard-mandatory');
    assert.equal(hard.body.data.attributes.query, null);
    const opa = await ctx.post(
      policiesOf(org.name),
      org.owner.token,
      policyBody(unique('opa'), { kind: 'opa', query: 'data.terraform.deny', enforce: [{ path: 'x.rego', mode: 'mandatory' }] }),
    );
    assertStatus(opa, 201);
    assert.equal(opa.body.data.attributes.kind, 'opa');
    assert.equal(opa.body.data.attributes.query, 'data.terraform.deny');
    assert.equal(opa.body.data.attributes['enforcement-level'], 'mandatory');
    // Neither form: the kind's strictest level.
    const bare = await ctx.post(policiesOf(org.name), org.owner.token, policyBody(unique('bare')));
    assertStatus(bare, 201);
    assert.equal(bare.body.data.attributes['enforcement-level'], 'hard-mandatory');
  });

  it('lists in creation order with paging, search and the kind filter, in two queries whatever the page size', async () => {
    const org = await ctx.organization();
    const a = await createPolicy(ctx, org);
    const b = await createPolicy(ctx, org);
    const c = await createPolicy(ctx, org, { kind: 'opa', query: 'data.x', 'enforcement-level': 'advisory' });
    const all = await ctx.get(policiesOf(org.name), org.owner.token);
    assertStatus(all, 200);
    assert.deepEqual(
      all.body.data.map((p: any) => p.id),
      [a.id, b.id, c.id],
    );
    assert.equal(all.body.meta.pagination['total-count'], 3);
    assert.deepEqual(all.body.data[0], a);

    const page = await ctx.get(`${policiesOf(org.name)}?page[number]=2&page[size]=2`, org.owner.token);
    assert.deepEqual(
      page.body.data.map((p: any) => p.id),
      [c.id],
    );
    assert.equal(page.body.meta.pagination['current-page'], 2);
    const far = await ctx.get(`${policiesOf(org.name)}?page[number]=999&page[size]=100`, org.owner.token);
    assert.deepEqual(far.body.data, []);
    assert.equal(far.body.meta.pagination['total-count'], 3);

    const searched = await ctx.get(`${policiesOf(org.name)}?search[name]=${encodeURIComponent(b.attributes.name.toUpperCase())}`, org.owner.token);
    assert.deepEqual(
      searched.body.data.map((p: any) => p.id),
      [b.id],
    );
    assert.equal(searched.body.meta.pagination['total-count'], 1);
    const opa = await ctx.get(`${policiesOf(org.name)}?filter[kind]=opa`, org.owner.token);
    assert.deepEqual(
      opa.body.data.map((p: any) => p.id),
      [c.id],
    );
    const sentinel = await ctx.get(`${policiesOf(org.name)}?filter[kind]=sentinel`, org.owner.token);
    assert.deepEqual(
      sentinel.body.data.map((p: any) => p.id),
      [a.id, b.id],
    );

    // Policies held by sets: still one query for the page, one for the count, one for their sets.
    const set = await createPolicySet(ctx, org);
    assertStatus(
      await ctx.post(`/api/v2/policy-sets/${set.id}/relationships/policies`, org.owner.token, { data: [a, b, c].map((p) => ({ id: p.id, type: 'policies' })) }),
      204,
    );
    // Policy sets are watched by the change feed: on PostgreSQL the notification of the set's write
    // arrives a moment later and drops the caches, so count once it is in.
    await untilCaching(ctx.database);
    await ctx.get(policiesOf(org.name), org.owner.token);
    const { queries } = await ctx.countQueries(() => ctx.get(policiesOf(org.name), org.owner.token));
    for (let i = 0; i < 5; i++) await createPolicy(ctx, org);
    const more = await ctx.countQueries(() => ctx.get(policiesOf(org.name), org.owner.token));
    assert.equal(more.queries, queries, 'the number of queries does not grow with the page');
  });

  it('updates description, enforcement and query; name and kind stay', async () => {
    const org = await ctx.organization();
    const p = await createPolicy(ctx, org, { 'enforcement-level': 'soft-mandatory' });
    assertStatus(await upload(p.id, org.owner.token, SOURCE), 204);
    const url = `/api/v2/policies/${p.id}`;
    const described = await ctx.patch(url, org.owner.token, {
      data: { type: 'policies', attributes: { description: 'new', name: 'renamed', kind: 'opa', query: 'x' } },
    });
    assertStatus(described, 200);
    assert.equal(described.body.data.attributes.description, 'new');
    assert.equal(described.body.data.attributes.name, p.attributes.name);
    assert.equal(described.body.data.attributes.kind, 'sentinel');
    assert.equal(described.body.data.attributes.query, null);
    assert.equal(described.body.data.attributes['enforcement-level'], 'soft-mandatory');

    const legacyUpdate = await ctx.patch(url, org.owner.token, {
      data: { type: 'policies', attributes: { enforce: [{ path: `${p.attributes.name}.sentinel`, mode: 'advisory' }] } },
    });
    assert.deepEqual(legacyUpdate.body.data.attributes.enforce, [{ path: `${p.attributes.name}.sentinel`, mode: 'advisory' }]);
    const leveled = await ctx.patch(url, org.owner.token, { data: { type: 'policies', attributes: { 'enforcement-level': 'hard-mandatory' } } });
    assert.equal(leveled.body.data.attributes['enforcement-level'], 'hard-mandatory');
    assert.deepEqual((await ctx.get(url, org.owner.token)).body.data, leveled.body.data);

    const opa = await createPolicy(ctx, org, { kind: 'opa', query: 'data.a', 'enforcement-level': 'mandatory' });
    const queried = await ctx.patch(`/api/v2/policies/${opa.id}`, org.owner.token, {
      data: { type: 'policies', attributes: { query: 'data.b', 'enforcement-level': 'advisory' } },
    });
    assert.equal(queried.body.data.attributes.query, 'data.b');
    assert.equal(queried.body.data.attributes['enforcement-level'], 'advisory');
  });

  it('deletes a policy, and the sets holding it let it go', async () => {
    const org = await ctx.organization();
    const p = await createPolicy(ctx, org);
    const set = await createPolicySet(ctx, org);
    assertStatus(await ctx.post(`/api/v2/policy-sets/${set.id}/relationships/policies`, org.owner.token, { data: [{ id: p.id, type: 'policies' }] }), 204);
    const held = await ctx.get(`/api/v2/policies/${p.id}`, org.owner.token);
    assert.equal(held.body.data.attributes['policy-set-count'], 1);
    assert.deepEqual(held.body.data.relationships['policy-sets'].data, [{ id: set.id, type: 'policy-sets' }]);
    assertStatus(await ctx.delete(`/api/v2/policies/${p.id}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/policies/${p.id}`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/policies/${p.id}`, org.owner.token), 404);
    const after = await ctx.get(`/api/v2/policy-sets/${set.id}`, org.owner.token);
    assert.equal(after.body.data.attributes['policy-count'], 0);
  });

  it('refuses bad bodies with 422 at the offending pointer and writes nothing', async () => {
    const org = await ctx.organization();
    const url = policiesOf(org.name);
    const t = org.owner.token;
    const taken = await createPolicy(ctx, org);
    assertError(await ctx.post(url, t, { data: { type: 'policies', attributes: {} } }), 422, '/data/attributes/name');
    assertError(await ctx.post(url, t, { data: { type: 'policy-sets', attributes: { name: 'x' } } }), 422, '/data/type');
    assertError(await ctx.post(url, t, policyBody('bad name!')), 422, '/data/attributes/name');
    assertError(await ctx.post(url, t, policyBody(taken.attributes.name.toUpperCase())), 422, '/data/attributes/name');
    assertError(await ctx.post(url, t, policyBody(unique('k'), { kind: 'rego' })), 422, '/data/attributes/kind');
    assertError(await ctx.post(url, t, policyBody(unique('q'), { kind: 'opa' })), 422, '/data/attributes/query');
    assertError(await ctx.post(url, t, policyBody(unique('l'), { 'enforcement-level': 'mandatory' })), 422, '/data/attributes/enforcement-level');
    assertError(
      await ctx.post(url, t, policyBody(unique('o'), { kind: 'opa', query: 'x', 'enforcement-level': 'hard-mandatory' })),
      422,
      '/data/attributes/enforcement-level',
    );
    assertError(
      await ctx.post(url, t, policyBody(unique('b'), { 'enforcement-level': 'advisory', enforce: [{ path: 'a', mode: 'advisory' }] })),
      422,
      '/data/attributes/enforce',
    );
    assertError(await ctx.post(url, t, policyBody(unique('m'), { enforce: [{ path: 'a.sentinel' }] })), 422, '/data/attributes/enforce/0/mode');
    assertError(
      await ctx.post(url, t, policyBody(unique('m'), { enforce: [{ path: 'a.sentinel', mode: 'sometimes' }] })),
      422,
      '/data/attributes/enforce/0/mode',
    );
    assertError(
      await ctx.post(
        url,
        t,
        policyBody(unique('two'), {
          enforce: [
            { path: 'a', mode: 'advisory' },
            { path: 'b', mode: 'advisory' },
          ],
        }),
      ),
      422,
      '/data/attributes/enforce',
    );
    assertError(await ctx.post(url, t, policyBody(unique('d'), { description: 5 })), 422, '/data/attributes/description');
    assertError(
      await ctx.patch(`/api/v2/policies/${taken.id}`, t, { data: { type: 'policies', attributes: { 'enforcement-level': 'mandatory' } } }),
      422,
      '/data/attributes/enforcement-level',
    );
    const list = await ctx.get(url, t);
    assert.equal(list.body.meta.pagination['total-count'], 1);
    assert.deepEqual((await ctx.get(`/api/v2/policies/${taken.id}`, t)).body.data, taken);
  });

  it('answers 404 for unknown ids, 400 for bad queries, 415 for wrong content types, 413 for oversized sources', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    for (const id of ['pol-AAAAAAAAAAAAAAAA', 'nonexisting']) {
      assertError(await ctx.get(`/api/v2/policies/${id}`, t), 404);
      assertError(await ctx.patch(`/api/v2/policies/${id}`, t, { data: { type: 'policies', attributes: {} } }), 404);
      assertError(await ctx.delete(`/api/v2/policies/${id}`, t), 404);
      assertError(await upload(id, t, SOURCE), 404);
      assertError(await ctx.get(`/api/v2/policies/${id}/download`, t), 404);
    }
    assertError(await ctx.get(`${policiesOf('no-such-org')}`, t), 404);
    const bad = await ctx.get(`${policiesOf(org.name)}?filter[kind]=rego`, t);
    assertError(bad, 400);
    assertError(await ctx.get(`${policiesOf(org.name)}?page[size]=abc`, t), 400);
    assertError(await ctx.request('POST', policiesOf(org.name), { token: t, rawBody: JSON.stringify(policyBody('x')), contentType: 'text/plain' }), 415);
    const p = await createPolicy(ctx, org);
    assertError(await upload(p.id, t, SOURCE, 'application/vnd.api+json'), 415);
    assertError(await upload(p.id, t, SOURCE, 'text/plain'), 415);
    const huge = await uploadBytes(p.id, t, Buffer.alloc(1024 * 1024 + 1, 0x61));
    assert.equal(huge.statusCode, 413);
    assertError(await ctx.get(`/api/v2/policies/${p.id}/download`, t), 404);
  });

  it('lets every member read, only owners and manage-policies teams write; other organizations and anonymous callers see nothing', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const p = await createPolicy(ctx, org);
    assertStatus(await upload(p.id, org.owner.token, SOURCE), 204);
    const member = await ctx.member(org);
    const manager = await ctx.member(org, { 'manage-policies': true });
    const url = `/api/v2/policies/${p.id}`;
    const patch = { data: { type: 'policies', attributes: { description: 'x' } } };

    for (const token of [null, 'not-a-token']) {
      assertError(await ctx.get(policiesOf(org.name), token), 401);
      assertError(await ctx.get(url, token), 401);
      assertError(await ctx.get(`${url}/download`, token), 401);
      assertError(await upload(p.id, token, SOURCE), 401);
    }

    const o = other.owner.token;
    assertError(await ctx.get(policiesOf(org.name), o), 404);
    assertError(await ctx.post(policiesOf(org.name), o, policyBody(unique('x'))), 404);
    assertError(await ctx.get(url, o), 404);
    assertError(await ctx.patch(url, o, patch), 404);
    assertError(await ctx.delete(url, o), 404);
    assertError(await upload(p.id, o, 'main = rule { false }'), 404);
    assertError(await ctx.get(`${url}/download`, o), 404);

    assertStatus(await ctx.get(policiesOf(org.name), member.token), 200);
    assertStatus(await ctx.get(url, member.token), 200);
    assertStatus(await ctx.get(`${url}/download`, member.token), 200);
    assertError(await ctx.post(policiesOf(org.name), member.token, policyBody(unique('x'))), 403);
    assertError(await ctx.patch(url, member.token, patch), 403);
    assertError(await ctx.delete(url, member.token), 403);
    assertError(await upload(p.id, member.token, 'main = rule { false }'), 403);

    assertStatus(await ctx.post(policiesOf(org.name), manager.token, policyBody(unique('x'))), 201);
    assertStatus(await ctx.patch(url, manager.token, patch), 200);
    assertStatus(await upload(p.id, manager.token, 'main = rule { 1 == 1 }'), 204);
    assert.equal((await ctx.get(`${url}/download`, org.owner.token)).raw, 'main = rule { 1 == 1 }');
    assertStatus(await ctx.delete(url, manager.token), 204);
    assert.ok(!ctx.logs.includes('main = rule'), 'policy sources are not logged');
  });

  it('policy sets hold policies: added and removed all or nothing, counted, listed and included', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const [a, b] = [await createPolicy(ctx, org), await createPolicy(ctx, org)];
    const foreign = await createPolicy(ctx, other);
    const set = await createPolicySet(ctx, org);
    const rel = `/api/v2/policy-sets/${set.id}/relationships/policies`;
    const refs = (...ids: string[]) => ({ data: ids.map((id) => ({ id, type: 'policies' })) });
    const t = org.owner.token;

    const bad = assertError(await ctx.post(rel, t, refs(a.id, foreign.id)), 422, '/data/1/id');
    assert.match(bad.detail!, /not found/);
    assertError(await ctx.post(rel, t, refs(a.id, 'pol-AAAAAAAAAAAAAAAA')), 422, '/data/1/id');
    assertError(await ctx.post(rel, t, { data: [{ id: a.id, type: 'workspaces' }] }), 422, '/data/0/type');
    assertError(await ctx.post(rel, t, { data: [] }), 422);
    assert.equal((await ctx.get(`/api/v2/policy-sets/${set.id}`, t)).body.data.attributes['policy-count'], 0);

    assertStatus(await ctx.post(rel, t, refs(a.id, b.id, a.id)), 204);
    const shown = await ctx.get(`/api/v2/policy-sets/${set.id}?include=policies`, t);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes['policy-count'], 2);
    assert.deepEqual(new Set(shown.body.data.relationships.policies.data.map((p: any) => p.id)), new Set([a.id, b.id]));
    assert.deepEqual(new Set(shown.body.included.map((p: any) => p.id)), new Set([a.id, b.id]));
    assert.equal(shown.body.included[0].type, 'policies');
    assert.equal(shown.body.included[0].attributes['policy-set-count'], 1);
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/policy-sets?include=policies`, t);
    assert.equal(listed.body.data[0].attributes['policy-count'], 2);
    assert.equal(listed.body.included.length, 2);
    assertError(await ctx.get(`/api/v2/policy-sets/${set.id}?include=secrets`, t), 400);

    assertStatus(await ctx.delete(rel, t, refs(a.id, b.id)), 204);
    // Removing what is not held is no error.
    assertStatus(await ctx.delete(rel, t, refs(a.id)), 204);
    assert.equal((await ctx.get(`/api/v2/policy-sets/${set.id}`, t)).body.data.attributes['policy-count'], 0);

    const created = await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, t, {
      data: { type: 'policy-sets', attributes: { name: unique('held') }, relationships: { policies: refs(a.id) } },
    });
    assertStatus(created, 201);
    assert.equal(created.body.data.attributes['policy-count'], 1);
    assert.deepEqual(created.body.data.relationships.policies.data, [{ id: a.id, type: 'policies' }]);
    assertError(
      await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, t, {
        data: { type: 'policy-sets', attributes: { name: unique('x') }, relationships: { policies: refs(foreign.id) } },
      }),
      422,
      '/data/relationships/policies/data/0/id',
    );
    const replaced = await ctx.patch(`/api/v2/policy-sets/${created.body.data.id}`, t, {
      data: { type: 'policy-sets', relationships: { policies: refs(b.id) } },
    });
    assertStatus(replaced, 200);
    assert.deepEqual(replaced.body.data.relationships.policies.data, [{ id: b.id, type: 'policies' }]);

    const member = await ctx.member(org);
    assertError(await ctx.post(rel, member.token, refs(a.id)), 403);
    assertError(await ctx.delete(rel, member.token, refs(a.id)), 403);
    assertError(await ctx.post(rel, other.owner.token, refs(a.id)), 404);
    assertError(await ctx.post(rel, null, refs(a.id)), 401);
  });
});

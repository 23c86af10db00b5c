import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createPool } from './helpers/agents.ts';
import { createWorkspace, type Org } from './helpers/projects.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../src/db/index.ts';

const POINTER = '/data/relationships/allowed-workspaces';

const refs = (ids: readonly string[]) => ids.map((id) => ({ type: 'workspaces', id }));

/** A pool document with `allowed-workspaces` set to `ids` (and `attributes`, if any). */
function allowedBody(ids: readonly string[] | undefined, attributes?: Record<string, unknown>) {
  return {
    data: {
      type: 'agent-pools',
      ...(attributes ? { attributes } : {}),
      ...(ids ? { relationships: { 'allowed-workspaces': { data: refs(ids) } } } : {}),
    },
  };
}

/** The allowed workspace ids a pool document shows, sorted; every item must be a workspace reference. */
function allowedOf(pool: any): string[] {
  const data = pool.relationships['allowed-workspaces'].data as Array<{ id: string; type: string }>;
  for (const item of data) assert.deepEqual(Object.keys(item).sort(), ['id', 'type']);
  assert.ok(data.every((d) => d.type === 'workspaces'));
  return data.map((d) => d.id).sort();
}

const sorted = (ids: readonly string[]) => [...ids].sort();

async function workspaces(ctx: TestContext, org: Org, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await createWorkspace(ctx, org)).id);
  return ids;
}

async function rowsOf(ctx: TestContext, column: 'agent_pool_id' | 'workspace_id', id: string) {
  return ctx.database.db.selectFrom('agent_pool_allowed_workspaces').selectAll().where(column, '=', id).execute();
}

suite('agent pool allowed-workspaces', (ctx) => {
  const poolsUrl = (org: string) => `/api/v2/organizations/${org}/agent-pools`;
  const poolUrl = (id: string) => `/api/v2/agent-pools/${id}`;
  const show = async (id: string, token: string) => {
    const res = await ctx.get(poolUrl(id), token);
    assertStatus(res, 200);
    return allowedOf(res.body.data);
  };

  it('creates a pool with allowed workspaces; show and list report them', async () => {
    const org = await ctx.organization();
    const [a, b] = await workspaces(ctx, org, 2);
    const res = await ctx.post(poolsUrl(org.name), org.owner.token, allowedBody([a!, b!], { name: unique('pool'), 'organization-scoped': false }));
    assertStatus(res, 201);
    assert.deepEqual(allowedOf(res.body.data), sorted([a!, b!]));
    assert.equal(res.body.data.attributes['organization-scoped'], false);
    assert.deepEqual(await show(res.body.data.id, org.owner.token), sorted([a!, b!]));

    const plain = await createPool(ctx, org);
    const list = await ctx.get(poolsUrl(org.name), org.owner.token);
    assertStatus(list, 200);
    const byId = new Map(list.body.data.map((p: any) => [p.id, allowedOf(p)]));
    assert.deepEqual(byId.get(res.body.data.id), sorted([a!, b!]));
    assert.deepEqual(byId.get(plain.id), []);
  });

  it('replaces the list on update, leaves it alone when omitted, and clears it with []', async () => {
    const org = await ctx.organization();
    const [a, b, c] = await workspaces(ctx, org, 3);
    const pool = await createPool(ctx, org);
    const url = poolUrl(pool.id);
    const t = org.owner.token;

    // Only the relationship, as go-tfe's UpdateAllowedWorkspaces sends it.
    let res = await ctx.patch(url, t, allowedBody([a!, b!]));
    assertStatus(res, 200);
    assert.deepEqual(allowedOf(res.body.data), sorted([a!, b!]));

    res = await ctx.patch(url, t, allowedBody([c!, b!, c!]));
    assertStatus(res, 200);
    assert.deepEqual(allowedOf(res.body.data), sorted([b!, c!]), 'replaced, duplicates listed once');
    assert.equal((await rowsOf(ctx, 'agent_pool_id', pool.id)).length, 2);

    const newName = unique('renamed');
    res = await ctx.patch(url, t, allowedBody(undefined, { name: newName }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.name, newName);
    assert.deepEqual(allowedOf(res.body.data), sorted([b!, c!]), 'omitted = unchanged');

    res = await ctx.patch(url, t, allowedBody([], { 'organization-scoped': true }));
    assertStatus(res, 200);
    assert.deepEqual(allowedOf(res.body.data), []);
    assert.equal(res.body.data.attributes['organization-scoped'], true);
    assert.deepEqual(await show(pool.id, t), []);
    assert.deepEqual(await rowsOf(ctx, 'agent_pool_id', pool.id), []);
  });

  it('keeps the workspaces that stay in place and lists the oldest grant first', async () => {
    const org = await ctx.organization();
    const [a, b] = await workspaces(ctx, org, 2);
    const pool = await createPool(ctx, org);
    assertStatus(await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody([b!])), 200);
    const before = await rowsOf(ctx, 'agent_pool_id', pool.id);
    await ctx.database.db
      .updateTable('agent_pool_allowed_workspaces')
      .set({ created_at: '2020-01-01T00:00:00.000Z' })
      .where('agent_pool_id', '=', pool.id)
      .execute();
    const res = await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody([a!, b!]));
    assertStatus(res, 200);
    assert.deepEqual(
      res.body.data.relationships['allowed-workspaces'].data.map((d: any) => d.id),
      [b, a],
    );
    const kept = (await rowsOf(ctx, 'agent_pool_id', pool.id)).find((r) => r.workspace_id === b);
    assert.equal(before.length, 1);
    assert.equal(kept?.created_at, '2020-01-01T00:00:00.000Z');
  });

  it('refuses unknown workspace ids with one 422 per item, pointing at each, and writes nothing', async () => {
    const org = await ctx.organization();
    const [a] = await workspaces(ctx, org, 1);
    const pool = await createPool(ctx, org);
    assertStatus(await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody([a!])), 200);

    const ids = [a!, 'ws-0000000000000000', a!, 'nonsense'];
    const res = await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody(ids, { name: unique('renamed') }));
    assertError(res, 422, `${POINTER}/data/1/id`);
    assertError(res, 422, `${POINTER}/data/3/id`);
    assert.equal(res.body.errors.length, 2);
    assert.match(res.body.errors[0].detail, /ws-0000000000000000/);
    const after = await ctx.get(poolUrl(pool.id), org.owner.token);
    assert.equal(after.body.data.attributes.name, pool.name, 'the rename was rolled back too');
    assert.deepEqual(allowedOf(after.body.data), [a]);

    const name = unique('pool');
    assertError(await ctx.post(poolsUrl(org.name), org.owner.token, allowedBody(['ws-0000000000000000'], { name })), 422, `${POINTER}/data/0/id`);
    const list = await ctx.get(`${poolsUrl(org.name)}?q=${name}`, org.owner.token);
    assert.equal(list.body.meta['status-counts'].matching, 0, 'no half-created pool');
  });

  it('refuses malformed relationship documents with 422 and a pointer', async () => {
    const org = await ctx.organization();
    const [a] = await workspaces(ctx, org, 1);
    const pool = await createPool(ctx, org);
    const url = poolUrl(pool.id);
    const t = org.owner.token;
    const relationship = (value: unknown) => ({ data: { type: 'agent-pools', relationships: { 'allowed-workspaces': value } } });

    assertError(await ctx.patch(url, t, relationship({ data: [{ type: 'projects', id: a }] })), 422, `${POINTER}/data/0/type`);
    assertError(await ctx.patch(url, t, relationship({ data: [{ type: 'workspaces' }] })), 422, `${POINTER}/data/0/id`);
    assertError(await ctx.patch(url, t, relationship({ data: [{ type: 'workspaces', id: 7 }] })), 422, `${POINTER}/data/0/id`);
    assertError(await ctx.patch(url, t, relationship({ data: [{ type: 'workspaces', id: '' }] })), 422, `${POINTER}/data/0/id`);
    assertError(await ctx.patch(url, t, relationship({ data: { type: 'workspaces', id: a } })), 422, `${POINTER}/data`);
    assertError(await ctx.patch(url, t, relationship({ data: null })), 422, `${POINTER}/data`);
    assertError(await ctx.patch(url, t, relationship({})), 422, `${POINTER}/data`);
    assertError(await ctx.patch(url, t, relationship('ws')), 422, POINTER);
    const tooMany = Array.from({ length: 1001 }, (_, i) => `ws-${String(i).padStart(16, '0')}`);
    assertError(await ctx.patch(url, t, allowedBody(tooMany)), 422, `${POINTER}/data`);
    assertError(
      await ctx.post(poolsUrl(org.name), t, {
        data: { type: 'agent-pools', attributes: { name: unique('p') }, relationships: { 'allowed-workspaces': { data: [{ id: a }] } } },
      }),
      422,
      `${POINTER}/data/0/type`,
    );
    assert.deepEqual(await show(pool.id, t), []);
    assert.deepEqual(await rowsOf(ctx, 'workspace_id', a!), []);
  });

  it("refuses another organization's workspaces as if they did not exist", async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const [mine] = await workspaces(ctx, org, 1);
    const [theirs] = await workspaces(ctx, other, 1);
    const pool = await createPool(ctx, org);

    const res = await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody([mine!, theirs!]));
    const e = assertError(res, 422, `${POINTER}/data/1/id`);
    assert.equal(res.body.errors.length, 1);
    assert.equal(e.detail, `Workspace ${theirs} not found`);
    const absent = assertError(await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody(['ws-0000000000000000'])), 422);
    assert.equal(absent.title, e.title);
    assert.equal(absent.detail, 'Workspace ws-0000000000000000 not found');

    assertError(await ctx.post(poolsUrl(org.name), org.owner.token, allowedBody([theirs!], { name: unique('p') })), 422, `${POINTER}/data/0/id`);
    // Nor the other way round.
    assertError(await ctx.post(poolsUrl(other.name), other.owner.token, allowedBody([mine!], { name: unique('p') })), 422, `${POINTER}/data/0/id`);
    assert.deepEqual(await show(pool.id, org.owner.token), []);
    assert.deepEqual(await rowsOf(ctx, 'workspace_id', theirs!), []);
  });

  it('drops a deleted workspace from every pool, and a deleted pool or organization takes its list along', async () => {
    const org = await ctx.organization();
    const [a, b] = await workspaces(ctx, org, 2);
    const p1 = await createPool(ctx, org);
    const p2 = await createPool(ctx, org);
    for (const p of [p1, p2]) assertStatus(await ctx.patch(poolUrl(p.id), org.owner.token, allowedBody([a!, b!])), 200);

    assertStatus(await ctx.delete(`/api/v2/workspaces/${a}`, org.owner.token), 204);
    assert.deepEqual(await show(p1.id, org.owner.token), [b]);
    assert.deepEqual(await show(p2.id, org.owner.token), [b]);
    assert.deepEqual(await rowsOf(ctx, 'workspace_id', a!), []);

    assertStatus(await ctx.delete(poolUrl(p1.id), org.owner.token), 204);
    assert.deepEqual(await rowsOf(ctx, 'agent_pool_id', p1.id), []);
    assertStatus(await ctx.get(`/api/v2/workspaces/${b}`, org.owner.token), 200);
    assert.deepEqual(await show(p2.id, org.owner.token), [b]);

    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    assert.deepEqual(await rowsOf(ctx, 'agent_pool_id', p2.id), []);
  });

  it('holds the invariants in the schema too: no row naming a missing pool or workspace, no pair twice', async () => {
    const org = await ctx.organization();
    const [a] = await workspaces(ctx, org, 1);
    const pool = await createPool(ctx, org);
    const insert = (agent_pool_id: string, workspace_id: string) =>
      ctx.database.db.insertInto('agent_pool_allowed_workspaces').values({ agent_pool_id, workspace_id, created_at: new Date().toISOString() }).execute();
    await assert.rejects(insert(pool.id, 'ws-0000000000000000'), (e) => isForeignKeyViolation(e));
    await assert.rejects(insert('apool-0000000000000000', a!), (e) => isForeignKeyViolation(e));
    await insert(pool.id, a!);
    await assert.rejects(insert(pool.id, a!), (e) => isUniqueViolation(e));
    assert.deepEqual(await show(pool.id, org.owner.token), [a]);
  });

  it('serialises concurrent replacements: the list ends as one request sent it, never a mix', async () => {
    const org = await ctx.organization();
    const ids = await workspaces(ctx, org, 8);
    const pool = await createPool(ctx, org);
    const sets = [ids.slice(0, 3), ids.slice(3, 6), ids.slice(5, 8), [ids[0]!, ids[7]!]];
    const results = await Promise.all(sets.map((s) => ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody(s))));
    for (const r of results) assertStatus(r, 200);
    const final = await show(pool.id, org.owner.token);
    assert.ok(
      sets.some((s) => JSON.stringify(sorted(s)) === JSON.stringify(final)),
      `a mix: ${final}`,
    );
  });

  it('lists with meta.status-counts (total, and matching after q) and one query for all lists on a page', async () => {
    const org = await ctx.organization();
    const empty = await ctx.get(poolsUrl(org.name), org.owner.token);
    assert.deepEqual(empty.body.meta['status-counts'], { total: 0, matching: 0 });

    const ws = await workspaces(ctx, org, 3);
    // Fixed names: the organization is new, and random suffixes could match `q` by chance.
    for (const name of ['alpha-x', 'bravo', 'charlie-X', 'delta']) {
      assertStatus(await ctx.post(poolsUrl(org.name), org.owner.token, allowedBody(ws, { name })), 201);
    }
    const all = await ctx.get(poolsUrl(org.name), org.owner.token);
    assert.deepEqual(all.body.meta['status-counts'], { total: 4, matching: 4 });
    assert.equal(all.body.meta.pagination['total-count'], 4);

    const some = await ctx.get(`${poolsUrl(org.name)}?q=-x&page%5Bsize%5D=1`, org.owner.token);
    assertStatus(some, 200);
    assert.deepEqual(some.body.meta['status-counts'], { total: 4, matching: 2 });
    assert.equal(some.body.meta.pagination['total-count'], 2);
    assert.equal(some.body.meta.pagination['total-pages'], 2);
    assert.equal(some.body.data.length, 1);
    const none = await ctx.get(`${poolsUrl(org.name)}?q=zzz`, org.owner.token);
    assert.deepEqual(none.body.meta['status-counts'], { total: 4, matching: 0 });
    assertError(await ctx.get(`${poolsUrl(org.name)}?page%5Bsize%5D=-1`, org.owner.token), 400);

    const queries = async (size: number) => {
      const { result, queries } = await ctx.countQueries(() => ctx.get(`${poolsUrl(org.name)}?page%5Bsize%5D=${size}`, org.owner.token));
      assert.equal(result.body.data.length, size);
      for (const p of result.body.data) assert.deepEqual(allowedOf(p), sorted(ws));
      return queries;
    };
    await queries(1); // warms the caller's token lookup
    assert.equal(await queries(4), await queries(1));
  });

  it('filters by filter[allowed_workspaces][name]: organization-scoped pools and those allowing that workspace', async () => {
    const org = await ctx.organization();
    const [ws1, ws2] = await workspaces(ctx, org, 2);
    const name = async (id: string) => (await ctx.get(`/api/v2/workspaces/${id}`, org.owner.token)).body.data.attributes.name as string;
    const create = async (attributes: Record<string, unknown>, ids?: string[]) =>
      (await ctx.post(poolsUrl(org.name), org.owner.token, allowedBody(ids, { name: unique('pool'), ...attributes }))).body.data.id as string;
    const scoped = await create({});
    const a = await create({ 'organization-scoped': false }, [ws1!]);
    const b = await create({ 'organization-scoped': false }, [ws2!]);
    await create({ 'organization-scoped': false });
    const filtered = async (workspaceName: string, token = org.owner.token, extra = '') => {
      const res = await ctx.get(`${poolsUrl(org.name)}?filter%5Ballowed_workspaces%5D%5Bname%5D=${encodeURIComponent(workspaceName)}${extra}`, token);
      assertStatus(res, 200);
      return { ids: sorted(res.body.data.map((p: any) => p.id)), total: res.body.meta.pagination['total-count'], counts: res.body.meta['status-counts'] };
    };
    const one = await filtered(await name(ws1!));
    assert.deepEqual(one.ids, sorted([scoped, a]));
    assert.equal(one.total, 2);
    assert.deepEqual(one.counts, { total: 4, matching: 2 });
    // Names match as workspace names do, whatever the case; with q, both apply.
    assert.deepEqual((await filtered((await name(ws2!)).toUpperCase())).ids, sorted([scoped, b]));
    assert.deepEqual((await filtered(await name(ws2!), org.owner.token, `&q=${encodeURIComponent('zzz')}`)).ids, []);
    // No such workspace: the pools every workspace may use.
    assert.deepEqual((await filtered('no-such-workspace')).ids, [scoped]);
    // A workspace the caller may not read is answered as one that does not exist.
    const member = await ctx.member(org);
    assert.deepEqual((await filtered(await name(ws1!), member.token)).ids, [scoped]);
    const reader = await ctx.member(org, { 'read-workspaces': true });
    assert.deepEqual((await filtered(await name(ws1!), reader.token)).ids, sorted([scoped, a]));
    // Empty: no filter.
    assert.equal((await filtered('')).total, 4);
    const stranger = await ctx.organization();
    assertError(await ctx.get(`${poolsUrl(org.name)}?filter%5Ballowed_workspaces%5D%5Bname%5D=x`, stranger.owner.token), 404);
  });

  it('security: 401 without a token, 404 across organizations, 403 for members who may not manage pools, 415 for a wrong content type', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const [a, b] = await workspaces(ctx, org, 2);
    const pool = await createPool(ctx, org);
    assertStatus(await ctx.patch(poolUrl(pool.id), org.owner.token, allowedBody([a!])), 200);
    const change = allowedBody([b!]);

    assertError(await ctx.request('PATCH', poolUrl(pool.id), { token: null, body: change }), 401);
    assertError(await ctx.request('PATCH', poolUrl(pool.id), { token: 'nope', body: change }), 401);
    assertError(await ctx.request('POST', poolsUrl(org.name), { token: null, body: allowedBody([b!], { name: unique('p') }) }), 401);
    assertError(await ctx.patch(poolUrl(pool.id), other.owner.token, change), 404);
    assertError(await ctx.get(poolUrl(pool.id), other.owner.token), 404);
    assertError(await ctx.post(poolsUrl(org.name), other.owner.token, allowedBody([b!], { name: unique('p') })), 404);
    assertError(await ctx.request('PATCH', poolUrl(pool.id), { token: org.owner.token, body: change, contentType: 'application/json' }), 415);

    // Members who read pools see the list but may not change it, even when they manage workspaces.
    const reader = await ctx.member(org, { 'manage-workspaces': true });
    assert.deepEqual(await show(pool.id, reader.token), [a]);
    assertError(await ctx.patch(poolUrl(pool.id), reader.token, change), 403);
    assertError(await ctx.post(poolsUrl(org.name), reader.token, allowedBody([b!], { name: unique('p') })), 403);
    assert.deepEqual(await show(pool.id, org.owner.token), [a], 'no refused request changed the list');

    // Managing pools is what it takes; no workspace permission is needed to allow a workspace.
    const manager = await ctx.member(org, { 'manage-agent-pools': true });
    const res = await ctx.patch(poolUrl(pool.id), manager.token, change);
    assertStatus(res, 200);
    assert.deepEqual(allowedOf(res.body.data), [b]);
  });
});

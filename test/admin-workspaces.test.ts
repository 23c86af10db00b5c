import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createWorkspace, type Org } from './helpers/projects.ts';

const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]);

async function queueRun(ctx: TestContext, org: Org, workspaceId: string): Promise<string> {
  const cv = await ctx.post(`/api/v2/workspaces/${workspaceId}/configuration-versions`, org.owner.token, { data: { type: 'configuration-versions' } });
  assertStatus(cv, 201);
  const put = await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: TARBALL });
  assert.equal(put.statusCode, 200);
  const run = await ctx.post('/api/v2/runs', org.owner.token, {
    data: {
      type: 'runs',
      relationships: {
        workspace: { data: { type: 'workspaces', id: workspaceId } },
        'configuration-version': { data: { type: 'configuration-versions', id: cv.body.data.id } },
      },
    },
  });
  assertStatus(run, 201);
  return run.body.data.id;
}

suite('admin workspaces', (ctx) => {
  it("site admins list every organization's workspaces: search, current-run filter and sort, includes, paging", async () => {
    const a: Org = await ctx.organization();
    const b: Org = await ctx.organization();
    const tag = `adm${Date.now().toString(36)}`;
    const w1 = await createWorkspace(ctx, a, undefined, { name: `${tag}-b` });
    const w2 = await createWorkspace(ctx, b, undefined, { name: `${tag}-a` });
    const w3 = await createWorkspace(ctx, b, undefined, { name: `${tag}-c` });
    const admin = await ctx.user({ siteAdmin: true });

    const all = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&include=organization`, admin.token);
    assertStatus(all, 200);
    // Creation order by default, across organizations.
    assert.deepEqual(
      all.body.data.map((w: any) => w.id),
      [w1.id, w2.id, w3.id],
    );
    assert.equal(all.body.meta.pagination['total-count'], 3);
    assert.deepEqual(all.body.included.map((o: any) => o.id).sort(), [a.name, b.name].sort());
    const byName = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&sort=-name`, admin.token);
    assert.deepEqual(
      byName.body.data.map((w: any) => w.id),
      [w3.id, w1.id, w2.id],
    );
    const byId = await ctx.get(`/api/v2/admin/workspaces?q=${w2.id}`, admin.token);
    assert.deepEqual(
      byId.body.data.map((w: any) => w.id),
      [w2.id],
    );
    const paged = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&page[number]=2&page[size]=2`, admin.token);
    assert.deepEqual(
      paged.body.data.map((w: any) => w.id),
      [w3.id],
    );

    const r3 = await queueRun(ctx, b, w3.id);
    const r1 = await queueRun(ctx, a, w1.id);
    const sorted = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&sort=current-run.created-at&include=current_run`, admin.token);
    assertStatus(sorted, 200);
    // Workspaces without a current run come last.
    assert.deepEqual(
      sorted.body.data.map((w: any) => w.id),
      [w3.id, w1.id, w2.id],
    );
    assert.deepEqual(sorted.body.included.map((r: any) => r.id).sort(), [r1, r3].sort());
    const desc = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&sort=-current-run.created-at`, admin.token);
    assert.deepEqual(
      desc.body.data.map((w: any) => w.id),
      [w1.id, w3.id, w2.id],
    );
    const queued = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&filter[current_run][status]=plan_queued`, admin.token);
    assert.deepEqual(
      queued.body.data.map((w: any) => w.id),
      [w1.id, w3.id],
    );
    const none = await ctx.get(`/api/v2/admin/workspaces?q=${tag}&filter[current_run][status]=applied,nonsense`, admin.token);
    assert.deepEqual(none.body.data, []);

    assertError(await ctx.get('/api/v2/admin/workspaces?sort=created-at', admin.token), 400);
    assertError(await ctx.get('/api/v2/admin/workspaces?include=owners', admin.token), 400);
    assertError(await ctx.get('/api/v2/admin/workspaces', a.owner.token), 404);
    assertError(await ctx.get('/api/v2/admin/workspaces', null), 401);
  });

  it('site admins read and delete any workspace; nobody else can', async () => {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const admin = await ctx.user({ siteAdmin: true });
    const read = await ctx.get(`/api/v2/admin/workspaces/${ws.id}`, admin.token);
    assertStatus(read, 200);
    assert.equal(read.body.data.attributes.name, ws.attributes.name);
    assert.equal(read.body.data.attributes.locked, false);
    assertError(await ctx.get('/api/v2/admin/workspaces/ws-doesnotexist0000', admin.token), 404);
    assertError(await ctx.get(`/api/v2/admin/workspaces/${ws.id}`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/admin/workspaces/${ws.id}`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/admin/workspaces/${ws.id}`, null), 401);
    assertStatus(await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token), 200);
    await queueRun(ctx, org, ws.id);
    assertStatus(await ctx.delete(`/api/v2/admin/workspaces/${ws.id}`, admin.token), 204);
    assertError(await ctx.get(`/api/v2/admin/workspaces/${ws.id}`, admin.token), 404);
    assertError(await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/admin/workspaces/${ws.id}`, admin.token), 404);
  });
});

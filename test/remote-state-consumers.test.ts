// The workspaces allowed to read a workspace's state: /workspaces/:id/relationships/remote-state-consumers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite } from './helpers/harness.ts';
import { createProject, createWorkspace, memberWithAccess } from './helpers/projects.ts';

const refs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'workspaces', id })) });
const path = (id: string) => `/api/v2/workspaces/${id}/relationships/remote-state-consumers`;

suite('remote state consumers', (ctx) => {
  it('adds, lists, replaces and removes consumers (204s), and forgets deleted workspaces', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const [w, a, b, c] = await Promise.all([1, 2, 3, 4].map(() => createWorkspace(ctx, org)));
    const ids = async (query = '') => (await ctx.get(`${path(w!.id)}${query}`, t)).body.data.map((x: any) => x.id).sort();
    assert.deepEqual(await ids(), []);
    assertStatus(await ctx.post(path(w!.id), t, refs(a!.id, b!.id, a!.id)), 204);
    assert.deepEqual(await ids(), [a!.id, b!.id].sort());
    // Adding one already there changes nothing.
    assertStatus(await ctx.post(path(w!.id), t, refs(b!.id)), 204);
    const page = await ctx.get(`${path(w!.id)}?page[size]=1`, t);
    assert.equal(page.body.data.length, 1);
    assert.equal(page.body.meta.pagination['total-count'], 2);
    // Listed consumers are whole workspaces, as a workspace is shown anywhere else.
    const listed = (await ctx.get(path(w!.id), t)).body.data.find((x: any) => x.id === a!.id);
    assert.deepEqual(listed, (await ctx.get(`/api/v2/workspaces/${a!.id}`, t)).body.data);

    assertStatus(await ctx.delete(path(w!.id), t, refs(a!.id)), 204);
    assert.deepEqual(await ids(), [b!.id]);
    assertStatus(await ctx.patch(path(w!.id), t, refs(c!.id, a!.id)), 204);
    assert.deepEqual(await ids(), [a!.id, c!.id].sort());
    // Removing one that is no consumer is no error.
    assertStatus(await ctx.delete(path(w!.id), t, refs(b!.id)), 204);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${c!.id}`, t), 204);
    assert.deepEqual(await ids(), [a!.id]);
    // The relationship is one way: `a` has no consumers of its own.
    assert.deepEqual((await ctx.get(path(a!.id), t)).body.data, []);
  });

  it('refuses consumers that are no workspace of the organization, itself, or no list at all (422 at each)', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const ok = await createWorkspace(ctx, org);
    const foreign = await createWorkspace(ctx, await ctx.organization());
    const res = await ctx.post(path(w.id), t, refs(ok.id, foreign.id, 'ws-0000000000000000'));
    assertError(res, 422, '/data/1/id');
    assertError(res, 422, '/data/2/id');
    assert.equal(res.body.errors.length, 2);
    assertError(await ctx.patch(path(w.id), t, refs(w.id)), 422, '/data/0/id');
    assertError(await ctx.post(path(w.id), t, { data: [] }), 422, '/data');
    assertError(await ctx.post(path(w.id), t, { data: [{ type: 'projects', id: ok.id }] }), 422, '/data/0/type');
    assertError(await ctx.post(path(w.id), t, { data: { type: 'workspaces', id: ok.id } }), 422, '/data');
    // Nothing was written by the refused requests.
    assert.deepEqual((await ctx.get(path(w.id), t)).body.data, []);
  });

  it('needs workspace admin to change consumers, sees only visible ones, and hides the workspace from others', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const [p, q] = [await createProject(ctx, org), await createProject(ctx, org)];
    const w = await createWorkspace(ctx, org, p.id);
    const sameProject = await createWorkspace(ctx, org, p.id);
    const elsewhere = await createWorkspace(ctx, org, q.id);
    assertStatus(await ctx.post(path(w.id), t, refs(sameProject.id, elsewhere.id)), 204);

    const reader = await memberWithAccess(ctx, org, [[p.id, 'read']]);
    // A reader lists the consumers it may see, and changes none.
    const seen = await ctx.get(path(w.id), reader.token);
    assertStatus(seen, 200);
    assert.deepEqual(
      seen.body.data.map((x: any) => x.id),
      [sameProject.id],
    );
    assertError(await ctx.post(path(w.id), reader.token, refs(sameProject.id)), 403);
    assertError(await ctx.delete(path(w.id), reader.token, refs(sameProject.id)), 403);

    // A project admin names only workspaces it may see: the other project's is "not found".
    const admin = await memberWithAccess(ctx, org, [[p.id, 'admin']]);
    assertError(await ctx.patch(path(w.id), admin.token, refs(elsewhere.id)), 422, '/data/0/id');
    assertStatus(await ctx.patch(path(w.id), admin.token, refs(sameProject.id)), 204);
    assert.deepEqual(
      (await ctx.get(path(w.id), t)).body.data.map((x: any) => x.id),
      [sameProject.id],
    );

    const member = await ctx.member(org);
    assertError(await ctx.get(path(w.id), member.token), 404);
    assertError(await ctx.post(path(w.id), member.token, refs(sameProject.id)), 404);
    const outsider = await ctx.organization();
    assertError(await ctx.get(path(w.id), outsider.owner.token), 404);
    assertError(await ctx.patch(path(w.id), outsider.owner.token, refs(sameProject.id)), 404);
  });

  it('answers 404 for unknown workspaces, 401 without a token, 415 for another content type', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const other = await createWorkspace(ctx, org);
    assertError(await ctx.get(path('ws-0000000000000000'), org.owner.token), 404);
    assertError(await ctx.post(path('ws-0000000000000000'), org.owner.token, refs(other.id)), 404);
    assertError(await ctx.get(path('nonsense'), org.owner.token), 404);
    assertError(await ctx.get(path(w.id), null), 401);
    assertError(await ctx.post(path(w.id), null, refs(other.id)), 401);
    const wrongType = await ctx.request('POST', path(w.id), { token: org.owner.token, body: refs(other.id), contentType: 'application/json' });
    assertError(wrongType, 415);
    assert.deepEqual((await ctx.get(path(w.id), org.owner.token)).body.data, []);
  });
});

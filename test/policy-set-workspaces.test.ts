import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createPolicySet, newProject, newWorkspace, policySetBody, projectRefs, workspaceRefs, type Org } from './helpers/policy-sets.ts';
import { untilCaching } from './helpers/caches.ts';

const idsOf = (relationship: { data: Array<{ id: string; type: string }> }) => {
  assert.ok(relationship.data.every((r) => r.type === 'workspaces'));
  return new Set(relationship.data.map((r) => r.id));
};

suite('policy set workspaces', (ctx) => {
  const setsOf = (org: string) => `/api/v2/organizations/${org}/policy-sets`;
  const setUrl = (id: string) => `/api/v2/policy-sets/${id}`;
  const relOf = (id: string) => `/api/v2/policy-sets/${id}/relationships/workspaces`;
  const show = async (org: Org, id: string) => {
    const res = await ctx.get(setUrl(id), org.owner.token);
    assertStatus(res, 200);
    return res.body.data;
  };
  const attachedRows = async (setId: string) =>
    (await ctx.database.db.selectFrom('policy_set_workspaces').select('workspace_id').where('policy_set_id', '=', setId).execute()).map((r) => r.workspace_id);

  it('creates a set attached to workspaces of several projects; show and list agree', async () => {
    const org = await ctx.organization();
    const project = await newProject(ctx, org);
    const a = await newWorkspace(ctx, org);
    const b = await newWorkspace(ctx, org, project);
    const res = await ctx.post(
      setsOf(org.name),
      org.owner.token,
      policySetBody(
        unique('ws'),
        {},
        {
          workspaces: workspaceRefs(a, b, a),
          projects: projectRefs(project),
        },
      ),
    );
    assertStatus(res, 201);
    const set = res.body.data;
    assert.equal(set.attributes['workspace-count'], 2);
    assert.equal(set.attributes['project-count'], 1);
    assert.deepEqual(idsOf(set.relationships.workspaces), new Set([a, b]));
    assert.deepEqual(new Set(await attachedRows(set.id)), new Set([a, b]));
    assert.deepEqual(await show(org, set.id), set);

    const listed = await ctx.get(setsOf(org.name), org.owner.token);
    assert.deepEqual(
      listed.body.data.find((s: any) => s.id === set.id),
      set,
    );
  });

  it('counts every set of a list page from a fixed number of queries', async () => {
    const org = await ctx.organization();
    const workspaces = [await newWorkspace(ctx, org), await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const expected = new Map<string, number>();
    for (let i = 0; i < 8; i++) {
      const attached = workspaces.slice(0, i % 4);
      const res = await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('count'), {}, { workspaces: workspaceRefs(...attached) }));
      assertStatus(res, 201);
      expected.set(res.body.data.id, attached.length);
    }
    const page = async (size: number) => {
      const { result, queries } = await ctx.countQueries(() => ctx.get(`${setsOf(org.name)}?page[size]=${size}`, org.owner.token));
      assertStatus(result, 200);
      assert.equal(result.body.data.length, size);
      for (const s of result.body.data) {
        assert.equal(s.attributes['workspace-count'], expected.get(s.id));
        assert.equal(s.relationships.workspaces.data.length, expected.get(s.id));
      }
      return queries;
    };
    // The sets' writes are notified (policy sets are watched by the change feed): count once they are in.
    await untilCaching(ctx.database);
    await page(1); // warms the caller's token lookup
    const small = await page(2);
    const large = await page(8);
    assert.equal(large, small, `a page of 8 ran ${large} queries, a page of 2 ran ${small}`);
  });

  it('replaces the workspaces on update; omitted leaves them, an empty list clears them', async () => {
    const org = await ctx.organization();
    const [a, b, c] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = await createPolicySet(ctx, org);
    const url = setUrl(set.id);
    const patch = (body: Record<string, unknown>) => ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', ...body } });

    const first = await patch({ relationships: { workspaces: workspaceRefs(a, b) } });
    assertStatus(first, 200);
    assert.equal(first.body.data.attributes['workspace-count'], 2);
    const second = await patch({ relationships: { workspaces: workspaceRefs(b, c) } });
    assertStatus(second, 200);
    assert.deepEqual(idsOf(second.body.data.relationships.workspaces), new Set([b, c]));
    assert.deepEqual(await show(org, set.id), second.body.data);

    const untouched = await patch({ attributes: { description: 'still attached' } });
    assertStatus(untouched, 200);
    assert.deepEqual(idsOf(untouched.body.data.relationships.workspaces), new Set([b, c]));
    assert.equal(untouched.body.data.attributes.description, 'still attached');

    const cleared = await patch({ relationships: { workspaces: { data: [] } } });
    assertStatus(cleared, 200);
    assert.equal(cleared.body.data.attributes['workspace-count'], 0);
    assert.deepEqual(await attachedRows(set.id), []);
  });

  it('attaches and detaches through the relationship endpoints (204, no body)', async () => {
    const org = await ctx.organization();
    const [a, b] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = await createPolicySet(ctx, org);
    const rel = relOf(set.id);
    const count = async () => (await show(org, set.id)).attributes['workspace-count'];

    const added = await ctx.post(rel, org.owner.token, workspaceRefs(a, b));
    assertStatus(added, 204);
    assert.equal(added.raw, '');
    assert.equal(await count(), 2);
    // Attaching again is harmless; so are duplicates within one request.
    assertStatus(await ctx.post(rel, org.owner.token, workspaceRefs(b, b)), 204);
    assert.equal(await count(), 2);
    const after = await show(org, set.id);
    assert.ok(after.attributes['updated-at'] >= set.attributes['updated-at']);

    const removed = await ctx.delete(rel, org.owner.token, workspaceRefs(a));
    assertStatus(removed, 204);
    assert.equal(removed.raw, '');
    assert.deepEqual(idsOf((await show(org, set.id)).relationships.workspaces), new Set([b]));
    // Detaching a workspace of the organization that is not attached is harmless.
    assertStatus(await ctx.delete(rel, org.owner.token, workspaceRefs(a)), 204);
    assert.equal(await count(), 1);
  });

  it('lets concurrent attaches of overlapping workspaces all succeed without duplicates', async () => {
    const org = await ctx.organization();
    const ws: string[] = [];
    for (let i = 0; i < 6; i++) ws.push(await newWorkspace(ctx, org));
    const set = await createPolicySet(ctx, org);
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => ctx.post(relOf(set.id), org.owner.token, workspaceRefs(ws[i]!, ws[i + 1]!))));
    for (const r of results) assertStatus(r, 204);
    assert.deepEqual(new Set(await attachedRows(set.id)), new Set(ws));
    assert.equal((await attachedRows(set.id)).length, 6);
  });

  it('answers unknown or foreign workspaces with 422 at each offending item, and writes nothing', async () => {
    const org = await ctx.organization();
    const elsewhere = await ctx.organization();
    const mine = await newWorkspace(ctx, org);
    const foreign = await newWorkspace(ctx, elsewhere);
    const t = org.owner.token;

    const created = await ctx.post(setsOf(org.name), t, policySetBody(unique('bad'), {}, { workspaces: workspaceRefs(mine, 'ws-doesnotexist0000', foreign) }));
    assertError(created, 422);
    assert.deepEqual(
      created.body.errors.map((e: any) => e.source.pointer),
      ['/data/relationships/workspaces/data/1/id', '/data/relationships/workspaces/data/2/id'],
    );
    assert.match(created.body.errors[1].detail, new RegExp(`Workspace ${foreign} not found`));
    // A bad project and a bad workspace in one body: both reported at once.
    const both = await ctx.post(
      setsOf(org.name),
      t,
      policySetBody(
        unique('bad'),
        {},
        {
          projects: projectRefs(elsewhere.defaultProjectId),
          workspaces: workspaceRefs(foreign),
        },
      ),
    );
    assertError(both, 422);
    assert.deepEqual(
      both.body.errors.map((e: any) => e.source.pointer),
      ['/data/relationships/projects/data/0/id', '/data/relationships/workspaces/data/0/id'],
    );
    // A project id is not a workspace id.
    assertError(
      await ctx.post(setsOf(org.name), t, policySetBody(unique('bad'), {}, { workspaces: workspaceRefs(org.defaultProjectId) })),
      422,
      '/data/relationships/workspaces/data/0/id',
    );
    assertError(
      await ctx.post(setsOf(org.name), t, policySetBody(unique('bad'), {}, { workspaces: { data: [{ id: mine, type: 'projects' }] } })),
      422,
      '/data/relationships/workspaces/data/0/type',
    );
    assertError(
      await ctx.post(setsOf(org.name), t, policySetBody(unique('bad'), {}, { workspaces: { data: 'all' } })),
      422,
      '/data/relationships/workspaces/data',
    );
    assert.equal((await ctx.get(setsOf(org.name), t)).body.meta.pagination['total-count'], 0);

    const set = await createPolicySet(ctx, org);
    const patched = await ctx.patch(setUrl(set.id), t, {
      data: { type: 'policy-sets', attributes: { description: 'no' }, relationships: { workspaces: workspaceRefs(mine, foreign) } },
    });
    assertError(patched, 422, '/data/relationships/workspaces/data/1/id');
    assert.equal((await show(org, set.id)).attributes.description, null);

    const rel = relOf(set.id);
    const bad = await ctx.post(rel, t, workspaceRefs(mine, foreign, 'ws-nope'));
    assertError(bad, 422);
    assert.deepEqual(
      bad.body.errors.map((e: any) => e.source.pointer),
      ['/data/1/id', '/data/2/id'],
    );
    assertError(await ctx.delete(rel, t, workspaceRefs(foreign)), 422, '/data/0/id');
    assertError(await ctx.post(rel, t, { data: [] }), 422, '/data');
    assertError(await ctx.post(rel, t, { data: Array.from({ length: 101 }, () => ({ id: mine, type: 'workspaces' })) }), 422, '/data');
    assertError(await ctx.post(rel, t, { data: [{ id: mine, type: 'projects' }] }), 422, '/data/0/type');
    assertError(await ctx.post(rel, t, { data: [{ type: 'workspaces' }] }), 422, '/data/0/id');
    assertError(await ctx.request('POST', rel, { token: t, body: workspaceRefs(mine), contentType: 'application/json' }), 415);
    assertError(await ctx.request('DELETE', rel, { token: t, body: workspaceRefs(mine), contentType: 'text/plain' }), 415);
    assertError(await ctx.post(relOf('polset-0000000000000000'), t, workspaceRefs(mine)), 404);
    assertError(await ctx.delete(relOf('polset-0000000000000000'), t, workspaceRefs(mine)), 404);
    assert.deepEqual(await attachedRows(set.id), []);
  });

  it('refuses workspaces on a global set, wherever they come from', async () => {
    const org = await ctx.organization();
    const w = await newWorkspace(ctx, org);
    const t = org.owner.token;
    const refused = await ctx.post(setsOf(org.name), t, policySetBody(unique('g'), { global: true }, { workspaces: workspaceRefs(w) }));
    assertError(refused, 422, '/data/relationships/workspaces');
    assert.match(refused.body.errors[0].detail, /global/);
    const bothRefused = await ctx.post(
      setsOf(org.name),
      t,
      policySetBody(
        unique('g'),
        { global: true },
        {
          workspaces: workspaceRefs(w),
          projects: projectRefs(org.defaultProjectId),
        },
      ),
    );
    assertError(bothRefused, 422);
    assert.deepEqual(
      bothRefused.body.errors.map((e: any) => e.source.pointer),
      ['/data/relationships/projects', '/data/relationships/workspaces'],
    );

    const global = await createPolicySet(ctx, org, { global: true });
    assertError(await ctx.post(relOf(global.id), t, workspaceRefs(w)), 422, '/data');
    assertError(
      await ctx.patch(setUrl(global.id), t, { data: { type: 'policy-sets', relationships: { workspaces: workspaceRefs(w) } } }),
      422,
      '/data/relationships/workspaces',
    );
    assert.deepEqual(await attachedRows(global.id), []);
    // Detaching from a global set is allowed (it has nothing attached).
    assertStatus(await ctx.delete(relOf(global.id), t, workspaceRefs(w)), 204);

    // A set with workspaces cannot turn global, unless the same request detaches them.
    const set = (await ctx.post(setsOf(org.name), t, policySetBody(unique('s'), {}, { workspaces: workspaceRefs(w) }))).body.data;
    assertError(await ctx.patch(setUrl(set.id), t, { data: { type: 'policy-sets', attributes: { global: true } } }), 422, '/data/attributes/global');
    assert.equal((await show(org, set.id)).attributes.global, false);
    const turned = await ctx.patch(setUrl(set.id), t, {
      data: { type: 'policy-sets', attributes: { global: true }, relationships: { workspaces: { data: [] } } },
    });
    assertStatus(turned, 200);
    assert.equal(turned.body.data.attributes.global, true);
    assert.equal(turned.body.data.attributes['workspace-count'], 0);
  });

  it('detaches a deleted workspace, keeps a moved one, and deletes attachments with the set', async () => {
    const org = await ctx.organization();
    const project = await newProject(ctx, org);
    const [gone, moved, kept] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = (await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('c'), {}, { workspaces: workspaceRefs(gone, moved, kept) }))).body.data;
    const other = (await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('c'), {}, { workspaces: workspaceRefs(kept) }))).body.data;

    assertStatus(await ctx.delete(`/api/v2/workspaces/${gone}`, org.owner.token), 204);
    assertStatus(await ctx.post(`/api/v2/projects/${project}/relationships/workspaces`, org.owner.token, workspaceRefs(moved)), 204);
    const shown = await show(org, set.id);
    assert.equal(shown.attributes['workspace-count'], 2);
    assert.deepEqual(idsOf(shown.relationships.workspaces), new Set([moved, kept]));

    assertStatus(await ctx.delete(setUrl(set.id), org.owner.token), 204);
    assert.deepEqual(await attachedRows(set.id), []);
    // The workspaces and the other set's attachment are untouched.
    assertStatus(await ctx.get(`/api/v2/workspaces/${kept}`, org.owner.token), 200);
    assert.deepEqual(await attachedRows(other.id), [kept]);

    // The schema enforces it too: no attachment to a workspace that does not exist.
    await assert.rejects(
      ctx.database.db
        .insertInto('policy_set_workspaces')
        .values({ policy_set_id: other.id, workspace_id: 'ws-doesnotexist0000', created_at: '2026-01-01T00:00:00.000Z' })
        .execute(),
    );
  });

  it('lets members read, and only owners, the organization token and manage-policies teams attach', async () => {
    const org = await ctx.organization();
    const foreign = await ctx.organization();
    const reader = await ctx.member(org, { 'read-workspaces': true });
    const manager = await ctx.member(org, { 'manage-policies': true });
    const outsider = await ctx.user();
    const orgToken = (
      await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
        data: { type: 'authentication-token' },
      })
    ).body.data.attributes.token as string;
    const w = await newWorkspace(ctx, org);
    const set = (await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('sec'), {}, { workspaces: workspaceRefs(w) }))).body.data;
    const rel = relOf(set.id);
    const body = workspaceRefs(w);
    const patch = { data: { type: 'policy-sets', relationships: { workspaces: { data: [] } } } };

    // Reading: every member sees the attachments.
    const read = await ctx.get(setUrl(set.id), reader.token);
    assertStatus(read, 200);
    assert.deepEqual(idsOf(read.body.data.relationships.workspaces), new Set([w]));
    // Writing: 403 for a member who may not manage policies.
    assertError(await ctx.post(rel, reader.token, body), 403);
    assertError(await ctx.delete(rel, reader.token, body), 403);
    assertError(await ctx.patch(setUrl(set.id), reader.token, patch), 403);
    assertError(await ctx.post(setsOf(org.name), reader.token, policySetBody(unique('r'), {}, { workspaces: body })), 403);
    // Outsiders and other organizations' owners: 404, as if the set did not exist.
    for (const token of [outsider.token, foreign.owner.token]) {
      assertError(await ctx.post(rel, token, body), 404);
      assertError(await ctx.delete(rel, token, body), 404);
      assertError(await ctx.patch(setUrl(set.id), token, patch), 404);
    }
    // No token: 401.
    assertError(await ctx.request('POST', rel, { token: null, body }), 401);
    assertError(await ctx.request('DELETE', rel, { token: null, body }), 401);
    assert.deepEqual(await attachedRows(set.id), [w]);

    // Managers and the organization token may write.
    assertStatus(await ctx.delete(rel, manager.token, body), 204);
    assert.deepEqual(await attachedRows(set.id), []);
    assertStatus(await ctx.post(rel, orgToken, body), 204);
    assert.deepEqual(await attachedRows(set.id), [w]);
    const byManager = await ctx.post(setsOf(org.name), manager.token, policySetBody(unique('m'), {}, { workspaces: body }));
    assertStatus(byManager, 201);
    assert.equal(byManager.body.data.attributes['workspace-count'], 1);
  });
});

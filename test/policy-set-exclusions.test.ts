// Workspaces a policy set never applies to (`workspace-exclusions`): on create and update, through
// their own relationship endpoints, and as go-tfe sends them (whole workspace records).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createPolicySet, newWorkspace, policySetBody, workspaceRefs, type Org } from './helpers/policy-sets.ts';

const idsOf = (relationship: { data: Array<{ id: string; type: string }> }) => {
  assert.ok(relationship.data.every((r) => r.type === 'workspaces'));
  return relationship.data.map((r) => r.id).sort();
};

suite('policy set workspace exclusions', (ctx) => {
  const setsOf = (org: string) => `/api/v2/organizations/${org}/policy-sets`;
  const setUrl = (id: string) => `/api/v2/policy-sets/${id}`;
  const relOf = (id: string) => `/api/v2/policy-sets/${id}/relationships/workspace-exclusions`;
  const excluded = async (org: Org, id: string) => idsOf((await ctx.get(setUrl(id), org.owner.token)).body.data.relationships['workspace-exclusions']);
  const rows = async (setId: string) =>
    (await ctx.database.db.selectFrom('policy_set_workspace_exclusions').select('workspace_id').where('policy_set_id', '=', setId).execute())
      .map((r) => r.workspace_id)
      .sort();

  it('creates a set with exclusions, global or not; show and list agree; attachments are separate', async () => {
    const org = await ctx.organization();
    const [a, b, c] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const res = await ctx.post(
      setsOf(org.name),
      org.owner.token,
      policySetBody(
        unique('ex'),
        {},
        {
          workspaces: workspaceRefs(c),
          'workspace-exclusions': workspaceRefs(a, b, a),
        },
      ),
    );
    assertStatus(res, 201);
    const set = res.body.data;
    assert.deepEqual(idsOf(set.relationships['workspace-exclusions']), [a, b].sort());
    assert.deepEqual(idsOf(set.relationships.workspaces), [c]);
    assert.equal(set.attributes['workspace-count'], 1);
    assert.deepEqual(await rows(set.id), [a, b].sort());
    assert.deepEqual((await ctx.get(setUrl(set.id), org.owner.token)).body.data, set);
    assert.deepEqual(
      (await ctx.get(setsOf(org.name), org.owner.token)).body.data.find((s: any) => s.id === set.id),
      set,
    );

    // A global set applies to every workspace: excluding some is what makes sense there.
    const global = await ctx.post(
      setsOf(org.name),
      org.owner.token,
      policySetBody(unique('global'), { global: true }, { 'workspace-exclusions': workspaceRefs(a) }),
    );
    assertStatus(global, 201);
    assert.deepEqual(idsOf(global.body.data.relationships['workspace-exclusions']), [a]);
    assertStatus(await ctx.post(relOf(global.body.data.id), org.owner.token, workspaceRefs(b)), 204);
  });

  it('replaces exclusions on update; omitted leaves them, an empty list clears them', async () => {
    const org = await ctx.organization();
    const [a, b, c] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = await createPolicySet(ctx, org);
    const patch = (body: Record<string, unknown>) => ctx.patch(setUrl(set.id), org.owner.token, { data: { type: 'policy-sets', ...body } });
    assert.deepEqual(
      idsOf((await patch({ relationships: { 'workspace-exclusions': workspaceRefs(a, b) } })).body.data.relationships['workspace-exclusions']),
      [a, b].sort(),
    );
    assert.deepEqual(
      idsOf((await patch({ relationships: { 'workspace-exclusions': workspaceRefs(b, c) } })).body.data.relationships['workspace-exclusions']),
      [b, c].sort(),
    );
    assert.deepEqual(idsOf((await patch({ attributes: { description: 'kept' } })).body.data.relationships['workspace-exclusions']), [b, c].sort());
    assertStatus(await patch({ relationships: { 'workspace-exclusions': { data: [] } } }), 200);
    assert.deepEqual(await rows(set.id), []);
  });

  it('adds and removes through the relationship endpoints (204, idempotent), reading only type and id of whole records', async () => {
    const org = await ctx.organization();
    const [a, b] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = await createPolicySet(ctx, org);
    // go-tfe sends each workspace as the full record it holds.
    const full = (id: string) => ({
      type: 'workspaces',
      id,
      attributes: { name: 'whatever', 'auto-apply': true, 'created-at': '2026-01-01T00:00:00Z' },
      relationships: { project: { data: { type: 'projects', id: 'prj-x' } } },
    });
    const added = await ctx.post(relOf(set.id), org.owner.token, { data: [full(a), full(b)] });
    assertStatus(added, 204);
    assert.equal(added.raw, '');
    assert.deepEqual(await excluded(org, set.id), [a, b].sort());
    assertStatus(await ctx.post(relOf(set.id), org.owner.token, workspaceRefs(b, b)), 204);
    assert.deepEqual(await rows(set.id), [a, b].sort());
    assertStatus(await ctx.delete(relOf(set.id), org.owner.token, { data: [full(a), full(b)] }), 204);
    assert.deepEqual(await excluded(org, set.id), []);
    assertStatus(await ctx.delete(relOf(set.id), org.owner.token, workspaceRefs(a)), 204);
  });

  it('goes away with the workspace or the set', async () => {
    const org = await ctx.organization();
    const [a, b] = [await newWorkspace(ctx, org), await newWorkspace(ctx, org)];
    const set = await createPolicySet(ctx, org);
    assertStatus(await ctx.post(relOf(set.id), org.owner.token, workspaceRefs(a, b)), 204);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${a}`, org.owner.token), 204);
    assert.deepEqual(await excluded(org, set.id), [b]);
    assertStatus(await ctx.delete(setUrl(set.id), org.owner.token), 204);
    assert.deepEqual(await rows(set.id), []);
  });

  it('refuses unknown and foreign workspaces with 422 at each id, and changes nothing', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const mine = await newWorkspace(ctx, org);
    const foreign = await newWorkspace(ctx, other);
    const set = await createPolicySet(ctx, org);
    const refused = await ctx.post(relOf(set.id), org.owner.token, workspaceRefs(mine, foreign, 'ws-0000000000000000'));
    assertError(refused, 422, '/data/1/id');
    assertError(refused, 422, '/data/2/id');
    assert.deepEqual(await rows(set.id), []);
    assertError(await ctx.post(relOf(set.id), org.owner.token, { data: [] }), 422, '/data');
    assertError(await ctx.post(relOf(set.id), org.owner.token, { data: [{ type: 'projects', id: mine }] }), 422, '/data/0/type');
    const onCreate = await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('bad'), {}, { 'workspace-exclusions': workspaceRefs(foreign) }));
    assertError(onCreate, 422, '/data/relationships/workspace-exclusions/data/0/id');
    const onUpdate = await ctx.patch(setUrl(set.id), org.owner.token, {
      data: { type: 'policy-sets', relationships: { 'workspace-exclusions': workspaceRefs(mine, foreign) } },
    });
    assertError(onUpdate, 422, '/data/relationships/workspace-exclusions/data/1/id');
    assert.deepEqual(await rows(set.id), []);
  });

  it("takes manage-policies (403 otherwise), hides other organizations' sets (404), needs a token and the JSON:API type", async () => {
    const org = await ctx.organization();
    const workspace = await newWorkspace(ctx, org);
    const set = await createPolicySet(ctx, org);
    const plain = await ctx.member(org);
    const policies = await ctx.member(org, { 'manage-policies': true });
    const stranger = await ctx.organization();
    assertError(await ctx.post(relOf(set.id), plain.token, workspaceRefs(workspace)), 403);
    assertError(await ctx.delete(relOf(set.id), plain.token, workspaceRefs(workspace)), 403);
    assertError(await ctx.post(relOf(set.id), stranger.owner.token, workspaceRefs(workspace)), 404);
    assertError(await ctx.post(relOf('polset-0000000000000000'), org.owner.token, workspaceRefs(workspace)), 404);
    assertError(await ctx.post(relOf(set.id), null, workspaceRefs(workspace)), 401);
    assertError(await ctx.request('POST', relOf(set.id), { token: org.owner.token, body: workspaceRefs(workspace), contentType: 'text/plain' }), 415);
    assert.deepEqual(await rows(set.id), []);
    assertStatus(await ctx.post(relOf(set.id), policies.token, workspaceRefs(workspace)), 204);
    assertStatus(await ctx.delete(relOf(set.id), policies.token, workspaceRefs(workspace)), 204);
  });
});

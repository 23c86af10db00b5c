import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, memberWithAccess } from './helpers/projects.ts';
import { createStateVersion, lock, stateFile, unlock } from './helpers/state.ts';

suite('safe delete', (ctx) => {
  const byId = (id: string, token: string | null) =>
    ctx.request('POST', `/api/v2/workspaces/${id}/actions/safe-delete`, { token, contentType: 'application/vnd.api+json' });
  const byName = (org: string, name: string, token: string | null) =>
    ctx.request('POST', `/api/v2/organizations/${org}/workspaces/${name}/actions/safe-delete`, { token, contentType: 'application/vnd.api+json' });

  it('deletes an unlocked workspace without resources, by id and by name', async () => {
    const org = await ctx.organization();
    const a = await createWorkspace(ctx, org);
    const b = await createWorkspace(ctx, org);
    assertStatus(await byId(a.id, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/workspaces/${a.id}`, org.owner.token), 404);
    assertStatus(await byName(org.name, b.attributes.name, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/workspaces/${b.id}`, org.owner.token), 404);
    assertError(await byId(a.id, org.owner.token), 404);
    assertError(await byName(org.name, 'nope', org.owner.token), 404);
  });

  it('refuses (409) while locked, in the words go-tfe reads', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    await lock(ctx, w.id, org.owner.token);
    const e = assertError(await byId(w.id, org.owner.token), 409);
    assert.match(e.detail!, /Workspace is currently locked/);
    assertError(await byName(org.name, w.attributes.name, org.owner.token), 409);
    await unlock(ctx, w.id, org.owner.token);
    assertStatus(await byId(w.id, org.owner.token), 204);
  });

  it('refuses (409) while the current state manages resources; a state without any is no obstacle', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    await createStateVersion(ctx, w.id, org.owner.token, stateFile({ serial: 1, resources: 1 }), 1);
    const e = assertError(await byId(w.id, org.owner.token), 409);
    assert.match(e.detail!, /still managing resources/);
    await createStateVersion(ctx, w.id, org.owner.token, stateFile({ serial: 2, resources: 0 }), 2);
    assertStatus(await byId(w.id, org.owner.token), 204);
  });

  it('DELETE (force) takes the state versions, their bytes and outputs with the workspace', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const sv = await createStateVersion(ctx, w.id, org.owner.token);
    await lock(ctx, w.id, org.owner.token);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${w.id}`, org.owner.token), 204);
    const db = ctx.database.db;
    assert.deepEqual(await db.selectFrom('state_versions').select('id').where('workspace_id', '=', w.id).execute(), []);
    assert.deepEqual(await db.selectFrom('blobs').select('name').where('family', '=', 'state-versions').where('owner', '=', sv.id).execute(), []);
    assert.deepEqual(await db.selectFrom('state_version_outputs').select('id').where('state_version_id', '=', sv.id).execute(), []);
    assertError(await ctx.get(`/api/v2/state-versions/${sv.id}`, org.owner.token), 404);
  });

  it('answers permissions as DELETE does: read 403, outsiders 404, no token 401', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    assertError(await byId(w.id, reader.token), 403);
    const outsider = await ctx.organization();
    assertError(await byId(w.id, outsider.owner.token), 404);
    assertError(await byName(org.name, w.attributes.name, outsider.owner.token), 404);
    assertError(await byId(w.id, null), 401);
    assertStatus(await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token), 200);
  });
});

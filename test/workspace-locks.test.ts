import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, memberWithAccess } from './helpers/projects.ts';

const lockBody = (reason?: string) => ({ data: { type: '', attributes: reason === undefined ? {} : { reason } } });

suite('workspace locks', (ctx) => {
  const url = (id: string, action: string) => `/api/v2/workspaces/${id}/actions/${action}`;
  // Unlock and force-unlock carry no body; go-tfe still names the JSON:API media type.
  const act = (id: string, action: string, token: string | null) => ctx.request('POST', url(id, action), { token, contentType: 'application/vnd.api+json' });

  it('locks (with a reason, and go-tfe\'s "type":""), shows who holds it, and unlocks', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    assert.equal(w.attributes.locked, false);
    assert.equal(w.relationships['locked-by'], undefined);

    const locked = await ctx.post(url(w.id, 'lock'), org.owner.token, lockBody('Locked by Terraform'));
    assertStatus(locked, 200);
    assert.equal(locked.body.data.attributes.locked, true);
    assert.equal(locked.body.data.attributes['lock-reason'], 'Locked by Terraform');
    assert.deepEqual(locked.body.data.relationships['locked-by'].data, { id: org.owner.id, type: 'users' });
    // Every view of the workspace says so, the list included.
    const shown = await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes.locked, true);
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token);
    assert.equal(listed.body.data.find((x: { id: string }) => x.id === w.id).attributes.locked, true);

    const again = assertError(await ctx.post(url(w.id, 'lock'), org.owner.token, lockBody()), 409);
    assert.match(again.detail!, /already locked/);

    const unlocked = await act(w.id, 'unlock', org.owner.token);
    assertStatus(unlocked, 200);
    assert.equal(unlocked.body.data.attributes.locked, false);
    assert.equal(unlocked.body.data.relationships['locked-by'], undefined);
    const twice = assertError(await act(w.id, 'unlock', org.owner.token), 409);
    assert.match(twice.detail!, /already unlocked/);
    // Without a body at all, and with an empty one.
    assertStatus(await ctx.request('POST', url(w.id, 'lock'), { token: org.owner.token, contentType: 'application/vnd.api+json' }), 200);
  });

  it('refuses to unlock a lock held by someone else (409 "is locked by User"); admins force-unlock it', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const writer = await memberWithAccess(ctx, org, [[project.id, 'write']]);
    assertStatus(await ctx.post(url(w.id, 'lock'), writer.token, lockBody()), 200);

    const refused = assertError(await act(w.id, 'unlock', org.owner.token), 409);
    assert.match(refused.detail!, /is locked by User/);
    // `write` locks but is no workspace admin: it may not force-unlock.
    const other = await memberWithAccess(ctx, org, [[project.id, 'write']]);
    assertError(await act(w.id, 'force-unlock', other.token), 403);

    const forced = await act(w.id, 'force-unlock', org.owner.token);
    assertStatus(forced, 200);
    assert.equal(forced.body.data.attributes.locked, false);
    assertError(await act(w.id, 'force-unlock', org.owner.token), 409);
  });

  it('lets exactly one of many concurrent lockers hold the lock', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const results = await Promise.all(Array.from({ length: 8 }, () => ctx.post(url(w.id, 'lock'), org.owner.token, lockBody())));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('answers permissions as TFE: read 403, outsiders and unknown ids 404, no token 401, wrong type 415, bad body 422', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    assertError(await ctx.post(url(w.id, 'lock'), reader.token, lockBody()), 403);
    assertError(await act(w.id, 'unlock', reader.token), 403);
    const outsider = await ctx.organization();
    assertError(await ctx.post(url(w.id, 'lock'), outsider.owner.token, lockBody()), 404);
    assertError(await ctx.post(url('ws-AAAAAAAAAAAAAAAA', 'lock'), org.owner.token, lockBody()), 404);
    assertError(await ctx.post(url(w.id, 'lock'), null, lockBody()), 401);
    assertError(await ctx.request('POST', url(w.id, 'lock'), { token: org.owner.token, body: lockBody(), contentType: 'application/json' }), 415);
    assertError(await ctx.post(url(w.id, 'lock'), org.owner.token, { data: { attributes: { reason: 5 } } }), 422, '/data/attributes/reason');
    // None of it took the lock.
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token)).body.data.attributes.locked, false);
  });

  it('goes with its workspace', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    assertStatus(await ctx.post(url(w.id, 'lock'), org.owner.token, lockBody()), 200);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${w.id}`, org.owner.token), 204);
    const left = await ctx.database.db.selectFrom('workspace_locks').select('workspace_id').where('workspace_id', '=', w.id).execute();
    assert.deepEqual(left, []);
  });
  it("releases a team's locks when the team is deleted, and no one else's", async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const [held, other] = [await createWorkspace(ctx, org, project.id), await createWorkspace(ctx, org, project.id)];
    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: `lockers-${Date.now()}` } },
    });
    assertStatus(team, 200);
    const teamId = team.body.data.id;
    await grant(ctx, org, teamId, project.id, 'write');
    const minted = await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, { data: { type: '', attributes: {} } });
    assertStatus(minted, 201);
    assertStatus(await act(held.id, 'lock', minted.body.data.attributes.token), 200);
    assertStatus(await act(other.id, 'lock', org.owner.token), 200);
    assert.equal((await ctx.get(`/api/v2/workspaces/${held.id}`, org.owner.token)).body.data.relationships['locked-by'].data.type, 'teams');

    assertStatus(await ctx.delete(`/api/v2/teams/${teamId}`, org.owner.token), 204);
    assert.equal((await ctx.get(`/api/v2/workspaces/${held.id}`, org.owner.token)).body.data.attributes.locked, false);
    assert.equal((await ctx.get(`/api/v2/workspaces/${other.id}`, org.owner.token)).body.data.attributes.locked, true);
    assertStatus(await act(held.id, 'lock', org.owner.token), 200);
  });
});

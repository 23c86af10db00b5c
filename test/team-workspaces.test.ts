import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { settledStatements } from './helpers/settled.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';

const body = (teamId: string, workspaceId: string, attributes: Record<string, unknown>) => ({
  data: {
    type: 'team-workspaces',
    attributes,
    relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } }, team: { data: { type: 'teams', id: teamId } } },
  },
});

suite('team workspace access', (ctx) => {
  it('adds, shows, lists, changes and removes a grant, each level with its permissions', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const member = await ctx.member(org);
    const created = await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'write' }));
    assertStatus(created, 200);
    const id = created.body.data.id;
    assert.match(id, /^tws-[0-9A-Za-z]{16}$/);
    assert.deepEqual(created.body.data.attributes, {
      access: 'write',
      runs: 'apply',
      variables: 'write',
      'state-versions': 'write',
      'sentinel-mocks': 'read',
      'workspace-locking': true,
      'run-tasks': false,
    });
    assert.deepEqual(created.body.data.relationships.team.data, { type: 'teams', id: member.teamId });
    assert.deepEqual(created.body.data.relationships.workspace.data, { type: 'workspaces', id: ws.id });

    const shown = await ctx.get(`/api/v2/team-workspaces/${id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.access, 'write');
    const list = await ctx.get(`/api/v2/team-workspaces?filter[workspace][id]=${ws.id}`, org.owner.token);
    assertStatus(list, 200);
    assert.deepEqual(
      list.body.data.map((g: any) => g.id),
      [id],
    );
    assert.equal(list.body.meta.pagination['total-count'], 1);

    const plan = await ctx.patch(`/api/v2/team-workspaces/${id}`, org.owner.token, { data: { type: 'team-workspaces', attributes: { access: 'plan' } } });
    assertStatus(plan, 200);
    assert.equal(plan.body.data.attributes.runs, 'plan');
    assert.equal(plan.body.data.attributes['workspace-locking'], false);
    const custom = await ctx.patch(`/api/v2/team-workspaces/${id}`, org.owner.token, {
      data: { type: 'team-workspaces', attributes: { access: 'custom', 'workspace-locking': true, variables: 'read' } },
    });
    assertStatus(custom, 200);
    assert.equal(custom.body.data.attributes.access, 'custom');
    assert.equal(custom.body.data.attributes['workspace-locking'], true);
    assert.equal(custom.body.data.attributes.variables, 'read');
    assert.equal(custom.body.data.attributes.runs, 'read');

    assertStatus(await ctx.delete(`/api/v2/team-workspaces/${id}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/team-workspaces/${id}`, org.owner.token), 404);
  });

  it('a grant on a workspace lets the team see, change and delete it, and nothing else', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const otherWs = await createWorkspace(ctx, org, project.id);
    const member = await ctx.member(org);
    assertError(await ctx.get(`/api/v2/workspaces/${ws.id}`, member.token), 404);
    const g = await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'read' }));
    assertStatus(await ctx.get(`/api/v2/workspaces/${ws.id}`, member.token), 200);
    assertError(await ctx.get(`/api/v2/workspaces/${otherWs.id}`, member.token), 404);
    // The list (the SQL half) agrees.
    const list = await ctx.get(`/api/v2/organizations/${org.name}/workspaces`, member.token);
    assert.deepEqual(
      list.body.data.map((w: any) => w.id),
      [ws.id],
    );
    // Read does not change settings; admin does.
    const rename = { data: { type: 'workspaces', attributes: { description: 'x' } } };
    assertError(await ctx.patch(`/api/v2/workspaces/${ws.id}`, member.token, rename), 403);
    await ctx.patch(`/api/v2/team-workspaces/${g.body.data.id}`, org.owner.token, { data: { type: 'team-workspaces', attributes: { access: 'admin' } } });
    assertStatus(await ctx.patch(`/api/v2/workspaces/${ws.id}`, member.token, rename), 200);
    // A workspace admin manages the workspace's team access, within what it holds.
    const other = await ctx.member(org);
    const given = await ctx.post('/api/v2/team-workspaces', member.token, body(other.teamId, ws.id, { access: 'write' }));
    assertStatus(given, 200);
    assertError(await ctx.post('/api/v2/team-workspaces', member.token, body(other.teamId, otherWs.id, { access: 'read' })), 404);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, member.token), 204);
  });

  it('grants read from the cache (db/changes.ts) are refused at once when lowered or removed, or their team or workspace deleted', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const member = await ctx.member(org);
    const g = await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'admin' }));
    assertStatus(g, 200);
    const runs = () => ctx.get(`/api/v2/workspaces/${ws.id}/runs`, member.token);
    const rename = () => ctx.patch(`/api/v2/workspaces/${ws.id}`, member.token, { data: { type: 'workspaces', attributes: { description: `${Date.now()}` } } });
    const change = (attributes: Record<string, unknown>) =>
      ctx.patch(`/api/v2/team-workspaces/${g.body.data.id}`, org.owner.token, { data: { type: 'team-workspaces', attributes } });
    // Warm: the grant is now cached, and a read of the list does not ask for it again (the
    // workspace with its project, the empty page, its count).
    assertStatus(await rename(), 200);
    assertStatus(await runs(), 200);
    const cached = await settledStatements(ctx, runs, 3);
    assertStatus(cached.result, 200);
    assert.equal(cached.statements.length, 3, cached.statements.join('\n'));
    assert.equal(cached.statements.filter((text) => /"team_workspaces"/.test(text)).length, 0, cached.statements.join('\n'));
    assertStatus(await rename(), 200);
    // Lowered: the very next request is refused.
    assertStatus(await change({ access: 'read' }), 200);
    assertError(await rename(), 403);
    assertStatus(await runs(), 200);
    // Removed: not found at once; given again: found at once.
    assertStatus(await ctx.delete(`/api/v2/team-workspaces/${g.body.data.id}`, org.owner.token), 204);
    assertError(await runs(), 404);
    assertStatus(await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'read' })), 200);
    assertStatus(await runs(), 200);
    // The team deleted (its grants go by cascade): not found at once.
    assertStatus(await ctx.delete(`/api/v2/teams/${member.teamId}`, org.owner.token), 204);
    assertError(await runs(), 404);
    // A workspace deleted (its grants go by cascade) is not found, whatever was cached of its grants.
    const other = await ctx.member(org);
    const ws2 = await createWorkspace(ctx, org, project.id);
    assertStatus(await ctx.post('/api/v2/team-workspaces', org.owner.token, body(other.teamId, ws2.id, { access: 'read' })), 200);
    assertStatus(await ctx.get(`/api/v2/workspaces/${ws2.id}/runs`, other.token), 200);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws2.id}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/workspaces/${ws2.id}/runs`, other.token), 404);
  });

  it('nobody gives a permission on a workspace it does not hold', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    // A project `write` team may read and write the workspace, but is no workspace admin.
    const writer = await ctx.member(org);
    await grant(ctx, org, writer.teamId, project.id, 'write');
    const custom = await ctx.member(org);
    await grant(ctx, org, custom.teamId, project.id, 'maintain');
    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: `visible-${Date.now()}`, visibility: 'organization' } },
    });
    const target = { teamId: team.body.data.id as string };
    // maintain is workspace admin: it may give admin on the workspace, which it holds.
    assertStatus(await ctx.post('/api/v2/team-workspaces', custom.token, body(target.teamId, ws.id, { access: 'admin' })), 200);
    assertError(await ctx.post('/api/v2/team-workspaces', writer.token, body(writer.teamId, ws.id, { access: 'admin' })), 403);
    // Adding a user to a team with admin on a workspace gives that too: team managers who do not hold it may not.
    const managers = await ctx.member(org, { 'manage-teams': true });
    const add = await ctx.post(`/api/v2/teams/${target.teamId}/relationships/users`, managers.token, { data: [{ type: 'users', id: managers.username }] });
    const refused = assertError(add, 403);
    assert.match(refused.detail ?? '', new RegExp(`on workspace ${ws.id}`));
  });

  it('validates bodies, ids and content types; hides other organizations', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const member = await ctx.member(org);
    assertError(await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'owner' })), 422, '/data/attributes/access');
    const readOnly = assertError(
      await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'read', runs: 'apply' })),
      422,
      '/data/attributes/runs',
    );
    // go-tfe compares TFE's wording.
    assert.equal(readOnly.detail, "Runs is read-only when access level is 'read'; use the 'custom' access level to set this attribute.");
    assertError(
      await ctx.post('/api/v2/team-workspaces', org.owner.token, body('team-nope', ws.id, { access: 'read' })),
      422,
      '/data/relationships/team/data/id',
    );
    assertStatus(await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'read' })), 200);
    assertError(
      await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, ws.id, { access: 'read' })),
      422,
      '/data/relationships/team/data/id',
    );
    assertError(await ctx.post('/api/v2/team-workspaces', org.owner.token, body(member.teamId, 'ws-doesnotexist00000', { access: 'read' })), 404);
    assertError(await ctx.get('/api/v2/team-workspaces/tws-doesnotexist0000', org.owner.token), 404);
    assertError(await ctx.get('/api/v2/team-workspaces', org.owner.token), 400);
    assertError(await ctx.request('POST', '/api/v2/team-workspaces', { token: org.owner.token, rawBody: '{}', contentType: 'text/plain' }), 415);
    assertError(await ctx.get(`/api/v2/team-workspaces?filter[workspace][id]=${ws.id}`, null), 401);
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/team-workspaces?filter[workspace][id]=${ws.id}`, other.owner.token), 404);
    assertError(await ctx.post('/api/v2/team-workspaces', other.owner.token, body(member.teamId, ws.id, { access: 'read' })), 404);
    // A team of another organization is not a team here.
    const theirs = await ctx.member(other);
    assertError(
      await ctx.post('/api/v2/team-workspaces', org.owner.token, body(theirs.teamId, ws.id, { access: 'read' })),
      422,
      '/data/relationships/team/data/id',
    );
  });
});

suite('team workspace access: the list (SQL) and each workspace (JavaScript) agree', (ctx) => {
  it('for members with project grants, workspace grants, both, neither, and a team token', async () => {
    const org = await ctx.organization();
    const p1 = await createProject(ctx, org);
    const p2 = await createProject(ctx, org);
    const ws = [
      await createWorkspace(ctx, org, p1.id),
      await createWorkspace(ctx, org, p1.id),
      await createWorkspace(ctx, org, p2.id),
      await createWorkspace(ctx, org, p2.id),
      await createWorkspace(ctx, org),
    ];
    const onProject = await ctx.member(org);
    await grant(ctx, org, onProject.teamId, p1.id, 'read');
    const onWorkspace = await ctx.member(org);
    await ctx.post('/api/v2/team-workspaces', org.owner.token, body(onWorkspace.teamId, ws[2]!.id, { access: 'read' }));
    const both = await ctx.member(org);
    await grant(ctx, org, both.teamId, p1.id, 'write');
    await ctx.post('/api/v2/team-workspaces', org.owner.token, body(both.teamId, ws[3]!.id, { access: 'custom' }));
    const nothing = await ctx.member(org);
    const teamToken = (await ctx.post(`/api/v2/teams/${onWorkspace.teamId}/authentication-token`, org.owner.token, { data: { type: '' } })).body.data.attributes
      .token;
    const callers = [
      org.owner.token,
      onProject.token,
      onWorkspace.token,
      both.token,
      nothing.token,
      teamToken,
      (await ctx.member(org, { 'read-workspaces': true })).token,
    ];
    for (const token of callers) {
      const listed = (await ctx.get(`/api/v2/organizations/${org.name}/workspaces?page[size]=100`, token)).body.data.map((w: any) => w.id).sort();
      const readable = [];
      for (const w of ws) if ((await ctx.get(`/api/v2/workspaces/${w.id}`, token)).status === 200) readable.push(w.id);
      assert.deepEqual(listed, readable.sort());
    }
    // And the grants did what they say.
    const seen = (await ctx.get(`/api/v2/organizations/${org.name}/workspaces`, onWorkspace.token)).body.data.map((w: any) => w.id);
    assert.deepEqual(seen, [ws[2]!.id]);
    const seenByToken = (await ctx.get(`/api/v2/organizations/${org.name}/workspaces`, teamToken)).body.data.map((w: any) => w.id);
    assert.deepEqual(seenByToken, [ws[2]!.id]);
  });
});

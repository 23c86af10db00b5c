import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, teamProjectBody, workspaceBody } from './helpers/projects.ts';

/** The table of tfe-api-facts §4.5, as the API must answer it. */
const IMPLIED: Record<string, { project: Record<string, string>; workspace: Record<string, string | boolean> }> = {
  read: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: {
      runs: 'read',
      'sentinel-mocks': 'none',
      'state-versions': 'read',
      variables: 'read',
      create: false,
      locking: false,
      delete: false,
      move: false,
      'run-tasks': false,
    },
  },
  write: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: {
      runs: 'apply',
      'sentinel-mocks': 'read',
      'state-versions': 'write',
      variables: 'write',
      create: false,
      locking: true,
      delete: false,
      move: false,
      'run-tasks': false,
    },
  },
  maintain: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: {
      runs: 'apply',
      'sentinel-mocks': 'read',
      'state-versions': 'write',
      variables: 'write',
      create: true,
      locking: true,
      delete: true,
      move: false,
      'run-tasks': true,
    },
  },
  admin: {
    project: { settings: 'delete', teams: 'manage', 'variable-sets': 'write' },
    workspace: {
      runs: 'apply',
      'sentinel-mocks': 'read',
      'state-versions': 'write',
      variables: 'write',
      create: true,
      locking: true,
      delete: true,
      move: true,
      'run-tasks': true,
    },
  },
  custom: {
    project: { settings: 'read', teams: 'none', 'variable-sets': 'none' },
    workspace: {
      runs: 'read',
      'sentinel-mocks': 'none',
      'state-versions': 'none',
      variables: 'none',
      create: false,
      locking: false,
      delete: false,
      move: false,
      'run-tasks': false,
    },
  },
};

suite('team project access', (ctx) => {
  it('grants each level (201) with every implied permission in both sub-objects', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    for (const [access, expected] of Object.entries(IMPLIED)) {
      const team = await ctx.member(org);
      const res = await ctx.post('/api/v2/team-projects', org.owner.token, teamProjectBody(team.teamId, p.id, access));
      assertStatus(res, 201);
      const d = res.body.data;
      assert.match(d.id, /^tprj-[0-9A-Za-z]{16}$/);
      assert.equal(d.type, 'team-projects');
      assert.equal(d.attributes.access, access);
      assert.deepEqual(d.attributes['project-access'], expected.project, access);
      assert.deepEqual(d.attributes['workspace-access'], expected.workspace, access);
      assert.deepEqual(d.relationships.team, { data: { id: team.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${team.teamId}` } });
      assert.deepEqual(d.relationships.project, { data: { id: p.id, type: 'projects' }, links: { related: `/api/v2/projects/${p.id}` } });
      assert.equal(d.links.self, `/api/v2/team-projects/${d.id}`);
      const shown = await ctx.get(`/api/v2/team-projects/${d.id}`, org.owner.token);
      assert.deepEqual(shown.body.data, d);
    }
    const project = await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token);
    assert.equal(project.body.data.attributes['team-count'], Object.keys(IMPLIED).length);
  });

  it('lays custom values over the custom defaults, and keeps them on later partial updates', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const team = await ctx.member(org);
    const created = await grant(ctx, org, team.teamId, p.id, 'custom', {
      'project-access': { settings: 'update', 'variable-sets': 'read' },
      'workspace-access': { runs: 'plan', move: true, 'state-versions': 'read-outputs', 'policy-overrides': true },
    });
    assert.deepEqual(created.attributes['project-access'], { settings: 'update', teams: 'none', 'variable-sets': 'read' });
    assert.deepEqual(created.attributes['workspace-access'], { ...IMPLIED.custom!.workspace, runs: 'plan', move: true, 'state-versions': 'read-outputs' });
    const url = `/api/v2/team-projects/${created.id}`;
    const patched = await ctx.patch(url, org.owner.token, { data: { type: 'team-projects', attributes: { 'workspace-access': { create: true } } } });
    assertStatus(patched, 200);
    assert.deepEqual(patched.body.data.attributes['workspace-access'], { ...created.attributes['workspace-access'], create: true });
    assert.deepEqual(patched.body.data.attributes['project-access'], created.attributes['project-access']);
    // Leaving custom resets everything to the level's values; coming back starts from the defaults.
    const maintain = await ctx.patch(url, org.owner.token, { data: { type: 'team-projects', attributes: { access: 'maintain' } } });
    assert.equal(maintain.body.data.attributes.access, 'maintain');
    assert.deepEqual(maintain.body.data.attributes['workspace-access'], IMPLIED.maintain!.workspace);
    const custom = await ctx.patch(url, org.owner.token, { data: { type: 'team-projects', attributes: { access: 'custom' } } });
    assert.deepEqual(custom.body.data.attributes['workspace-access'], IMPLIED.custom!.workspace);
    assert.deepEqual((await ctx.get(url, org.owner.token)).body.data, custom.body.data);
  });

  it('refuses custom keys without access custom, bad values, wrong types and missing relationships with 422', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const team = await ctx.member(org);
    const post = (body: unknown) => ctx.post('/api/v2/team-projects', org.owner.token, body);
    let e = assertError(
      await post(teamProjectBody(team.teamId, p.id, 'admin', { 'workspace-access': { move: false } })),
      422,
      '/data/attributes/workspace-access',
    );
    assert.match(e.detail!, /custom/);
    assertError(await post(teamProjectBody(team.teamId, p.id, 'read', { 'project-access': { teams: 'manage' } })), 422, '/data/attributes/project-access');
    assertError(await post(teamProjectBody(team.teamId, p.id, 'owner')), 422, '/data/attributes/access');
    assertError(
      await post(teamProjectBody(team.teamId, p.id, 'custom', { 'project-access': { settings: 'write' } })),
      422,
      '/data/attributes/project-access/settings',
    );
    assertError(
      await post(teamProjectBody(team.teamId, p.id, 'custom', { 'workspace-access': { move: 'yes' } })),
      422,
      '/data/attributes/workspace-access/move',
    );
    assertError(
      await post({
        data: { type: 'team-project', attributes: { access: 'read' }, relationships: teamProjectBody(team.teamId, p.id, 'read').data.relationships },
      }),
      422,
      '/data/type',
    );
    assertError(
      await post({ data: { type: 'team-projects', attributes: { access: 'read' }, relationships: { project: { data: { type: 'projects', id: p.id } } } } }),
      422,
      '/data/relationships/team',
    );
    assertError(
      await post({ data: { type: 'team-projects', attributes: {}, relationships: teamProjectBody(team.teamId, p.id, 'read').data.relationships } }),
      422,
      '/data/attributes/access',
    );
    const created = await grant(ctx, org, team.teamId, p.id, 'write');
    e = assertError(await post(teamProjectBody(team.teamId, p.id, 'admin')), 422, '/data/relationships/team/data/id');
    assert.match(e.detail!, /already has access/);
    assertError(
      await ctx.patch(`/api/v2/team-projects/${created.id}`, org.owner.token, {
        data: { type: 'team-projects', attributes: { 'workspace-access': { create: true } } },
      }),
      422,
      '/data/attributes/workspace-access',
    );
    assertError(
      await ctx.patch(`/api/v2/team-projects/${created.id}`, org.owner.token, { data: { type: 'team-projects', attributes: { access: 'none' } } }),
      422,
      '/data/attributes/access',
    );
    assert.equal((await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token)).body.data.attributes['team-count'], 1);
  });

  it('answers unknown teams and projects, and teams of other organizations, with 404', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const team = await ctx.member(org);
    const other = await ctx.organization();
    const foreignTeam = await ctx.member(other);
    const post = (teamId: string, projectId: string) => ctx.post('/api/v2/team-projects', org.owner.token, teamProjectBody(teamId, projectId, 'read'));
    assertError(await post('team-0000000000000000', p.id), 404);
    assertError(await post(foreignTeam.teamId, p.id), 404);
    assertError(await post(team.teamId, 'prj-0000000000000000'), 404);
    assertError(await post(team.teamId, (await createProject(ctx, other)).id), 404);
    for (const id of ['tprj-0000000000000000', 'bogus']) {
      assertError(await ctx.get(`/api/v2/team-projects/${id}`, org.owner.token), 404);
      assertError(await ctx.patch(`/api/v2/team-projects/${id}`, org.owner.token, { data: { type: 'team-projects', attributes: { access: 'read' } } }), 404);
      assertError(await ctx.delete(`/api/v2/team-projects/${id}`, org.owner.token), 404);
    }
  });

  it("lists a project's grants (filter[project][id] required), paginated, optionally by team", async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const teams = [];
    for (let i = 0; i < 3; i++) {
      const t = await ctx.member(org);
      teams.push(t);
      await grant(ctx, org, t.teamId, p.id, ['read', 'write', 'admin'][i]!);
    }
    const e = assertError(await ctx.get('/api/v2/team-projects', org.owner.token), 400);
    assert.match(e.detail!, /filter\[project\]\[id\]/);
    assertError(await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}&page[size]=-1`, org.owner.token), 400);
    assertError(await ctx.get('/api/v2/team-projects?filter[project][id]=prj-0000000000000000', org.owner.token), 404);
    const page1 = await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}&page[size]=2`, org.owner.token);
    assertStatus(page1, 200);
    assert.deepEqual(
      page1.body.data.map((d: any) => d.attributes.access),
      ['read', 'write'],
    );
    assert.equal(page1.body.meta.pagination['total-count'], 3);
    assert.match(page1.body.links.next, /filter%5Bproject%5D%5Bid%5D=prj-/);
    const byTeam = await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}&filter[team][id]=${teams[2]!.teamId}`, org.owner.token);
    assert.deepEqual(
      byTeam.body.data.map((d: any) => d.relationships.team.data.id),
      [teams[2]!.teamId],
    );
  });

  it('lets project admins and manage-projects teams manage access; others get 403, outsiders 404', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const target = await ctx.member(org);
    const admin = await ctx.member(org);
    await grant(ctx, org, admin.teamId, p.id, 'admin');
    const custom = await ctx.member(org);
    await grant(ctx, org, custom.teamId, p.id, 'custom', { 'project-access': { teams: 'manage' } });
    const maintainer = await ctx.member(org);
    const ownGrant = await grant(ctx, org, maintainer.teamId, p.id, 'maintain');
    const manager = await ctx.member(org, { 'manage-projects': true });
    const teamsManager = await ctx.member(org, { 'manage-teams': true, 'read-projects': true });
    const outsider = (await ctx.organization()).owner;

    const body = teamProjectBody(target.teamId, p.id, 'read');
    assertError(await ctx.post('/api/v2/team-projects', maintainer.token, body), 403);
    assertError(await ctx.post('/api/v2/team-projects', teamsManager.token, body), 403);
    assertError(await ctx.post('/api/v2/team-projects', (await ctx.member(org, { 'read-projects': true })).token, body), 403);
    assertError(await ctx.post('/api/v2/team-projects', outsider.token, body), 404);
    assertError(await ctx.post('/api/v2/team-projects', (await ctx.member(org)).token, body), 404, undefined);

    // Its own team's grant a maintainer sees, but may not change (or it could promote itself).
    const own = `/api/v2/team-projects/${ownGrant.id}`;
    assertStatus(await ctx.get(own, maintainer.token), 200);
    assertError(await ctx.patch(own, maintainer.token, { data: { type: 'team-projects', attributes: { access: 'admin' } } }), 403);
    assertError(await ctx.delete(own, maintainer.token), 403);
    assert.equal((await ctx.get(own, org.owner.token)).body.data.attributes.access, 'maintain');

    // A custom grant of `teams: manage` holds none of what `read` gives on workspaces, so it may
    // not give it (see escalation.test.ts).
    const refused = assertError(await ctx.post('/api/v2/team-projects', custom.token, body), 403);
    assert.match(refused.detail!, /workspace-access\.state-versions read/);

    for (const who of [admin, manager]) {
      const created = await ctx.post('/api/v2/team-projects', who.token, body);
      assertStatus(created, 201);
      const url = `/api/v2/team-projects/${created.body.data.id}`;
      // Another team's grant is invisible to a maintainer: 404, not 403.
      assertError(await ctx.patch(url, maintainer.token, { data: { type: 'team-projects', attributes: { access: 'admin' } } }), 404);
      assertError(await ctx.delete(url, maintainer.token), 404);
      assertError(await ctx.get(url, outsider.token), 404);
      assertStatus(await ctx.patch(url, who.token, { data: { type: 'team-projects', attributes: { access: 'write' } } }), 200);
      assertStatus(await ctx.delete(url, who.token), 204);
      assertError(await ctx.get(url, org.owner.token), 404);
    }
  });

  it("shows members their own teams' grants and those who may read teams all of them", async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const reader = await ctx.member(org);
    const mine = await grant(ctx, org, reader.teamId, p.id, 'read');
    const other = await ctx.member(org);
    const theirs = await grant(ctx, org, other.teamId, p.id, 'write');
    const ids = async (token: string) => (await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}`, token)).body.data.map((d: any) => d.id).sort();
    assert.deepEqual(await ids(reader.token), [mine.id]);
    assertStatus(await ctx.get(`/api/v2/team-projects/${mine.id}`, reader.token), 200);
    assertError(await ctx.get(`/api/v2/team-projects/${theirs.id}`, reader.token), 404);
    const teamsManager = await ctx.member(org, { 'manage-teams': true, 'read-projects': true });
    assert.deepEqual(await ids(teamsManager.token), [mine.id, theirs.id].sort());
    assert.deepEqual(await ids(org.owner.token), [mine.id, theirs.id].sort());
    // Someone who cannot see the project cannot list its grants at all.
    assertError(await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}`, (await ctx.member(org)).token), 404);
  });

  it('makes the grant effective at once, and removing the team removes its grants', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const member = await ctx.member(org);
    const url = `/api/v2/organizations/${org.name}/workspaces`;
    assertError(await ctx.post(url, member.token, workspaceBody({ name: 'not-yet' }, p.id)), 422, '/data/relationships/project/data/id');
    const g = await grant(ctx, org, member.teamId, p.id, 'custom', { 'workspace-access': { create: true } });
    assertStatus(await ctx.post(url, member.token, workspaceBody({ name: 'now-yes' }, p.id)), 201);
    await ctx.patch(`/api/v2/team-projects/${g.id}`, org.owner.token, { data: { type: 'team-projects', attributes: { access: 'read' } } });
    assertError(await ctx.post(url, member.token, workspaceBody({ name: 'not-again' }, p.id)), 403);
    await createWorkspace(ctx, org, p.id);
    assertStatus(await ctx.delete(`/api/v2/teams/${member.teamId}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/team-projects/${g.id}`, org.owner.token), 404);
    assert.equal((await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token)).body.data.attributes['team-count'], 0);
  });

  it('requires a token (401) and the JSON:API content type (415)', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const team = await ctx.member(org);
    const g = await grant(ctx, org, team.teamId, p.id, 'read');
    for (const res of [
      await ctx.get(`/api/v2/team-projects?filter[project][id]=${p.id}`, null),
      await ctx.post('/api/v2/team-projects', null, teamProjectBody(team.teamId, p.id, 'read')),
      await ctx.get(`/api/v2/team-projects/${g.id}`, null),
      await ctx.patch(`/api/v2/team-projects/${g.id}`, null, { data: { type: 'team-projects', attributes: { access: 'admin' } } }),
      await ctx.delete(`/api/v2/team-projects/${g.id}`, null),
    ]) {
      assertError(res, 401);
    }
    assertError(
      await ctx.request('POST', '/api/v2/team-projects', {
        token: org.owner.token,
        body: teamProjectBody(team.teamId, p.id, 'admin'),
        contentType: 'text/plain',
      }),
      415,
    );
    assertError(
      await ctx.request('PATCH', `/api/v2/team-projects/${g.id}`, {
        token: org.owner.token,
        body: { data: { type: 'team-projects', attributes: { access: 'admin' } } },
        contentType: 'application/json',
      }),
      415,
    );
    assert.equal((await ctx.get(`/api/v2/team-projects/${g.id}`, org.owner.token)).body.data.attributes.access, 'read');
    assert.ok(!ctx.logs.includes(org.owner.token));
  });
});

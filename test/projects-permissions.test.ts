import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, grant, memberWithAccess, projectBody, projectName } from './helpers/projects.ts';

suite('project permissions', (ctx) => {
  it('lets owners, manage-projects teams, the organization token and site admins create projects', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/projects`;
    const manager = await ctx.member(org, { 'manage-projects': true, 'manage-workspaces': true });
    const admin = await ctx.user({ siteAdmin: true });
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
      data: { type: 'authentication-token', attributes: {} },
    });
    for (const token of [org.owner.token, manager.token, admin.token, orgToken.body.data.attributes.token]) {
      const res = await ctx.post(url, token, projectBody({ name: projectName() }));
      assertStatus(res, 201);
      assert.equal(res.body.data.attributes.permissions['can-destroy'], true);
    }
  });

  it('refuses project creation to other members with 403 and to outsiders with 404', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/projects`;
    const p = await createProject(ctx, org);
    const reader = await ctx.member(org, { 'read-projects': true });
    const workspaceManager = await ctx.member(org, { 'manage-workspaces': true });
    const admin = await memberWithAccess(ctx, org, [[p.id, 'admin']]);
    for (const m of [reader, workspaceManager, admin, await ctx.member(org)]) {
      assertError(await ctx.post(url, m.token, projectBody({ name: projectName() })), 403);
    }
    const other = await ctx.organization();
    assertError(await ctx.post(url, other.owner.token, projectBody({ name: projectName() })), 404);
    assertError(await ctx.post(url, (await ctx.user()).token, projectBody({ name: projectName() })), 404);
    const total = (await ctx.get(url, org.owner.token)).body.meta['status-counts'].total;
    assert.equal(total, 2, 'nothing was created');
  });

  it('shows each caller only the projects it may read', async () => {
    const org = await ctx.organization();
    const [a, b] = [await createProject(ctx, org), await createProject(ctx, org)];
    const list = async (token: string) =>
      (await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100`, token)).body.data.map((p: any) => p.id).sort();
    const plain = await ctx.member(org);
    const reader = await ctx.member(org, { 'read-projects': true });
    const workspaceManager = await ctx.member(org, { 'manage-workspaces': true });
    const granted = await memberWithAccess(ctx, org, [[a!.id, 'read']]);
    assert.deepEqual(await list(plain.token), []);
    assert.deepEqual(await list(reader.token), [org.defaultProjectId, a!.id, b!.id].sort());
    assert.deepEqual(await list(workspaceManager.token), [org.defaultProjectId]);
    assert.deepEqual(await list(granted.token), [a!.id]);
    assertError(await ctx.get(`/api/v2/projects/${b!.id}`, granted.token), 404);
    assertStatus(await ctx.get(`/api/v2/projects/${a!.id}`, granted.token), 200);
    assertError(await ctx.get(`/api/v2/projects/${a!.id}`, plain.token), 404);
    // Outsiders get 404 for the organization and for each project.
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/organizations/${org.name}/projects`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/projects/${a!.id}`, other.owner.token), 404);
    assertError(await ctx.patch(`/api/v2/projects/${a!.id}`, other.owner.token, projectBody({ name: projectName() })), 404);
    assertError(await ctx.delete(`/api/v2/projects/${a!.id}`, other.owner.token), 404);
  });

  it('updates and deletes by project access level: 403 for those who see but may not act', async () => {
    const org = await ctx.organization();
    const expectations: Array<[string, Record<string, unknown>, boolean, boolean]> = [
      ['read', {}, false, false],
      ['write', {}, false, false],
      ['maintain', {}, false, false],
      ['admin', {}, true, true],
      ['custom', { 'project-access': { settings: 'update' } }, true, false],
      ['custom', { 'project-access': { settings: 'delete' } }, true, true],
    ];
    for (const [access, extra, mayUpdate, mayDelete] of expectations) {
      const p = await createProject(ctx, org);
      const member = await ctx.member(org);
      await grant(ctx, org, member.teamId, p.id, access, extra);
      const label = `${access} ${JSON.stringify(extra)}`;
      const shown = await ctx.get(`/api/v2/projects/${p.id}`, member.token);
      assert.equal(shown.body.data.attributes.permissions['can-update'], mayUpdate, label);
      assert.equal(shown.body.data.attributes.permissions['can-destroy'], mayDelete, label);
      const upd = await ctx.patch(`/api/v2/projects/${p.id}`, member.token, projectBody({ description: access }));
      if (mayUpdate) assertStatus(upd, 200);
      else assertError(upd, 403);
      const del = await ctx.delete(`/api/v2/projects/${p.id}`, member.token);
      if (mayDelete) assertStatus(del, 204);
      else assertError(del, 403);
    }
    const reader = await ctx.member(org, { 'read-projects': true });
    const p = await createProject(ctx, org);
    assertError(await ctx.patch(`/api/v2/projects/${p.id}`, reader.token, projectBody({ name: projectName() })), 403);
    assertError(await ctx.delete(`/api/v2/projects/${p.id}`, reader.token), 403);
    const manager = await ctx.member(org, { 'manage-projects': true });
    assertStatus(await ctx.patch(`/api/v2/projects/${p.id}`, manager.token, projectBody({ name: projectName() })), 200);
    assertStatus(await ctx.delete(`/api/v2/projects/${p.id}`, manager.token), 204);
  });

  it("takes the highest grant across the caller's teams and organization flags", async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const member = await ctx.member(org);
    await grant(ctx, org, member.teamId, p.id, 'read');
    const perms = async () => (await ctx.get(`/api/v2/projects/${p.id}`, member.token)).body.data.attributes.permissions;
    assert.deepEqual(await perms(), {
      'can-read': true,
      'can-update': false,
      'can-destroy': false,
      'can-create-workspace': false,
      'can-move-workspace': false,
      'can-manage-teams': false,
    });
    // A second team of the same user holds admin on the project: admin wins.
    const team2 = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: projectName('team') } },
    });
    await ctx.post(`/api/v2/teams/${team2.body.data.id}/relationships/users`, org.owner.token, { data: [{ type: 'users', id: member.username }] });
    const admin = await grant(ctx, org, team2.body.data.id, p.id, 'admin');
    assert.ok(Object.values(await perms()).every(Boolean));
    // Organization-wide manage-projects beats a read grant too.
    assertStatus(await ctx.delete(`/api/v2/team-projects/${admin.id}`, org.owner.token), 204);
    assert.equal((await perms())['can-update'], false);
    await ctx.patch(`/api/v2/teams/${member.teamId}`, org.owner.token, {
      data: { type: 'teams', attributes: { 'organization-access': { 'manage-projects': true, 'manage-workspaces': true } } },
    });
    assert.ok(Object.values(await perms()).every(Boolean));
  });

  it("agrees between list filters (SQL) and each project's permissions (JavaScript) for every kind of caller", async () => {
    const org = await ctx.organization();
    const levels: Array<[string, Record<string, unknown>]> = [
      ['read', {}],
      ['write', {}],
      ['maintain', {}],
      ['admin', {}],
      ['custom', {}],
      ['custom', { 'project-access': { settings: 'update' }, 'workspace-access': { create: true } }],
      ['custom', { 'workspace-access': { move: true } }],
    ];
    const projects = [];
    for (let i = 0; i < levels.length + 2; i++) projects.push(await createProject(ctx, org));
    const granted = await ctx.member(org);
    const withFlags = await ctx.member(org, { 'manage-workspaces': true });
    const readAll = await ctx.member(org, { 'read-projects': true });
    for (const [i, [access, extra]] of levels.entries()) {
      await grant(ctx, org, granted.teamId, projects[i]!.id, access, extra);
      if (i % 2 === 0) await grant(ctx, org, withFlags.teamId, projects[i]!.id, access, extra);
      if (i % 3 === 0) await grant(ctx, org, readAll.teamId, projects[i]!.id, access, extra);
    }
    const callers = [granted, withFlags, readAll, await ctx.member(org), org.owner];
    for (const caller of callers) {
      const get = async (query: string) => (await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100${query}`, caller.token)).body;
      const visible = await get('');
      const ids = (body: any) => body.data.map((p: any) => p.id).sort();
      const where = (flag: string) =>
        visible.data
          .filter((p: any) => p.attributes.permissions[flag])
          .map((p: any) => p.id)
          .sort();
      assert.ok(visible.data.every((p: any) => p.attributes.permissions['can-read']));
      const update = await get('&filter[permissions][update]=true');
      assert.deepEqual(ids(update), where('can-update'));
      assert.equal(update.meta['status-counts'].total, visible.data.length);
      assert.deepEqual(ids(await get('&filter[permissions][create-workspace]=true')), where('can-create-workspace'));
      for (const p of visible.data) {
        const shown = await ctx.get(`/api/v2/projects/${p.id}`, caller.token);
        assert.deepEqual(shown.body.data.attributes.permissions, p.attributes.permissions);
      }
      // And nothing invisible answers to show.
      for (const p of projects.filter((x) => !visible.data.some((v: any) => v.id === x.id))) {
        assertError(await ctx.get(`/api/v2/projects/${p.id}`, caller.token), 404);
      }
    }
  });
});

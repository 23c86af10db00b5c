// No caller gives anyone, itself included, a permission it does not hold; only owners (and site
// admins, and the organization token) may give anything. Each escalation path below worked before
// the rule existed: a membership right or a project's `teams: manage` was a way to everything.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, grant, teamProjectBody, type Org } from './helpers/projects.ts';

const teamBody = (attributes: Record<string, unknown>) => ({ data: { type: 'teams', attributes: { name: unique('team'), ...attributes } } });
const accessBody = (access: Record<string, boolean>) => ({ data: { type: 'teams', attributes: { 'organization-access': access } } });
const members = (...usernames: string[]) => ({ data: usernames.map((id) => ({ type: 'users', id })) });
const grantBody = (access: string, attributes: Record<string, unknown> = {}) => ({ data: { type: 'team-projects', attributes: { access, ...attributes } } });

/** A visible team made by the owner, with `access` and no members. */
async function team(ctx: TestContext, org: Org, access: Record<string, boolean> = {}): Promise<string> {
  const res = await ctx.post(
    `/api/v2/organizations/${org.name}/teams`,
    org.owner.token,
    teamBody({ visibility: 'organization', 'organization-access': access }),
  );
  assertStatus(res, 200);
  return res.body.data.id;
}

async function memberIds(ctx: TestContext, org: Org, teamId: string): Promise<string[]> {
  return (await ctx.get(`/api/v2/teams/${teamId}`, org.owner.token)).body.data.relationships.users.data.map((u: { id: string }) => u.id);
}

suite('no escalation: nobody gives what it does not hold', (ctx) => {
  it('refuses a team manager who adds itself to a team holding manage-organization-access, which it would use to grant itself anything', async () => {
    const org = await ctx.organization();
    const manager = await ctx.member(org, { 'manage-teams': true });
    const granting = await team(ctx, org, { 'manage-teams': true, 'manage-organization-access': true });
    const refused = assertError(await ctx.post(`/api/v2/teams/${granting}/relationships/users`, manager.token, members(manager.username)), 403);
    assert.match(refused.detail!, /do not hold: manage-organization-access$/);
    assert.deepEqual(await memberIds(ctx, org, granting), []);
    // So it still cannot give its own team anything.
    assertError(await ctx.patch(`/api/v2/teams/${manager.teamId}`, manager.token, accessBody({ 'manage-projects': true })), 403);
    assertError(await ctx.post(`/api/v2/organizations/${org.name}/projects`, manager.token, { data: { type: 'projects', attributes: { name: 'mine' } } }), 403);
  });

  it('refuses a manage-membership member who adds itself, or anyone, to a team holding manage-projects', async () => {
    const org = await ctx.organization();
    const membership = await ctx.member(org, { 'manage-membership': true });
    const projects = await team(ctx, org, { 'manage-projects': true, 'read-workspaces': true });
    const refused = assertError(await ctx.post(`/api/v2/teams/${projects}/relationships/users`, membership.token, members(membership.username)), 403);
    assert.match(refused.detail!, /manage-projects/);
    assert.match(refused.detail!, /read-workspaces/);
    const someone = await ctx.user();
    assertError(await ctx.post(`/api/v2/teams/${projects}/relationships/users`, membership.token, members(someone.username)), 403);
    assert.deepEqual(await memberIds(ctx, org, projects), []);
    assertError(
      await ctx.post(`/api/v2/organizations/${org.name}/projects`, membership.token, { data: { type: 'projects', attributes: { name: 'mine' } } }),
      403,
    );
  });

  it('refuses a team manager who adds itself to a team with admin access to a project it cannot touch', async () => {
    const org = await ctx.organization();
    const manager = await ctx.member(org, { 'manage-teams': true });
    const project = await createProject(ctx, org);
    const admins = await team(ctx, org);
    await grant(ctx, org, admins, project.id, 'admin');
    const refused = assertError(await ctx.post(`/api/v2/teams/${admins}/relationships/users`, manager.token, members(manager.username)), 403);
    assert.match(refused.detail!, new RegExp(`on project ${project.id}: project-access\\.settings delete`));
    assertError(await ctx.delete(`/api/v2/projects/${project.id}`, manager.token), 404);
    // Holding that access itself, the same manager may.
    await grant(ctx, org, manager.teamId, project.id, 'admin');
    assertStatus(await ctx.post(`/api/v2/teams/${admins}/relationships/users`, manager.token, members(manager.username)), 204);
  });

  it('refuses a custom teams: manage grant that raises itself to admin, and so never changes or deletes the project', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const custom = await ctx.member(org);
    const own = await grant(ctx, org, custom.teamId, project.id, 'custom', { 'project-access': { teams: 'manage' } });
    const refused = assertError(await ctx.patch(`/api/v2/team-projects/${own.id}`, custom.token, grantBody('admin')), 403);
    assert.match(refused.detail!, /project-access\.settings delete/);
    assert.match(refused.detail!, /workspace-access\.move/);
    assert.match(refused.detail!, /access admin/);
    assertError(await ctx.patch(`/api/v2/team-projects/${own.id}`, custom.token, grantBody('custom', { 'project-access': { settings: 'delete' } })), 403);
    const after = (await ctx.get(`/api/v2/team-projects/${own.id}`, org.owner.token)).body.data.attributes;
    assert.equal(after.access, 'custom');
    assert.equal(after['project-access'].settings, 'read');
    assertError(await ctx.patch(`/api/v2/projects/${project.id}`, custom.token, { data: { type: 'projects', attributes: { name: 'taken-over' } } }), 403);
    assertError(await ctx.delete(`/api/v2/projects/${project.id}`, custom.token), 403);
  });

  it('refuses a custom teams: manage grant that gives another team more than it holds, new or raised', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const custom = await ctx.member(org);
    await grant(ctx, org, custom.teamId, project.id, 'custom', { 'project-access': { teams: 'manage' } });
    // Another team the same user is on: a way to admin through the back door.
    const second = await team(ctx, org);
    assertStatus(await ctx.post(`/api/v2/teams/${second}/relationships/users`, org.owner.token, members(custom.username)), 204);
    assertError(await ctx.post('/api/v2/team-projects', custom.token, teamProjectBody(second, project.id, 'admin')), 403);
    const other = await team(ctx, org);
    const existing = await grant(ctx, org, other, project.id, 'read');
    assertError(await ctx.patch(`/api/v2/team-projects/${existing.id}`, custom.token, grantBody('admin')), 403);
    // Maintain and a custom grant with the same values differ in what the level allows.
    const values = {
      'workspace-access': {
        runs: 'apply',
        'sentinel-mocks': 'read',
        'state-versions': 'write',
        variables: 'write',
        create: true,
        locking: true,
        delete: true,
        'run-tasks': true,
      },
    };
    const maintainer = await ctx.member(org);
    await grant(ctx, org, maintainer.teamId, project.id, 'custom', { 'project-access': { teams: 'manage' }, ...values });
    const level = assertError(await ctx.patch(`/api/v2/team-projects/${existing.id}`, maintainer.token, grantBody('maintain')), 403);
    assert.match(level.detail!, /access maintain$/);
    assert.equal((await ctx.get(`/api/v2/team-projects/${existing.id}`, org.owner.token)).body.data.attributes.access, 'read');
  });

  it('lets a custom teams: manage grant give what it holds, lower grants and remove them', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const custom = await ctx.member(org);
    await grant(ctx, org, custom.teamId, project.id, 'custom', { 'project-access': { teams: 'read' } });
    // A second grant on another of its teams: the highest value of each permission counts.
    const second = await ctx.member(org);
    assertStatus(await ctx.post(`/api/v2/teams/${second.teamId}/relationships/users`, org.owner.token, members(custom.username)), 204);
    await grant(ctx, org, second.teamId, project.id, 'custom', {
      'project-access': { teams: 'manage' },
      'workspace-access': { 'state-versions': 'read', variables: 'read' },
    });
    const other = await team(ctx, org);
    const given = await ctx.post('/api/v2/team-projects', custom.token, teamProjectBody(other, project.id, 'read'));
    assertStatus(given, 201);
    const admin = await grant(ctx, org, await team(ctx, org), project.id, 'admin');
    assertStatus(await ctx.patch(`/api/v2/team-projects/${admin.id}`, custom.token, grantBody('read')), 200);
    assertStatus(await ctx.delete(`/api/v2/team-projects/${given.body.data.id}`, custom.token), 204);
  });

  it('refuses manage-organization-access to give a flag it does not hold, and allows those it holds and taking any away', async () => {
    const org = await ctx.organization();
    const granter = await ctx.member(org, { 'manage-teams': true, 'manage-organization-access': true });
    const refused = assertError(await ctx.patch(`/api/v2/teams/${granter.teamId}`, granter.token, accessBody({ 'manage-policies': true })), 403);
    assert.match(refused.detail!, /do not hold: manage-policies$/);
    const url = `/api/v2/organizations/${org.name}/teams`;
    assertError(await ctx.post(url, granter.token, teamBody({ 'organization-access': { 'manage-agent-pools': true } })), 403);
    // What it holds, implied flags included (managing teams covers membership).
    const made = await ctx.post(
      url,
      granter.token,
      teamBody({ visibility: 'organization', 'organization-access': { 'manage-teams': true, 'manage-membership': true } }),
    );
    assertStatus(made, 200);
    const loaded = await team(ctx, org, { 'manage-policies': true, 'manage-teams': true });
    const lowered = await ctx.patch(`/api/v2/teams/${loaded}`, granter.token, accessBody({ 'manage-policies': false }));
    assertStatus(lowered, 200);
    assert.equal(lowered.body.data.attributes['organization-access']['manage-policies'], false);
  });

  it('lets members add users to teams whose every permission they hold, and anyone with membership rights remove users', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const lead = await ctx.member(org, { 'manage-membership': true, 'manage-policies': true });
    await grant(ctx, org, lead.teamId, project.id, 'maintain');
    const policies = await team(ctx, org, { 'manage-policies': true });
    await grant(ctx, org, policies, project.id, 'write');
    const someone = await ctx.user();
    assertStatus(await ctx.post(`/api/v2/teams/${policies}/relationships/users`, lead.token, members(someone.username)), 204);
    // Its own team holds nothing it lacks.
    const colleague = await ctx.user();
    assertStatus(await ctx.post(`/api/v2/teams/${lead.teamId}/relationships/users`, lead.token, members(colleague.username)), 204);
    // Taking users off a team gives nothing.
    const projects = await team(ctx, org, { 'manage-projects': true });
    assertStatus(await ctx.post(`/api/v2/teams/${projects}/relationships/users`, org.owner.token, members(someone.username)), 204);
    assertStatus(await ctx.delete(`/api/v2/teams/${projects}/relationships/users`, lead.token, members(someone.username)), 204);
  });

  it('lets owners, site admins and the organization token give anything', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const admin = await ctx.user({ siteAdmin: true });
    const token = (await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, { data: { type: 'authentication-token' } })).body
      .data.attributes.token;
    for (const caller of [org.owner.token, admin.token, token]) {
      const full = await team(ctx, org, { 'manage-organization-access': true, 'manage-projects': true });
      const user = await ctx.user();
      assertStatus(await ctx.post(`/api/v2/teams/${full}/relationships/users`, caller, members(user.username)), 204);
      assertStatus(await ctx.patch(`/api/v2/teams/${full}`, caller, accessBody({ 'manage-policies': true })), 200);
      assertStatus(await ctx.post('/api/v2/team-projects', caller, teamProjectBody(full, project.id, 'admin')), 201);
    }
  });
});

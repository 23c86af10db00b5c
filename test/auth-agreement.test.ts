// The SQL half of each visibility rule in auth/ selects exactly the rows the JavaScript half lets
// a caller see: organizations, teams and a project's team grants, for every kind of caller.
// (Projects and workspaces: projects-permissions.test.ts compares list filters with each
// project's permissions through HTTP.)
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Caller } from '../src/auth/caller.ts';
import { organizationFilter } from '../src/auth/organization.ts';
import { projectAuthority } from '../src/auth/project-scope.ts';
import { seesTeam, seesTeamGrant, teamFilter, teamGrantFilter } from '../src/auth/teams.ts';
import { listOrganizations } from '../src/organizations/store.ts';
import { grantsOf, listTeamProjects } from '../src/team-projects/store.ts';
import { listTeams } from '../src/teams/store.ts';
import { suite, unique } from './helpers/harness.ts';
import { createProject, grant } from './helpers/projects.ts';

const ALL = { offset: 0, size: 1000 };

suite('auth: the SQL and JavaScript halves of each rule agree', (ctx) => {
  it('for organizations, teams and team grants, whoever asks', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const secretMember = await ctx.member(org);
    const make = (visibility: string) =>
      ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, { data: { type: 'teams', attributes: { name: unique('t'), visibility } } });
    await make('secret');
    await make('organization');
    const project = await createProject(ctx, org);
    const withGrant = await ctx.member(org);
    await grant(ctx, org, withGrant.teamId, project.id, 'read');
    await grant(ctx, org, secretMember.teamId, project.id, 'admin');
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, { data: { type: 'authentication-token' } });

    const callers = [
      org.owner.token,
      other.owner.token,
      secretMember.token,
      withGrant.token,
      (await ctx.member(org)).token,
      (await ctx.member(org, { 'access-secret-teams': true })).token,
      (await ctx.member(org, { 'manage-teams': true })).token,
      (await ctx.user({ siteAdmin: true })).token,
      orgToken.body.data.attributes.token as string,
    ];
    const db = ctx.database.db;
    const orgRow = await db.selectFrom('organizations').select(['id', 'name']).where('name', '=', org.name).executeTakeFirstOrThrow();
    const allOrgs = (await listOrganizations(db, null, {}, ALL)).items;
    const allTeams = (await listTeams(db, { organizationId: orgRow.id, visible: null }, ALL)).items.map((t) => t.team);
    const allGrants = (await listTeamProjects(db, { projectId: project.id, visible: null }, ALL)).items;
    const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();

    for (const token of callers) {
      const { authenticate } = ctx.services.tokens;
      const principal = (await authenticate.later(authenticate.digest(token)!))!;
      const caller = new Caller(principal, ctx.services.teams.grants);

      const standings = await caller.standings(allOrgs);
      // The memberships read with the token are the same rule again, in the authentication query.
      assert.deepEqual(
        allOrgs.map((o) => caller.mayBelongTo(o.id)),
        standings.map((s) => s.member),
        'memberships known at authentication',
      );
      const sqlOrgs = (await listOrganizations(db, organizationFilter(principal), {}, ALL)).items;
      assert.deepEqual(ids(sqlOrgs), ids(allOrgs.filter((_o, i) => standings[i]!.member)), 'organizations');

      const standing = await caller.standing(orgRow);
      if (!standing.member) continue;
      const sqlTeams = (await listTeams(db, { organizationId: orgRow.id, visible: teamFilter(standing) }, ALL)).items.map((t) => t.team);
      assert.deepEqual(ids(sqlTeams), ids(allTeams.filter((t) => seesTeam(standing, t))), 'teams');

      const grants = await grantsOf(db, standing.teamIds, [project.id]);
      const authority = projectAuthority(standing, { isDefault: false }, grants.get(project.id) ?? []);
      if (!authority.read) continue;
      const sqlGrants = (await listTeamProjects(db, { projectId: project.id, visible: teamGrantFilter(standing, authority) }, ALL)).items;
      assert.deepEqual(ids(sqlGrants), ids(allGrants.filter((g) => seesTeamGrant(standing, authority, g))), 'team grants');
    }
  });
});

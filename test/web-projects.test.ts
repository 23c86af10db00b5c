// The project pages, driven like a browser (forms with their tokens, cookies, redirects): the
// list with search, filters, sort and paging; create, edit, delete; moving workspaces in; team
// access; and what another organization or a person without access sees (the API's 404).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { createProject, createWorkspace, projectName } from './helpers/projects.ts';
import { signedIn, signedInOwner } from './helpers/web.ts';

const HOSTILE = `<script>alert("x")</script>'"&`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;';

suite('web: projects', (ctx) => {
  it('lists projects with search, a filter, sort and paging', async () => {
    const { org, client } = await signedInOwner(ctx);
    const names: string[] = [];
    for (let i = 0; i < 22; i++) names.push((await createProject(ctx, org, { name: `web-list-${String(i).padStart(2, '0')}` })).attributes.name);
    const first = await client.get(`/app/${org.name}/projects`);
    assert.equal(first.status, 200);
    assert.match(first.body, /Page 1 of 2 \(23 projects\)/);
    assert.match(first.body, /rel="next"/);
    const second = await client.get(`/app/${org.name}/projects?page=2`);
    assert.match(second.body, /Page 2 of 2/);
    const searched = await client.get(`/app/${org.name}/projects?q=list-0`);
    assert.match(searched.body, /\(10 projects\)/);
    assert.match(searched.body, /value="list-0"/);
    const sorted = await client.get(`/app/${org.name}/projects?sort=-name&q=web-list`);
    assert.ok(sorted.body.indexOf('web-list-21') < sorted.body.indexOf('web-list-20'));
    assert.ok(!sorted.body.includes('web-list-00'), 'the last of 22 is on page 2');
    const filtered = await client.get(`/app/${org.name}/projects?filter=update&sort=name`);
    assert.match(filtered.body, /\(23 projects\)/);
    // The pager keeps the other query values.
    assert.match(first.body, /href="\/app\/[^"]+\/projects\?page=2"/);
    const withQuery = await client.get(`/app/${org.name}/projects?q=web&sort=name`);
    assert.match(withQuery.body, /href="[^"]*\?q=web&amp;sort=name&amp;page=2"/);
  });

  it('creates a project from the form, shows errors in the form, edits and deletes it', async () => {
    const { org, client } = await signedInOwner(ctx);
    const name = projectName('web');
    const bad = await client.post(`/app/${org.name}/projects`, { name: 'x', description: '' }, { from: `/app/${org.name}/projects/new` });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /aria-invalid="true"/);
    assert.match(bad.body, /Name is too short/);
    const created = await client.post(`/app/${org.name}/projects`, { name, description: 'first' }, { from: `/app/${org.name}/projects/new` });
    assert.equal(created.status, 303);
    const page = await client.get(created.location!);
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`<h1>${name}</h1>`));
    assert.match(page.body, new RegExp(`Project ${name} created.`));
    const id = created.location!.split('/').pop()!;
    const renamed = `${name}-2`.slice(0, 40);
    const saved = await client.post(`/app/${org.name}/projects/${id}`, { name: renamed, description: 'second' });
    assert.equal(saved.status, 303);
    const api = await ctx.get(`/api/v2/projects/${id}`, org.owner.token);
    assert.equal(api.body.data.attributes.name, renamed);
    assert.equal(api.body.data.attributes.description, 'second');
    const deleted = await client.post(`/app/${org.name}/projects/${id}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal((await ctx.get(`/api/v2/projects/${id}`, org.owner.token)).status, 404);
  });

  it('refuses to delete a project with workspaces, with the reason in a flash', async () => {
    const { org, client } = await signedInOwner(ctx);
    const project = await createProject(ctx, org);
    await createWorkspace(ctx, org, project.id);
    const res = await client.post(`/app/${org.name}/projects/${project.id}/delete`, {});
    assert.equal(res.status, 303);
    const page = await client.get(res.location!);
    assert.match(page.body, /role="alert">The project still contains workspaces/);
  });

  it('moves workspaces into a project and gives and removes team access', async () => {
    const { org, client } = await signedInOwner(ctx);
    const project = await createProject(ctx, org);
    const ws1 = await createWorkspace(ctx, org);
    const ws2 = await createWorkspace(ctx, org);
    const page = await client.get(`/app/${org.name}/projects/${project.id}`);
    assert.match(page.body, new RegExp(`value="${ws1.id}"`));
    const moved = await client.post(`/app/${org.name}/projects/${project.id}/move`, { workspace: [ws1.id, ws2.id] });
    assert.equal(moved.status, 303);
    for (const ws of [ws1, ws2]) {
      const shown = await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token);
      assert.equal(shown.body.data.relationships.project.data.id, project.id);
    }
    assert.match((await client.get(moved.location!)).body, /2 workspaces moved\./);

    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: unique('team'), 'organization-access': {} } },
    });
    const given = await client.post(`/app/${org.name}/projects/${project.id}/team-access`, { team: team.body.data.id, access: 'write' });
    assert.equal(given.status, 303);
    const grants = await ctx.get(`/api/v2/team-projects?filter[project][id]=${project.id}`, org.owner.token);
    assert.equal(grants.body.data.length, 1);
    assert.equal(grants.body.data[0].attributes.access, 'write');
    const removed = await client.post(`/app/${org.name}/projects/${project.id}/team-access/${grants.body.data[0].id}/delete`, {});
    assert.equal(removed.status, 303);
    assert.equal((await ctx.get(`/api/v2/team-projects?filter[project][id]=${project.id}`, org.owner.token)).body.data.length, 0);
  });

  it('answers another organization’s project, or one the person may not see, with the same 404 page', async () => {
    const { org } = await signedInOwner(ctx);
    const project = await createProject(ctx, org);
    const stranger = (await signedIn(ctx)).client;
    const theirs = await stranger.get(`/app/${org.name}/projects/${project.id}`);
    assert.equal(theirs.status, 404);
    assert.match(theirs.body, /<h1>Not found<\/h1>/);
    const absent = await stranger.get(`/app/${org.name}/projects/prj-doesnotexist00000`);
    assert.equal(absent.status, 404);
    assert.equal(absent.body.replace(/value="[^"]*"/g, ''), theirs.body.replace(/value="[^"]*"/g, ''));
    // Named under an organization the project is not in: 404 too, even for its owner.
    const { org: other, client: otherOwner } = await signedInOwner(ctx);
    assert.equal((await otherOwner.get(`/app/${other.name}/projects/${project.id}`)).status, 404);
    const write = await stranger.post(`/app/${org.name}/projects/${project.id}/delete`, {});
    assert.equal(write.status, 404);
    assert.equal((await ctx.get(`/api/v2/projects/${project.id}`, org.owner.token)).status, 200);
  });

  it('shows what people typed as text: descriptions and searches with markup and quotes', async () => {
    const { org, client } = await signedInOwner(ctx);
    const project = await createProject(ctx, org, { description: HOSTILE });
    const list = await client.get(`/app/${org.name}/projects`);
    assert.ok(!list.body.includes(HOSTILE) && list.body.includes(ESCAPED));
    const page = await client.get(`/app/${org.name}/projects/${project.id}`);
    assert.ok(!page.body.includes('<script>alert'), 'raw markup on the page');
    assert.ok(page.body.includes(ESCAPED));
    const search = await client.get(`/app/${org.name}/projects?q=${encodeURIComponent(HOSTILE)}`);
    assert.ok(!search.body.includes('<script>alert') && search.body.includes(`value="${ESCAPED}"`));
  });
});

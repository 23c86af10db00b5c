// Variable sets: their TFE shape, lists (organization, workspace, project), applying them to
// workspaces and projects, their variables, validation and permissions. Precedence: variables.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';
import { projectRefs, workspaceRefs } from './helpers/policy-sets.ts';
import { createSet, createSetVariable, varBody, varUpdate } from './helpers/variables.ts';

const setBody = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type: 'varsets', attributes, ...(relationships ? { relationships } : {}) },
});

suite('variable sets', (ctx) => {
  const setsOf = (org: string) => `/api/v2/organizations/${org}/varsets`;

  it('creates a set with the TFE shape; create, show and list agree', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const res = await ctx.post(setsOf(org.name), t, setBody({ name: 'aws creds', description: 'keys', global: false, priority: true }));
    assertStatus(res, 201);
    const s = res.body.data;
    assert.match(s.id, /^varset-[0-9A-Za-z]{16}$/);
    assert.deepEqual(res.body, {
      data: {
        id: s.id,
        type: 'varsets',
        attributes: {
          name: 'aws creds',
          description: 'keys',
          global: false,
          priority: true,
          'updated-at': s.attributes['updated-at'],
          'var-count': 0,
          'workspace-count': 0,
          'project-count': 0,
        },
        relationships: {
          organization: { data: { id: org.name, type: 'organizations' }, links: { related: `/api/v2/organizations/${org.name}` } },
          parent: { data: { id: org.name, type: 'organizations' }, links: { related: `/api/v2/organizations/${org.name}` } },
          workspaces: { data: [] },
          projects: { data: [] },
          vars: { data: [] },
        },
        links: { self: `/api/v2/varsets/${s.id}` },
      },
    });
    assert.deepEqual((await ctx.get(`/api/v2/varsets/${s.id}`, t)).body, res.body);
    const list = await ctx.get(setsOf(org.name), t);
    assert.deepEqual(list.body.data, [s]);
    assert.equal(list.body.meta.pagination['total-count'], 1);
  });

  it('lists in creation order with pages, and searches by a part of the name', async () => {
    const org = await ctx.organization();
    const names = ['zz-prod', 'aa-staging', 'mm-prod-eu'];
    for (const name of names) await createSet(ctx, org, { name });
    const t = org.owner.token;
    assert.deepEqual(
      (await ctx.get(setsOf(org.name), t)).body.data.map((s: any) => s.attributes.name),
      names,
    );
    assert.deepEqual(
      (await ctx.get(`${setsOf(org.name)}?q=PROD`, t)).body.data.map((s: any) => s.attributes.name),
      ['zz-prod', 'mm-prod-eu'],
    );
    const page = await ctx.get(`${setsOf(org.name)}?page[size]=2&page[number]=2`, t);
    assert.deepEqual(
      page.body.data.map((s: any) => s.attributes.name),
      ['mm-prod-eu'],
    );
    assert.equal(page.body.meta.pagination['total-count'], 3);
    const far = await ctx.get(`${setsOf(org.name)}?page[number]=999&page[size]=100&include=`, t);
    assert.deepEqual(far.body.data, []);
    assertError(await ctx.get(`${setsOf(org.name)}?include=bogus`, t), 400);
    assertError(await ctx.get(`${setsOf(org.name)}?page[size]=x`, t), 400);
  });

  it('lists with a fixed number of queries, however many sets and links a page holds', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const url = `${setsOf(org.name)}?page[size]=50`;
    const more = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const s = await createSet(ctx, org);
        await createSetVariable(ctx, t, s.id, { key: 'k' });
        assertStatus(await ctx.post(`/api/v2/varsets/${s.id}/relationships/workspaces`, t, workspaceRefs(ws.id)), 204);
      }
    };
    await more(2);
    await ctx.get(url, t);
    const few = await ctx.countQueries(() => ctx.get(url, t));
    await more(6);
    const many = await ctx.countQueries(() => ctx.get(url, t));
    assert.equal(many.queries, few.queries);
  });

  it('applies to and is removed from workspaces and projects; the workspace and project lists follow', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const project = await createProject(ctx, org);
    const ws1 = await createWorkspace(ctx, org, project.id);
    const ws2 = await createWorkspace(ctx, org);
    const s = await createSet(ctx, org);
    const global = await createSet(ctx, org, { global: true });
    const rel = (what: string) => `/api/v2/varsets/${s.id}/relationships/${what}`;
    assertStatus(await ctx.post(rel('workspaces'), t, workspaceRefs(ws1.id, ws2.id, ws1.id)), 204);
    assertStatus(await ctx.post(rel('projects'), t, projectRefs(project.id)), 204);
    const shown = (await ctx.get(`/api/v2/varsets/${s.id}`, t)).body.data;
    assert.deepEqual(shown.relationships.workspaces.data.map((w: any) => w.id).sort(), [ws1.id, ws2.id].sort());
    assert.deepEqual(shown.relationships.projects.data, [{ id: project.id, type: 'projects' }]);
    assert.equal(shown.attributes['workspace-count'], 2);
    // A workspace's list holds the sets applied to it, to its project, and the global ones.
    const forWs = await ctx.get(`/api/v2/workspaces/${ws1.id}/varsets`, t);
    assert.deepEqual(
      forWs.body.data.map((x: any) => x.id),
      [s.id, global.id],
    );
    assert.deepEqual(
      (await ctx.get(`/api/v2/projects/${project.id}/varsets`, t)).body.data.map((x: any) => x.id),
      [s.id],
    );

    assertStatus(await ctx.delete(rel('workspaces'), t, workspaceRefs(ws1.id)), 204);
    assertStatus(await ctx.delete(rel('projects'), t, projectRefs(project.id)), 204);
    const after = (await ctx.get(`/api/v2/varsets/${s.id}`, t)).body.data;
    assert.deepEqual(after.relationships.workspaces.data, [{ id: ws2.id, type: 'workspaces' }]);
    assert.deepEqual(after.relationships.projects.data, []);
    assert.deepEqual(
      (await ctx.get(`/api/v2/workspaces/${ws1.id}/varsets`, t)).body.data.map((x: any) => x.id),
      [global.id],
    );

    // PATCH with relationships replaces the lists (go-tfe's UpdateWorkspaces).
    const replaced = await ctx.patch(`/api/v2/varsets/${s.id}?include=workspaces`, t, setBody({ global: false }, { workspaces: workspaceRefs(ws1.id) }));
    assertStatus(replaced, 200);
    assert.deepEqual(replaced.body.data.relationships.workspaces.data, [{ id: ws1.id, type: 'workspaces' }]);
    const emptied = await ctx.patch(`/api/v2/varsets/${s.id}`, t, setBody({}, { workspaces: { data: [] } }));
    assert.deepEqual(emptied.body.data.relationships.workspaces.data, []);
  });

  it('refuses workspaces and projects of another organization with 422 at each one, and changes nothing', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const t = org.owner.token;
    const s = await createSet(ctx, org);
    const mine = await createWorkspace(ctx, org);
    const theirs = await createWorkspace(ctx, other);
    const theirProject = await createProject(ctx, other);
    const rel = (what: string) => `/api/v2/varsets/${s.id}/relationships/${what}`;
    assertError(await ctx.post(rel('workspaces'), t, workspaceRefs(mine.id, theirs.id)), 422, '/data/1/id');
    assertError(await ctx.post(rel('projects'), t, projectRefs(theirProject.id)), 422, '/data/0/id');
    assertError(await ctx.post(rel('workspaces'), t, { data: [] }), 422, '/data');
    assertError(await ctx.post(rel('workspaces'), t, { data: [{ type: 'projects', id: mine.id }] }), 422, '/data/0/type');
    assertError(
      await ctx.post(setsOf(org.name), t, setBody({ name: unique('s') }, { workspaces: workspaceRefs(theirs.id) })),
      422,
      '/data/relationships/workspaces/data/0/id',
    );
    assert.deepEqual((await ctx.get(`/api/v2/varsets/${s.id}`, t)).body.data.relationships.workspaces.data, []);
  });

  it('validates create and update bodies with 422 at the pointer', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const s = await createSet(ctx, org, { name: 'taken' });
    assertError(await ctx.post(setsOf(org.name), t, setBody({ name: 'taken' })), 422, '/data/attributes/name');
    assertError(await ctx.post(setsOf(org.name), t, setBody({ name: '' })), 422, '/data/attributes/name');
    assertError(await ctx.post(setsOf(org.name), t, setBody({ name: '  ' })), 422, '/data/attributes/name');
    assertError(await ctx.post(setsOf(org.name), t, setBody({ global: true })), 422, '/data/attributes/name');
    assertError(await ctx.post(setsOf(org.name), t, setBody({ name: 'x', global: 'yes' })), 422, '/data/attributes/global');
    assertError(await ctx.post(setsOf(org.name), t, setBody({ name: 'x', description: 'd'.repeat(513) })), 422, '/data/attributes/description');
    assertError(
      await ctx.post(setsOf(org.name), t, setBody({ name: 'x' }, { parent: { data: { type: 'projects', id: 'prj-0000000000000000' } } })),
      422,
      '/data/relationships/parent/data/id',
    );
    assertError(await ctx.patch(`/api/v2/varsets/${s.id}`, t, setBody({ name: '' })), 422, '/data/attributes/name');
    const second = await createSet(ctx, org);
    assertError(await ctx.patch(`/api/v2/varsets/${second.id}`, t, setBody({ name: 'taken' })), 422, '/data/attributes/name');
    assertError(await ctx.request('POST', setsOf(org.name), { token: t, body: setBody({ name: 'y' }), contentType: 'application/json' }), 415);
    assertError(await ctx.get('/api/v2/varsets/varset-0000000000000000', t), 404);
    assertError(await ctx.get('/api/v2/varsets/nonexisting', t), 404);
    assert.equal((await ctx.get(setsOf(org.name), t)).body.meta.pagination['total-count'], 2);
  });

  it('updates attributes and deletes the set with its variables', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const s = await createSet(ctx, org, { name: 'Original', description: 'old' });
    const v = await createSetVariable(ctx, t, s.id, { key: 'k', value: 'v' });
    const updated = await ctx.patch(`/api/v2/varsets/${s.id}`, t, setBody({ name: 'Updated', description: 'new', global: true, priority: true }));
    assertStatus(updated, 200);
    assert.deepEqual(
      [updated.body.data.attributes.name, updated.body.data.attributes.description, updated.body.data.attributes.global, updated.body.data.attributes.priority],
      ['Updated', 'new', true, true],
    );
    assert.deepEqual(updated.body.data.relationships.vars.data, [{ id: v.id, type: 'vars' }]);
    assertStatus(await ctx.delete(`/api/v2/varsets/${s.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/varsets/${s.id}`, t), 404);
    assert.equal(await ctx.database.db.selectFrom('variables').select('id').where('id', '=', v.id).executeTakeFirst(), undefined);
  });

  it("keeps the set's variables: shape, list, update, delete; keys unique per category", async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const s = await createSet(ctx, org);
    const varsOf = `/api/v2/varsets/${s.id}/relationships/vars`;
    const created = await ctx.post(varsOf, t, varBody({ key: 'TF_LOG', value: 'debug', category: 'env', description: 'logging' }));
    assertStatus(created, 201);
    const v = created.body.data;
    assert.deepEqual(v.relationships, { varset: { data: { id: s.id, type: 'varsets' }, links: { related: `/api/v2/varsets/${s.id}` } } });
    assert.equal(v.links.self, `${varsOf}/${v.id}`);
    assert.deepEqual((await ctx.get(`${varsOf}/${v.id}`, t)).body, created.body);
    assert.deepEqual((await ctx.get(varsOf, t)).body, { data: [v] });
    assertError(await ctx.post(varsOf, t, varBody({ key: 'TF_LOG', category: 'env' })), 422, '/data/attributes/key');
    assertStatus(await ctx.post(varsOf, t, varBody({ key: 'TF_LOG', category: 'terraform' })), 201);
    const updated = await ctx.patch(`${varsOf}/${v.id}`, t, varUpdate({ value: 'trace', hcl: true }));
    assertStatus(updated, 200);
    assert.deepEqual([updated.body.data.attributes.value, updated.body.data.attributes.hcl], ['trace', true]);
    assert.notEqual(updated.body.data.attributes['version-id'], v.attributes['version-id']);
    // A variable of the set is not one of another set, nor of a workspace.
    const other = await createSet(ctx, org);
    assertError(await ctx.get(`/api/v2/varsets/${other.id}/relationships/vars/${v.id}`, t), 404);
    assertStatus(await ctx.delete(`${varsOf}/${v.id}`, t), 204);
    assertError(await ctx.delete(`${varsOf}/${v.id}`, t), 404);
  });

  it('lets a project own sets: its admins manage them, within the project only', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const elsewhere = await createProject(ctx, org);
    const inside = await createWorkspace(ctx, org, project.id);
    const outside = await createWorkspace(ctx, org, elsewhere.id);
    const admin = await ctx.member(org);
    await grant(ctx, org, admin.teamId, project.id, 'admin');
    const parent = { parent: { data: { type: 'projects', id: project.id } } };

    const res = await ctx.post(setsOf(org.name), admin.token, setBody({ name: unique('prj-set'), global: false }, parent));
    assertStatus(res, 201);
    const s = res.body.data;
    assert.deepEqual(s.relationships.parent.data, { id: project.id, type: 'projects' });
    assertStatus(await ctx.post(`/api/v2/varsets/${s.id}/relationships/workspaces`, admin.token, workspaceRefs(inside.id)), 204);
    // Not into workspaces or projects its managers may not hold.
    assertError(await ctx.post(`/api/v2/varsets/${s.id}/relationships/workspaces`, admin.token, workspaceRefs(outside.id)), 422, '/data/0/id');
    assertError(await ctx.post(`/api/v2/varsets/${s.id}/relationships/projects`, org.owner.token, projectRefs(elsewhere.id)), 422, '/data/0/id');
    assertError(await ctx.post(setsOf(org.name), admin.token, setBody({ name: unique('g'), global: true }, parent)), 422, '/data/attributes/global');
    await createSetVariable(ctx, admin.token, s.id, { key: 'k' });
    // The project admin holds nothing over the organization's own sets.
    assertError(await ctx.post(setsOf(org.name), admin.token, setBody({ name: unique('o') })), 403);
    assertError(await ctx.get(setsOf(org.name), admin.token), 403);
    assert.deepEqual(
      (await ctx.get(`/api/v2/projects/${project.id}/varsets`, admin.token)).body.data.map((x: any) => x.id),
      [s.id],
    );
    // It goes with its project.
    assertStatus(await ctx.delete(`/api/v2/workspaces/${inside.id}`, org.owner.token), 204);
    assertStatus(await ctx.delete(`/api/v2/projects/${project.id}`, org.owner.token), 204);
    assertError(await ctx.get(`/api/v2/varsets/${s.id}`, org.owner.token), 404);
  });

  it('answers another organization 404, read-only members 403, no token 401', async () => {
    const org = await ctx.organization();
    const s = await createSet(ctx, org);
    const v = await createSetVariable(ctx, org.owner.token, s.id, { key: 'k' });
    const outsider = (await ctx.organization()).owner;
    const reader = await ctx.member(org, { 'read-workspaces': true });
    const plain = await ctx.member(org);
    for (const res of [
      await ctx.get(`/api/v2/varsets/${s.id}`, outsider.token),
      await ctx.patch(`/api/v2/varsets/${s.id}`, outsider.token, setBody({ name: 'x' })),
      await ctx.get(`/api/v2/varsets/${s.id}/relationships/vars/${v.id}`, outsider.token),
      await ctx.get(setsOf(org.name), outsider.token),
    ])
      assertError(res, 404);
    assertStatus(await ctx.get(`/api/v2/varsets/${s.id}/relationships/vars`, reader.token), 200);
    assertError(await ctx.patch(`/api/v2/varsets/${s.id}`, reader.token, setBody({ name: 'x' })), 403);
    assertError(await ctx.post(`/api/v2/varsets/${s.id}/relationships/vars`, reader.token, varBody({ key: 'new' })), 403);
    assertError(await ctx.get(`/api/v2/varsets/${s.id}`, plain.token), 403);
    assertError(await ctx.get(`/api/v2/varsets/${s.id}`, null), 401);
    assert.equal((await ctx.get(`/api/v2/varsets/${s.id}`, org.owner.token)).body.data.attributes.name, s.attributes.name);
  });
});

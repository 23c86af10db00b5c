import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createParameter, createPolicySet, newProject, policySetBody, projectRefs } from './helpers/policy-sets.ts';

const ID = /^polset-[0-9A-Za-z]{16}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

suite('policy sets', (ctx) => {
  const setsOf = (org: string) => `/api/v2/organizations/${org}/policy-sets`;

  it('creates a policy set with TFE defaults, ignoring attributes and relationships it does not model', async () => {
    const org = await ctx.organization();
    const name = unique('guardrails');
    const body = policySetBody(
      name,
      { description: 'Org-wide rules', 'policies-path': 'policies/', 'policy-update-pattern': ['x'] },
      { 'vcs-repo': { data: null } },
    );
    const res = await ctx.post(setsOf(org.name), org.owner.token, body);
    assertStatus(res, 201);
    const set = res.body.data;
    assert.match(set.id, ID);
    assert.equal(set.type, 'policy-sets');
    assert.equal(set.attributes.name, name);
    assert.equal(set.attributes.description, 'Org-wide rules');
    assert.equal(set.attributes.kind, 'sentinel');
    assert.equal(set.attributes.global, false);
    assert.equal(set.attributes.overridable, false);
    assert.equal(set.attributes['policy-count'], 0);
    assert.equal(set.attributes['workspace-count'], 0);
    assert.equal(set.attributes['project-count'], 0);
    assert.match(set.attributes['created-at'], TIMESTAMP);
    assert.equal(set.attributes['updated-at'], set.attributes['created-at']);
    assert.deepEqual(set.relationships.organization, {
      data: { id: org.name, type: 'organizations' },
      links: { related: `/api/v2/organizations/${org.name}` },
    });
    assert.deepEqual(set.relationships.projects, { data: [] });
    assert.deepEqual(set.relationships.workspaces, { data: [] });
    assert.deepEqual(set.relationships['workspace-exclusions'], { data: [] });
    assert.deepEqual(set.relationships.policies, { data: [] });
    assert.deepEqual(set.relationships['newest-version'], { data: null });
    assert.deepEqual(set.relationships['current-version'], { data: null });
    assert.equal(set.attributes.versioned, false);
    assert.equal(set.links.self, `/api/v2/policy-sets/${set.id}`);

    const shown = await ctx.get(`/api/v2/policy-sets/${set.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, set);
  });

  it('creates an OPA set attached to projects of the organization', async () => {
    const org = await ctx.organization();
    const other = await newProject(ctx, org);
    const res = await ctx.post(
      setsOf(org.name),
      org.owner.token,
      policySetBody(unique('opa'), { kind: 'opa', overridable: true, 'agent-enabled': true }, { projects: projectRefs(org.defaultProjectId, other) }),
    );
    assertStatus(res, 201);
    const a = res.body.data.attributes;
    assert.equal(a.kind, 'opa');
    assert.equal(a.overridable, true);
    assert.equal(a['agent-enabled'], true);
    assert.equal(a['project-count'], 2);
    assert.deepEqual(new Set(res.body.data.relationships.projects.data.map((p: any) => p.id)), new Set([org.defaultProjectId, other]));
    const shown = await ctx.get(`/api/v2/policy-sets/${res.body.data.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['project-count'], 2);
  });

  it('refuses bad bodies with 422 at the offending pointer and writes nothing', async () => {
    const org = await ctx.organization();
    const url = setsOf(org.name);
    const t = org.owner.token;
    assertError(await ctx.post(url, t, { data: { type: 'policy-sets', attributes: {} } }), 422, '/data/attributes/name');
    assertError(await ctx.post(url, t, { data: { type: 'policies', attributes: { name: 'x' } } }), 422, '/data/type');
    assertError(await ctx.post(url, t, policySetBody('bad name!')), 422, '/data/attributes/name');
    assertError(await ctx.post(url, t, policySetBody(unique('k'), { kind: 'rego' })), 422, '/data/attributes/kind');
    assertError(await ctx.post(url, t, policySetBody(unique('g'), { global: 'yes' })), 422, '/data/attributes/global');
    assertError(await ctx.post(url, t, policySetBody(unique('d'), { description: 5 })), 422, '/data/attributes/description');
    assertError(
      await ctx.post(url, t, policySetBody(unique('p'), {}, { projects: { data: [{ id: 'prj-x', type: 'workspaces' }] } })),
      422,
      '/data/relationships/projects/data/0/type',
    );
    const list = await ctx.get(url, t);
    assert.equal(list.body.meta.pagination['total-count'], 0);
  });

  it('refuses a duplicate name (case-insensitively), unknown or foreign projects, and projects on a global set', async () => {
    const org = await ctx.organization();
    const elsewhere = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const dup = assertError(await ctx.post(setsOf(org.name), org.owner.token, policySetBody(set.attributes.name.toUpperCase())), 422, '/data/attributes/name');
    assert.equal(dup.detail, 'Name has already been taken');

    // The same name in another organization is fine.
    assertStatus(await ctx.post(setsOf(elsewhere.name), elsewhere.owner.token, policySetBody(set.attributes.name)), 201);

    const res = await ctx.post(
      setsOf(org.name),
      org.owner.token,
      policySetBody(unique('p'), {}, { projects: projectRefs(org.defaultProjectId, 'prj-doesnotexist0000', elsewhere.defaultProjectId) }),
    );
    assertError(res, 422);
    assert.deepEqual(
      res.body.errors.map((e: any) => e.source.pointer),
      ['/data/relationships/projects/data/1/id', '/data/relationships/projects/data/2/id'],
    );
    assertError(
      await ctx.post(setsOf(org.name), org.owner.token, policySetBody(unique('g'), { global: true }, { projects: projectRefs(org.defaultProjectId) })),
      422,
      '/data/relationships/projects',
    );
    const list = await ctx.get(setsOf(org.name), org.owner.token);
    assert.equal(list.body.meta.pagination['total-count'], 1);
  });

  it('lists with pagination, search[name] and filter[kind]', async () => {
    const org = await ctx.organization();
    const prefix = unique('Team');
    await createPolicySet(ctx, org, { name: `${prefix}-alpha` });
    await createPolicySet(ctx, org, { name: `${prefix}-beta`, kind: 'opa' });
    await createPolicySet(ctx, org, { name: unique('other'), kind: 'opa' });

    const page = await ctx.get(`${setsOf(org.name)}?page[size]=2`, org.owner.token);
    assertStatus(page, 200);
    assert.equal(page.body.data.length, 2);
    assert.equal(page.body.meta.pagination['total-count'], 3);
    assert.equal(page.body.meta.pagination['total-pages'], 2);
    const next = new URL(page.body.links.next);
    assert.equal(next.searchParams.get('page[number]'), '2');
    assert.equal(next.searchParams.get('page[size]'), '2');
    assert.match(page.body.links.next, /page%5Bnumber%5D=2/);

    const searched = await ctx.get(`${setsOf(org.name)}?search[name]=${prefix.toLowerCase()}`, org.owner.token);
    assert.deepEqual(
      searched.body.data.map((s: any) => s.attributes.name),
      [`${prefix}-alpha`, `${prefix}-beta`],
    );
    // Sorted by name, case-insensitively.
    const all = await ctx.get(setsOf(org.name), org.owner.token);
    const names = all.body.data.map((s: any) => s.attributes.name as string);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
    );

    const opa = await ctx.get(`${setsOf(org.name)}?filter%5Bkind%5D=opa`, org.owner.token);
    assert.equal(opa.body.data.length, 2);
    assert.ok(opa.body.data.every((s: any) => s.attributes.kind === 'opa'));
    const both = await ctx.get(`${setsOf(org.name)}?filter[kind]=opa&search[name]=${prefix}`, org.owner.token);
    assert.deepEqual(
      both.body.data.map((s: any) => s.attributes.name),
      [`${prefix}-beta`],
    );

    assertError(await ctx.get(`${setsOf(org.name)}?filter[kind]=rego`, org.owner.token), 400);
    assertError(await ctx.get(`${setsOf(org.name)}?page[number]=zero`, org.owner.token), 400);
    assertError(await ctx.get(setsOf('no-such-org'), org.owner.token), 404);
  });

  it('updates attributes and replaces projects; kind is fixed; names stay unique', async () => {
    const org = await ctx.organization();
    const project = await newProject(ctx, org);
    const set = await createPolicySet(ctx, org, { description: 'before' }).then(async (s) => {
      const attach = await ctx.patch(`/api/v2/policy-sets/${s.id}`, org.owner.token, {
        data: { type: 'policy-sets', relationships: { projects: projectRefs(org.defaultProjectId) } },
      });
      assertStatus(attach, 200);
      return attach.body.data;
    });
    assert.equal(set.attributes['project-count'], 1);
    const url = `/api/v2/policy-sets/${set.id}`;
    const name = unique('renamed');
    const res = await ctx.patch(url, org.owner.token, {
      data: { type: 'policy-sets', attributes: { name, description: null, overridable: true }, relationships: { projects: projectRefs(project) } },
    });
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.name, name);
    assert.equal(res.body.data.attributes.description, null);
    assert.equal(res.body.data.attributes.overridable, true);
    assert.deepEqual(res.body.data.relationships.projects.data, [{ id: project, type: 'projects' }]);
    assert.ok(res.body.data.attributes['updated-at'] >= set.attributes['updated-at']);
    const shown = await ctx.get(url, org.owner.token);
    assert.deepEqual(shown.body.data, res.body.data);

    // Omitted attributes stay as they are.
    const same = await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { global: false } } });
    assert.equal(same.body.data.attributes.name, name);
    assert.equal(same.body.data.attributes['project-count'], 1);

    assertError(await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { kind: 'opa' } } }), 422, '/data/attributes/kind');
    assertError(await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { global: true } } }), 422, '/data/attributes/global');
    const other = await createPolicySet(ctx, org);
    const taken = assertError(
      await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { name: other.attributes.name } } }),
      422,
      '/data/attributes/name',
    );
    assert.equal(taken.detail, 'Name has already been taken');
    assertError(await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { name: 'no spaces' } } }), 422, '/data/attributes/name');
    assertError(await ctx.patch(url, org.owner.token, { data: { attributes: {} } }), 422, '/data/type');
    assertError(await ctx.request('PATCH', url, { token: org.owner.token, body: { data: { type: 'policy-sets' } }, contentType: 'application/json' }), 415);
    assertError(await ctx.patch('/api/v2/policy-sets/polset-0000000000000000', org.owner.token, { data: { type: 'policy-sets' } }), 404);
    // Detaching every project then going global is allowed.
    assertStatus(
      await ctx.patch(url, org.owner.token, { data: { type: 'policy-sets', attributes: { global: true }, relationships: { projects: { data: [] } } } }),
      200,
    );
  });

  it('attaches and detaches projects through the relationship endpoints', async () => {
    const org = await ctx.organization();
    const elsewhere = await ctx.organization();
    const project = await newProject(ctx, org);
    const set = await createPolicySet(ctx, org);
    const rel = `/api/v2/policy-sets/${set.id}/relationships/projects`;
    const count = async () => (await ctx.get(`/api/v2/policy-sets/${set.id}`, org.owner.token)).body.data.attributes['project-count'];

    const added = await ctx.post(rel, org.owner.token, projectRefs(org.defaultProjectId, project));
    assertStatus(added, 204);
    assert.equal(added.raw, '');
    assert.equal(await count(), 2);
    // Attaching again is harmless.
    assertStatus(await ctx.post(rel, org.owner.token, projectRefs(project)), 204);
    assert.equal(await count(), 2);

    const bad = await ctx.post(rel, org.owner.token, projectRefs(project, elsewhere.defaultProjectId, 'prj-nope'));
    assertError(bad, 422);
    assert.deepEqual(
      bad.body.errors.map((e: any) => e.source.pointer),
      ['/data/1/id', '/data/2/id'],
    );
    assertError(await ctx.delete(rel, org.owner.token, projectRefs('prj-nope')), 422, '/data/0/id');
    assertError(await ctx.post(rel, org.owner.token, { data: [] }), 422, '/data');
    assertError(await ctx.post(rel, org.owner.token, { data: [{ id: project, type: 'workspaces' }] }), 422, '/data/0/type');
    assertError(await ctx.request('DELETE', rel, { token: org.owner.token, body: projectRefs(project), contentType: 'text/plain' }), 415);
    assertError(await ctx.post('/api/v2/policy-sets/polset-0000000000000000/relationships/projects', org.owner.token, projectRefs(project)), 404);
    assert.equal(await count(), 2);

    assertStatus(await ctx.delete(rel, org.owner.token, projectRefs(org.defaultProjectId)), 204);
    assert.equal(await count(), 1);

    // Deleting a project detaches it (schema cascade).
    assertStatus(await ctx.delete(`/api/v2/projects/${project}`, org.owner.token), 204);
    assert.equal(await count(), 0);

    const global = await createPolicySet(ctx, org, { global: true });
    assertError(await ctx.post(`/api/v2/policy-sets/${global.id}/relationships/projects`, org.owner.token, projectRefs(org.defaultProjectId)), 422, '/data');
  });

  it('deletes a policy set with its parameters: 204 without a body', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    await createParameter(ctx, org.owner.token, set.id, { key: 'a', value: '1' });
    await createParameter(ctx, org.owner.token, set.id, { key: 'b', value: '2', sensitive: true });
    const res = await ctx.delete(`/api/v2/policy-sets/${set.id}`, org.owner.token);
    assertStatus(res, 204);
    assert.equal(res.raw, '');
    assertError(await ctx.get(`/api/v2/policy-sets/${set.id}`, org.owner.token), 404);
    assertError(await ctx.get(`/api/v2/policy-sets/${set.id}/parameters`, org.owner.token), 404);
    const rows = await ctx.database.db.selectFrom('policy_set_parameters').select('id').where('policy_set_id', '=', set.id).execute();
    assert.deepEqual(rows, []);
    assertError(await ctx.delete(`/api/v2/policy-sets/${set.id}`, org.owner.token), 404);
  });

  it('lets members read, and only owners, the organization token and manage-policies teams write', async () => {
    const org = await ctx.organization();
    const reader = await ctx.member(org, { 'manage-projects': true });
    const manager = await ctx.member(org, { 'manage-policies': true });
    const outsider = await ctx.user();
    const orgToken = (
      await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
        data: { type: 'authentication-token' },
      })
    ).body.data.attributes.token as string;
    const set = await createPolicySet(ctx, org);
    const url = `/api/v2/policy-sets/${set.id}`;
    const rel = `${url}/relationships/projects`;
    const patch = { data: { type: 'policy-sets', attributes: { description: 'x' } } };

    // Reading: every member.
    assertStatus(await ctx.get(setsOf(org.name), reader.token), 200);
    assertStatus(await ctx.get(url, reader.token), 200);
    // Writing: 403 for a member who may not manage policies.
    assertError(await ctx.post(setsOf(org.name), reader.token, policySetBody(unique('r'))), 403);
    assertError(await ctx.patch(url, reader.token, patch), 403);
    assertError(await ctx.post(rel, reader.token, projectRefs(org.defaultProjectId)), 403);
    assertError(await ctx.delete(rel, reader.token, projectRefs(org.defaultProjectId)), 403);
    assertError(await ctx.delete(url, reader.token), 403);
    // Outsiders: everything is 404, as if it did not exist.
    assertError(await ctx.get(setsOf(org.name), outsider.token), 404);
    assertError(await ctx.post(setsOf(org.name), outsider.token, policySetBody(unique('o'))), 404);
    assertError(await ctx.get(url, outsider.token), 404);
    assertError(await ctx.patch(url, outsider.token, patch), 404);
    assertError(await ctx.post(rel, outsider.token, projectRefs(org.defaultProjectId)), 404);
    assertError(await ctx.delete(url, outsider.token), 404);
    // No token: 401 everywhere.
    for (const [method, path] of [
      ['GET', setsOf(org.name)],
      ['POST', setsOf(org.name)],
      ['GET', url],
      ['PATCH', url],
      ['DELETE', url],
      ['POST', rel],
      ['DELETE', rel],
    ]) {
      assertError(await ctx.request(method!, path!, { token: null, body: patch }), 401);
    }
    // Managers and the organization token may write.
    assertStatus(await ctx.patch(url, manager.token, patch), 200);
    assertStatus(await ctx.post(rel, manager.token, projectRefs(org.defaultProjectId)), 204);
    assertStatus(await ctx.post(setsOf(org.name), manager.token, policySetBody(unique('m'))), 201);
    const byToken = await ctx.post(setsOf(org.name), orgToken, policySetBody(unique('t')));
    assertStatus(byToken, 201);
    assertStatus(await ctx.delete(`/api/v2/policy-sets/${byToken.body.data.id}`, orgToken), 204);
    assertStatus(await ctx.delete(url, manager.token), 204);
    // Another organization's token sees nothing here.
    const foreign = await ctx.organization();
    const foreignToken = (
      await ctx.post(`/api/v2/organizations/${foreign.name}/authentication-token`, foreign.owner.token, {
        data: { type: 'authentication-token' },
      })
    ).body.data.attributes.token as string;
    assertError(await ctx.get(setsOf(org.name), foreignToken), 404);
  });
});

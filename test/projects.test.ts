import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, projectBody, projectName } from './helpers/projects.ts';

const DURATION_DETAIL = "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')";
const PERMISSION_KEYS = ['can-create-workspace', 'can-destroy', 'can-manage-teams', 'can-move-workspace', 'can-read', 'can-update'];

suite('projects', (ctx) => {
  it('creates a project (201) and show, update and list answer with the same shape', async () => {
    const org = await ctx.organization();
    const name = projectName('payments');
    // Attributes and relationships real clients send but Hangar does not model are ignored.
    const body = {
      data: {
        type: 'projects',
        attributes: { name, 'default-execution-mode': 'remote', 'setting-overwrites': { 'default-execution-mode': false } },
        relationships: { 'tag-bindings': { data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'prod' } }] } },
      },
    };
    const created = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, body);
    assertStatus(created, 201);
    const p = created.body.data;
    assert.match(p.id, /^prj-[0-9A-Za-z]{16}$/);
    assert.equal(p.type, 'projects');
    assert.equal(p.attributes.name, name);
    assert.equal(p.attributes.description, null);
    assert.equal(p.attributes['auto-destroy-activity-duration'], null);
    assert.match(p.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(p.attributes['workspace-count'], 0);
    assert.equal(p.attributes['team-count'], 0);
    assert.deepEqual(Object.keys(p.attributes.permissions).sort(), PERMISSION_KEYS);
    assert.ok(
      Object.values(p.attributes.permissions).every((v) => v === true),
      'the owner may do everything',
    );
    assert.deepEqual(p.relationships.organization, {
      data: { id: org.name, type: 'organizations' },
      links: { related: `/api/v2/organizations/${org.name}` },
    });
    assert.equal(p.links.self, `/api/v2/projects/${p.id}`);

    const shown = await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, p);
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/projects?filter[names]=${encodeURIComponent(name)}`, org.owner.token);
    assert.deepEqual(listed.body.data, [p]);
    const updated = await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({}));
    assertStatus(updated, 200);
    assert.deepEqual(updated.body.data, p);
  });

  it('stores description and duration, and update changes only what it is given', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org, { description: 'Payment systems', 'auto-destroy-activity-duration': '14d' });
    assert.equal(p.attributes.description, 'Payment systems');
    assert.equal(p.attributes['auto-destroy-activity-duration'], '14d');

    const renamed = projectName('renamed');
    const r1 = await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ name: renamed }));
    assertStatus(r1, 200);
    assert.equal(r1.body.data.attributes.name, renamed);
    assert.equal(r1.body.data.attributes.description, 'Payment systems');
    assert.equal(r1.body.data.attributes['auto-destroy-activity-duration'], '14d');

    const r2 = await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ description: null, 'auto-destroy-activity-duration': '36h' }));
    assertStatus(r2, 200);
    assert.equal(r2.body.data.attributes.name, renamed);
    assert.equal(r2.body.data.attributes.description, null);
    assert.equal(r2.body.data.attributes['auto-destroy-activity-duration'], '36h');

    const r3 = await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ 'auto-destroy-activity-duration': null }));
    assert.equal(r3.body.data.attributes['auto-destroy-activity-duration'], null);
    const shown = await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token);
    assert.deepEqual(shown.body.data, r3.body.data);
  });

  it('accepts names at the limits and refuses the rest with 422 at /data/attributes/name', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/projects`;
    const suffix = unique('').replace(/[^A-Za-z0-9]/g, '');
    for (const name of ['abc', `${suffix} x_y-z`.slice(0, 40), `N${'x'.repeat(35)}${suffix}`.slice(0, 40)]) {
      assertStatus(await ctx.post(url, org.owner.token, projectBody({ name })), 201);
    }
    const cases: Array<[string, RegExp]> = [
      ['ab', /too short/],
      ['x'.repeat(41), /too long/],
      ['bad!name', /^Name may only contain/],
      ['ünïcode', /^Name may only contain/],
      [' leading', /^Name may only contain/],
      ['trailing ', /^Name may only contain/],
      ['dot.ted', /^Name may only contain/],
    ];
    for (const [name, detail] of cases) {
      const e = assertError(await ctx.post(url, org.owner.token, projectBody({ name })), 422, '/data/attributes/name');
      assert.equal(e.title, 'invalid attribute');
      assert.match(e.detail!, detail, name);
    }
    const list = await ctx.get(`${url}?page[size]=100`, org.owner.token);
    assert.equal(list.body.meta['status-counts'].total, 4, 'only the valid projects (and the default) exist');
  });

  it('refuses a duplicate name case-insensitively, on create and on rename', async () => {
    const org = await ctx.organization();
    const name = projectName('Dup');
    const first = await createProject(ctx, org, { name });
    const url = `/api/v2/organizations/${org.name}/projects`;
    let e = assertError(await ctx.post(url, org.owner.token, projectBody({ name: name.toUpperCase() })), 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name has already been taken');
    e = assertError(await ctx.post(url, org.owner.token, projectBody({ name: 'default project' })), 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name has already been taken');
    const other = await createProject(ctx, org);
    e = assertError(await ctx.patch(`/api/v2/projects/${other.id}`, org.owner.token, projectBody({ name: name.toLowerCase() })), 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name has already been taken');
    // Renaming a project to a new spelling of its own name is fine.
    assertStatus(await ctx.patch(`/api/v2/projects/${first.id}`, org.owner.token, projectBody({ name: name.toUpperCase() })), 200);
    // The same name in another organization is fine too.
    const org2 = await ctx.organization();
    assertStatus(await ctx.post(`/api/v2/organizations/${org2.name}/projects`, org2.owner.token, projectBody({ name })), 201);
  });

  it('validates description and auto-destroy duration as the seed says', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/projects`;
    assertStatus(await ctx.post(url, org.owner.token, projectBody({ name: projectName(), description: 'd'.repeat(256) })), 201);
    let e = assertError(
      await ctx.post(url, org.owner.token, projectBody({ name: projectName(), description: 'd'.repeat(257) })),
      422,
      '/data/attributes/description',
    );
    assert.match(e.detail!, /too long \(maximum is 256 characters\)/);

    for (const good of ['1d', '14d', '36h', '9999h', '0001d']) {
      const p = await ctx.post(url, org.owner.token, projectBody({ name: projectName(), 'auto-destroy-activity-duration': good }));
      assertStatus(p, 201);
      assert.equal(p.body.data.attributes['auto-destroy-activity-duration'], good);
    }
    for (const bad of ['0d', '0000h', '12345h', '20m', '1.5d', '', 'd', '14', '-1d', ' 14d', '14D']) {
      e = assertError(
        await ctx.post(url, org.owner.token, projectBody({ name: projectName(), 'auto-destroy-activity-duration': bad })),
        422,
        '/data/attributes/auto-destroy-activity-duration',
      );
      assert.equal(e.detail, DURATION_DETAIL, JSON.stringify(bad));
    }
    const p = await createProject(ctx, org);
    assertError(
      await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ 'auto-destroy-activity-duration': '0h' })),
      422,
      '/data/attributes/auto-destroy-activity-duration',
    );
  });

  it('answers bad bodies with one 422 per problem and writes nothing', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/projects`;
    const before = (await ctx.get(url, org.owner.token)).body.meta['status-counts'].total;
    const res = await ctx.post(url, org.owner.token, projectBody({ name: 'x', description: 'y'.repeat(300), 'auto-destroy-activity-duration': '5m' }));
    assertError(res, 422);
    assert.deepEqual(res.body.errors.map((e: any) => e.source.pointer).sort(), [
      '/data/attributes/auto-destroy-activity-duration',
      '/data/attributes/description',
      '/data/attributes/name',
    ]);
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'workspaces', attributes: { name: projectName() } } }), 422, '/data/type');
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'projects', attributes: {} } }), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, projectBody({ name: 42 })), 422, '/data/attributes/name');
    assertError(await ctx.post(url, org.owner.token, projectBody({ name: projectName(), description: 7 })), 422, '/data/attributes/description');
    assertError(await ctx.post(url, org.owner.token, {}), 422, '/data');
    const p = await createProject(ctx, org);
    assertError(await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, { data: { type: 'teams', attributes: {} } }), 422, '/data/type');
    assertError(await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ name: null })), 422, '/data/attributes/name');
    assert.equal((await ctx.get(url, org.owner.token)).body.meta['status-counts'].total, before + 1);
  });

  it('answers a wrong content type with 415, malformed JSON with 400, unknown ids with 404', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const t = org.owner.token;
    const json = { token: t, contentType: 'application/json' };
    assertError(await ctx.request('POST', `/api/v2/organizations/${org.name}/projects`, { ...json, body: projectBody({ name: projectName() }) }), 415);
    assertError(await ctx.request('PATCH', `/api/v2/projects/${p.id}`, { ...json, body: projectBody({}) }), 415);
    assertError(await ctx.request('POST', `/api/v2/projects/${p.id}/relationships/workspaces`, { ...json, body: { data: [] } }), 415);
    assertError(await ctx.request('POST', `/api/v2/organizations/${org.name}/projects`, { token: t, rawBody: '{"data":' }), 400);
    for (const id of ['prj-0000000000000000', 'nonsense', 'ws-0000000000000000']) {
      assertError(await ctx.get(`/api/v2/projects/${id}`, t), 404);
      assertError(await ctx.patch(`/api/v2/projects/${id}`, t, projectBody({})), 404);
      assertError(await ctx.delete(`/api/v2/projects/${id}`, t), 404);
    }
    assertError(await ctx.post(`/api/v2/organizations/no-such-org/projects`, t, projectBody({ name: projectName() })), 404);
    assertError(await ctx.get(`/api/v2/organizations/no-such-org/projects`, t), 404);
  });

  it('requires a token on every project endpoint (401)', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const calls = [
      ctx.post(`/api/v2/organizations/${org.name}/projects`, null, projectBody({ name: projectName() })),
      ctx.get(`/api/v2/organizations/${org.name}/projects`, null),
      ctx.get(`/api/v2/projects/${p.id}`, null),
      ctx.patch(`/api/v2/projects/${p.id}`, null, projectBody({ name: projectName() })),
      ctx.delete(`/api/v2/projects/${p.id}`, null),
      ctx.post(`/api/v2/projects/${p.id}/relationships/workspaces`, null, { data: [{ type: 'workspaces', id: 'ws-x' }] }),
    ];
    for (const res of await Promise.all(calls)) assert.deepEqual(res.body, { errors: [{ status: '401', title: 'unauthorized' }] });
    assertStatus(await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token), 200);
  });

  it('deletes with 204 and no body; refuses the default project and a non-empty one with 409', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const empty = await createProject(ctx, org);
    const del = await ctx.delete(`/api/v2/projects/${empty.id}`, t);
    assertStatus(del, 204);
    assert.equal(del.raw, '');
    assertError(await ctx.get(`/api/v2/projects/${empty.id}`, t), 404);
    assertError(await ctx.delete(`/api/v2/projects/${empty.id}`, t), 404);

    let e = assertError(await ctx.delete(`/api/v2/projects/${org.defaultProjectId}`, t), 409);
    assert.match(e.detail!, /default project/);
    const dflt = await ctx.get(`/api/v2/projects/${org.defaultProjectId}`, t);
    assert.equal(dflt.body.data.attributes.permissions['can-destroy'], false);

    const full = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, full.id);
    e = assertError(await ctx.delete(`/api/v2/projects/${full.id}`, t), 409);
    assert.match(e.detail!, /contains workspaces/);
    assertStatus(await ctx.get(`/api/v2/projects/${full.id}`, t), 200);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, t), 204);
    assertStatus(await ctx.delete(`/api/v2/projects/${full.id}`, t), 204);
  });

  it('lets the default project be renamed', async () => {
    const org = await ctx.organization();
    const name = projectName('Main');
    const res = await ctx.patch(`/api/v2/projects/${org.defaultProjectId}`, org.owner.token, projectBody({ name }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.name, name);
    // It is still the default: new workspaces go there and it still cannot be deleted.
    const ws = await createWorkspace(ctx, org);
    assert.equal(ws.relationships.project.data.id, org.defaultProjectId);
    assertError(await ctx.delete(`/api/v2/projects/${org.defaultProjectId}`, org.owner.token), 409);
  });

  it('counts workspaces and teams per project in every document', async () => {
    const org = await ctx.organization();
    const a = await createProject(ctx, org);
    const b = await createProject(ctx, org);
    for (let i = 0; i < 3; i++) await createWorkspace(ctx, org, a.id);
    await createWorkspace(ctx, org, b.id);
    const team1 = await ctx.member(org);
    const team2 = await ctx.member(org);
    for (const teamId of [team1.teamId, team2.teamId]) {
      assertStatus(
        await ctx.post('/api/v2/team-projects', org.owner.token, {
          data: {
            type: 'team-projects',
            attributes: { access: 'read' },
            relationships: { project: { data: { type: 'projects', id: a.id } }, team: { data: { type: 'teams', id: teamId } } },
          },
        }),
        201,
      );
    }
    const list = await ctx.get(`/api/v2/organizations/${org.name}/projects`, org.owner.token);
    const byId = new Map(list.body.data.map((p: any) => [p.id, p.attributes]));
    assert.deepEqual([(byId.get(a.id) as any)['workspace-count'], (byId.get(a.id) as any)['team-count']], [3, 2]);
    assert.deepEqual([(byId.get(b.id) as any)['workspace-count'], (byId.get(b.id) as any)['team-count']], [1, 0]);
    assert.equal((byId.get(org.defaultProjectId) as any)['workspace-count'], 0);
    const shown = await ctx.get(`/api/v2/projects/${a.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['workspace-count'], 3);
    assert.equal(shown.body.data.attributes['team-count'], 2);
  });

  it('never writes a token to the log', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token);
    await ctx.patch(`/api/v2/projects/${p.id}`, org.owner.token, projectBody({ name: 'x' }));
    await ctx.delete(`/api/v2/projects/${org.defaultProjectId}`, org.owner.token);
    assert.ok(ctx.logs.length > 0, 'the app logged its requests');
    assert.ok(!ctx.logs.includes(org.owner.token), 'a token reached the log');
    assert.ok(!ctx.logs.includes(org.owner.token.split('.')[0]!), 'part of a token reached the log');
  });
});

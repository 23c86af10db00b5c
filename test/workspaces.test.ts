import assert from 'node:assert/strict';
import { settledStatements } from './helpers/settled.ts';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createStateVersion } from './helpers/state.ts';
import { createProject, createWorkspace, grant, memberWithAccess, projectBody, workspaceBody } from './helpers/projects.ts';

const wsBody = (attributes: Record<string, unknown>) => ({ data: { type: 'workspaces', attributes } });

suite('workspaces', (ctx) => {
  it('creates a workspace (201) in the default project and reads it by id and by name', async () => {
    const org = await ctx.organization();
    const name = unique('app');
    // Attributes real clients send but Hangar does not model are ignored.
    const res = await ctx.post(
      `/api/v2/organizations/${org.name}/workspaces`,
      org.owner.token,
      wsBody({
        name,
        description: 'the app',
        'execution-mode': 'remote',
        'terraform-version': '1.9.0',
      }),
    );
    assertStatus(res, 201);
    const w = res.body.data;
    assert.match(w.id, /^ws-[0-9A-Za-z]{16}$/);
    assert.equal(w.type, 'workspaces');
    assert.equal(w.attributes.name, name);
    assert.equal(w.attributes.description, 'the app');
    assert.match(w.attributes['created-at'], /Z$/);
    assert.equal(w.attributes['updated-at'], w.attributes['created-at']);
    assert.equal(w.attributes['auto-destroy-activity-duration'], null);
    assert.equal(w.attributes['inherits-project-auto-destroy'], true);
    assert.deepEqual(w.relationships.organization.data, { id: org.name, type: 'organizations' });
    assert.deepEqual(w.relationships.project.data, { id: org.defaultProjectId, type: 'projects' });
    assert.equal(w.links.self, `/api/v2/organizations/${org.name}/workspaces/${name}`);
    assert.deepEqual((await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token)).body.data, w);
    assert.deepEqual((await ctx.get(`/api/v2/organizations/${org.name}/workspaces/${name.toUpperCase()}`, org.owner.token)).body.data, w);
  });

  it('creates into the project named by the relationship', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, p.id);
    assert.equal(w.relationships.project.data.id, p.id);
    assert.equal((await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token)).body.data.attributes['workspace-count'], 1);
    const nullProject = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: { type: 'workspaces', attributes: { name: unique('ws') }, relationships: { project: { data: null } } },
    });
    assertStatus(nullProject, 201);
    assert.equal(nullProject.body.data.relationships.project.data.id, org.defaultProjectId);
  });

  it('validates names, uniqueness, duration and the project relationship with 422', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/workspaces`;
    const t = org.owner.token;
    for (const name of ['has space', 'dot.ted', '', 'x'.repeat(91)]) {
      assertError(await ctx.post(url, t, wsBody({ name })), 422, '/data/attributes/name');
    }
    assertStatus(await ctx.post(url, t, wsBody({ name: 'x'.repeat(90) })), 201);
    const w = await createWorkspace(ctx, org);
    const e = assertError(await ctx.post(url, t, wsBody({ name: w.attributes.name.toUpperCase() })), 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name has already been taken');
    assertError(
      await ctx.post(url, t, wsBody({ name: unique('ws'), 'auto-destroy-activity-duration': '0h' })),
      422,
      '/data/attributes/auto-destroy-activity-duration',
    );
    assertError(
      await ctx.post(url, t, wsBody({ name: unique('ws'), 'inherits-project-auto-destroy': 'yes' })),
      422,
      '/data/attributes/inherits-project-auto-destroy',
    );
    assertError(await ctx.post(url, t, { data: { type: 'projects', attributes: { name: unique('ws') } } }), 422, '/data/type');
    assertError(await ctx.post(url, t, { data: { type: 'workspaces', attributes: {} } }), 422, '/data/attributes/name');
    const missing = await ctx.post(url, t, workspaceBody({ name: unique('ws') }, 'prj-0000000000000000'));
    assert.match(assertError(missing, 422, '/data/relationships/project/data/id').detail!, /not found/);
    const foreign = await createProject(ctx, await ctx.organization());
    assertError(await ctx.post(url, t, workspaceBody({ name: unique('ws') }, foreign.id)), 422, '/data/relationships/project/data/id');
    assertError(await ctx.patch(`/api/v2/workspaces/${w.id}`, t, wsBody({ name: 'bad name' })), 422, '/data/attributes/name');
    const list = await ctx.get(`${url}?page[size]=100`, t);
    assert.equal(list.body.meta.pagination['total-count'], 2);
  });

  it('lists with search[name], filter[project][id], sort and pagination', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    for (const name of ['web-b', 'web-a', 'api', 'Web-c']) await createWorkspace(ctx, org, name === 'api' ? p.id : undefined, { name });
    const get = (q: string) => ctx.get(`/api/v2/organizations/${org.name}/workspaces${q}`, org.owner.token);
    const names = (res: any) => res.body.data.map((w: any) => w.attributes.name);
    // Without `sort`, creation order (TFE: "arbitrary but stable"; go-tfe's tests read the first created first).
    assert.deepEqual(names(await get('')), ['web-b', 'web-a', 'api', 'Web-c']);
    assert.deepEqual(names(await get('?sort=name')), ['api', 'web-a', 'web-b', 'Web-c']);
    assert.deepEqual(names(await get('?sort=-name')), ['Web-c', 'web-b', 'web-a', 'api']);
    assert.deepEqual(names(await get('?search[name]=WEB&sort=name')), ['web-a', 'web-b', 'Web-c']);
    assert.deepEqual(names(await get(`?filter[project][id]=${p.id}`)), ['api']);
    assert.deepEqual(names(await get(`?filter[project][id]=${org.defaultProjectId}&search[name]=c`)), ['Web-c']);
    const page = await get('?page[size]=3&page[number]=2');
    assert.deepEqual(names(page), ['Web-c']);
    assert.equal(page.body.meta.pagination['total-count'], 4);
    assertError(await get('?sort=created-at'), 400);
    assertError(await get('?page[number]=abc'), 400);
  });

  it('filters and sorts by the current run, and includes current runs and state versions', async () => {
    const org = await ctx.organization();
    const ws = [];
    for (let i = 0; i < 3; i++) ws.push(await createWorkspace(ctx, org));
    const run = async (id: string) => {
      const cv = await ctx.post(`/api/v2/workspaces/${id}/configuration-versions`, org.owner.token, { data: { type: 'configuration-versions' } });
      const put = await ctx.app.inject({
        method: 'PUT',
        url: new URL(cv.body.data.attributes['upload-url']).pathname,
        payload: Buffer.from([0x1f, 0x8b, 8, 0]),
      });
      assert.equal(put.statusCode, 200);
      const r = await ctx.post('/api/v2/runs', org.owner.token, {
        data: {
          type: 'runs',
          relationships: {
            workspace: { data: { type: 'workspaces', id } },
            'configuration-version': { data: { type: 'configuration-versions', id: cv.body.data.id } },
          },
        },
      });
      assertStatus(r, 201);
      return r.body.data.id as string;
    };
    const r2 = await run(ws[2]!.id);
    const r0 = await run(ws[0]!.id);
    const get = (q: string) => ctx.get(`/api/v2/organizations/${org.name}/workspaces${q}`, org.owner.token);
    const ids = (res: any) => res.body.data.map((w: any) => w.id);
    const sorted = await get('?sort=current-run.created-at&include=current_run');
    assertStatus(sorted, 200);
    // Workspaces without a current run come last either way.
    assert.deepEqual(ids(sorted), [ws[2]!.id, ws[0]!.id, ws[1]!.id]);
    assert.deepEqual(sorted.body.included.map((r: any) => r.id).sort(), [r0, r2].sort());
    assert.equal(sorted.body.data[0].relationships['current-run'].data.id, r2);
    assert.deepEqual(ids(await get('?sort=-current-run.created-at')), [ws[0]!.id, ws[2]!.id, ws[1]!.id]);
    assert.deepEqual(ids(await get('?filter[current-run][status]=plan_queued')), [ws[0]!.id, ws[2]!.id]);
    assert.deepEqual(ids(await get('?filter[current-run][status]=applied,unknown')), []);
    // No state yet: the relationship is empty and nothing is included.
    const states = await get('?include=current-state-version');
    assert.equal(states.body.data[0].relationships['current-state-version'].data, null);
    assert.equal(states.body.included, undefined);
    const sv = await createStateVersion(ctx, ws[1]!.id, org.owner.token);
    const withState = await get('?include=current-state-version,current_run');
    assert.equal(withState.body.data[1].relationships['current-state-version'].data.id, sv.id);
    const included = withState.body.included.filter((r: any) => r.type === 'state-versions');
    assert.deepEqual(
      included.map((r: any) => r.id),
      [sv.id],
    );
    assert.ok(included[0].attributes['hosted-state-download-url']);
    // Only what the caller may read is included.
    const reader = await memberWithAccess(ctx, org, [[org.defaultProjectId, 'read']]);
    const theirs = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?include=current-state-version`, reader.token);
    assertStatus(theirs, 200);
    const mayRead = theirs.body.data[1].attributes.permissions['can-read-state-versions'];
    assert.equal((theirs.body.included ?? []).length, mayRead ? 1 : 0);
  });

  it('lists each workspace as its show answers it, the page in one statement (one more past the end)', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org, { name: unique('views'), 'auto-destroy-activity-duration': '14d' });
    const plain = await createWorkspace(ctx, org);
    const tagged = await createWorkspace(ctx, org, project.id, { 'tag-names': ['b-tag', 'a-tag'], 'auto-destroy-at': '2099-01-01T00:00:00.000Z' });
    const busy = await createWorkspace(ctx, org, project.id);
    const token = org.owner.token;
    const cv = await ctx.post(`/api/v2/workspaces/${busy.id}/configuration-versions`, token, { data: { type: 'configuration-versions' } });
    const put = await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: Buffer.from([0x1f, 0x8b, 8, 0]) });
    assert.equal(put.statusCode, 200);
    const run = await ctx.post('/api/v2/runs', token, {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: busy.id } },
          'configuration-version': { data: { type: 'configuration-versions', id: cv.body.data.id } },
        },
      },
    });
    assertStatus(run, 201);
    await createStateVersion(ctx, tagged.id, token);
    await createStateVersion(ctx, tagged.id, token, undefined, 2);
    for (const key of ['one', 'two']) {
      assertStatus(await ctx.post(`/api/v2/workspaces/${tagged.id}/vars`, token, { data: { type: 'vars', attributes: { key, category: 'env' } } }), 201);
    }
    assertStatus(await ctx.post(`/api/v2/workspaces/${plain.id}/actions/lock`, token, { reason: 'looking' }), 200);
    const url = `/api/v2/organizations/${org.name}/workspaces?page[size]=20`;
    const listed = await ctx.get(url, token);
    assertStatus(listed, 200);
    assert.equal(listed.body.data.length, 3);
    for (const item of listed.body.data) {
      const shown = await ctx.get(`/api/v2/workspaces/${item.id}`, token);
      assert.deepEqual(item, shown.body.data, item.attributes.name);
    }
    const byId = new Map(listed.body.data.map((w: any) => [w.id, w]));
    const t: any = byId.get(tagged.id);
    assert.deepEqual(t.attributes['tag-names'], ['b-tag', 'a-tag']);
    assert.equal(t.relationships.vars.data.length, 2);
    assert.ok(t.relationships['current-state-version'].data);
    assert.equal((byId.get(plain.id) as any).attributes.locked, true);
    assert.equal((byId.get(busy.id) as any).relationships['current-run'].data.id, run.body.data.id);
    assert.equal((byId.get(busy.id) as any).attributes['runs-count'], 1);
    for (let round = 0; round < 2; round++) {
      const { result, statements } = await ctx.statementsOf(() => ctx.get(url, token));
      assertStatus(result, 200);
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.deepEqual(result.body, listed.body);
    }
    const past = await ctx.statementsOf(() => ctx.get(`${url}&page[number]=3`, token));
    assertStatus(past.result, 200);
    assert.equal(past.statements.length, 2, past.statements.join('\n'));
    assert.deepEqual([past.result.body.data, past.result.body.meta.pagination['total-count']], [[], 3]);
    // A show reads its workspace and its tags, then everything its view shows of the domains
    // built on it (lock, configuration, runs, state, variables) in one more statement, not one
    // statement per domain.
    const show = await settledStatements(ctx, () => ctx.get(`/api/v2/workspaces/${tagged.id}`, token), 3);
    assertStatus(show.result, 200);
    assert.deepEqual(show.result.body.data, byId.get(tagged.id));
    assert.equal(show.statements.length, 3, show.statements.join('\n'));
    assert.equal(show.statements.filter((sql) => /view_lock/.test(sql)).length, 1, show.statements.join('\n'));
  });

  it('updates name and description, and deletes (204) by id or by name', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org, undefined, { description: 'old' });
    const name = unique('renamed');
    const res = await ctx.patch(`/api/v2/workspaces/${w.id}`, org.owner.token, wsBody({ name, 'unmodelled-thing': 1 }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.name, name);
    assert.equal(res.body.data.attributes.description, 'old');
    assert.ok(res.body.data.attributes['updated-at'] >= w.attributes['updated-at']);
    const byName = await ctx.patch(`/api/v2/organizations/${org.name}/workspaces/${name}`, org.owner.token, wsBody({ description: null }));
    assert.equal(byName.body.data.attributes.description, null);
    const del = await ctx.delete(`/api/v2/organizations/${org.name}/workspaces/${name}`, org.owner.token);
    assertStatus(del, 204);
    assert.equal(del.raw, '');
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token), 404);
    const w2 = await createWorkspace(ctx, org);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${w2.id}`, org.owner.token), 204);
    assertError(await ctx.delete(`/api/v2/workspaces/${w2.id}`, org.owner.token), 404);
  });

  it("inherits the project's auto-destroy duration unless overridden", async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const p = await createProject(ctx, org, { 'auto-destroy-activity-duration': '14d' });
    const q = await createProject(ctx, org, { 'auto-destroy-activity-duration': '5h' });
    const inheriting = await createWorkspace(ctx, org, p.id);
    const overriding = await createWorkspace(ctx, org, p.id, { 'auto-destroy-activity-duration': '3d' });
    const none = await createWorkspace(ctx, org, p.id, { 'inherits-project-auto-destroy': false });
    const explicit = await createWorkspace(ctx, org, p.id, { 'auto-destroy-activity-duration': '2d', 'inherits-project-auto-destroy': false });
    const effective = async (id: string) => {
      const a = (await ctx.get(`/api/v2/workspaces/${id}`, t)).body.data.attributes;
      return [a['auto-destroy-activity-duration'], a['inherits-project-auto-destroy']];
    };
    assert.deepEqual(await effective(inheriting.id), ['14d', true]);
    assert.deepEqual(await effective(overriding.id), ['3d', false]);
    assert.deepEqual(await effective(none.id), [null, false]);
    assert.deepEqual(await effective(explicit.id), ['2d', false]);

    // Updating the project changes every inheriting workspace and none of the others.
    assertStatus(await ctx.patch(`/api/v2/projects/${p.id}`, t, projectBody({ 'auto-destroy-activity-duration': '30d' })), 200);
    assert.deepEqual(await effective(inheriting.id), ['30d', true]);
    assert.deepEqual(await effective(overriding.id), ['3d', false]);
    assert.deepEqual(await effective(none.id), [null, false]);
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?filter[project][id]=${p.id}`, t);
    const byId = new Map(listed.body.data.map((w: any) => [w.id, w.attributes['auto-destroy-activity-duration']]));
    assert.equal(byId.get(inheriting.id), '30d');
    assert.equal(byId.get(overriding.id), '3d');

    // Moving makes an inheriting workspace follow its new project; an override stays.
    assertStatus(
      await ctx.post(`/api/v2/projects/${q.id}/relationships/workspaces`, t, {
        data: [
          { type: 'workspaces', id: inheriting.id },
          { type: 'workspaces', id: overriding.id },
        ],
      }),
      204,
    );
    assert.deepEqual(await effective(inheriting.id), ['5h', true]);
    assert.deepEqual(await effective(overriding.id), ['3d', false]);

    // Switching back to inheriting follows the project again; a null duration clears an override.
    const back = await ctx.patch(`/api/v2/workspaces/${overriding.id}`, t, wsBody({ 'inherits-project-auto-destroy': true }));
    assert.deepEqual([back.body.data.attributes['auto-destroy-activity-duration'], back.body.data.attributes['inherits-project-auto-destroy']], ['5h', true]);
    const cleared = await ctx.patch(`/api/v2/workspaces/${explicit.id}`, t, wsBody({ 'auto-destroy-activity-duration': null }));
    assert.deepEqual(
      [cleared.body.data.attributes['auto-destroy-activity-duration'], cleared.body.data.attributes['inherits-project-auto-destroy']],
      [null, false],
    );
    const set = await ctx.patch(`/api/v2/workspaces/${inheriting.id}`, t, wsBody({ 'auto-destroy-activity-duration': '8h' }));
    assert.deepEqual([set.body.data.attributes['auto-destroy-activity-duration'], set.body.data.attributes['inherits-project-auto-destroy']], ['8h', false]);
    // A null sent to an inheriting workspace leaves it inheriting.
    const stays = await createWorkspace(ctx, org, q.id);
    const nulled = await ctx.patch(`/api/v2/workspaces/${stays.id}`, t, wsBody({ 'auto-destroy-activity-duration': null }));
    assert.deepEqual(
      [nulled.body.data.attributes['auto-destroy-activity-duration'], nulled.body.data.attributes['inherits-project-auto-destroy']],
      ['5h', true],
    );
  });

  it('tells a caller who named no project that they may not create workspaces in the default project, revealing nothing of it', async () => {
    // Terraform's cloud block naming a workspace the caller cannot see (it is in another project)
    // creates it without a project: the organization's default project, which this caller may not use.
    const org = await ctx.organization();
    const platform = await createProject(ctx, org, { name: 'platform' });
    const hidden = await createWorkspace(ctx, org);
    const member = await memberWithAccess(ctx, org, [[platform.id, 'write']]);
    const url = `/api/v2/organizations/${org.name}/workspaces`;
    const refused = await ctx.post(url, member.token, { data: { type: 'workspaces', attributes: { name: hidden.attributes.name } } });
    const error = assertError(refused, 403);
    assert.equal(error.source, undefined);
    assert.match(error.detail ?? '', /may not create workspaces in the organization's default project/);
    assert.match(error.detail ?? '', /name a project/);
    assert.ok(!refused.raw.includes(org.defaultProjectId) && !refused.raw.includes('Default Project'), refused.raw);
    // Naming a project one may create in works; naming one the caller cannot see stays "not found".
    const maintainer = await memberWithAccess(ctx, org, [[platform.id, 'maintain']]);
    assertStatus(await ctx.post(url, maintainer.token, workspaceBody({ name: unique('ws') }, platform.id)), 201);
    assertError(await ctx.post(url, member.token, workspaceBody({ name: unique('ws') }, org.defaultProjectId)), 422, '/data/relationships/project/data/id');
    // A caller who sees the default project but may not create in it is told the same.
    const reader = await memberWithAccess(ctx, org, [[org.defaultProjectId, 'read']]);
    const read = assertError(await ctx.post(url, reader.token, { data: { type: 'workspaces', attributes: { name: unique('ws') } } }), 403);
    assert.match(read.detail ?? '', /may not create workspaces in the organization's default project/);
  });

  it('applies workspace permissions: organization flags and project access', async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}/workspaces`;
    const p = await createProject(ctx, org);
    const inP = await createWorkspace(ctx, org, p.id);
    const inDefault = await createWorkspace(ctx, org);

    // manage-workspaces: manages every workspace, creates only in the default project.
    const wsManager = await ctx.member(org, { 'manage-workspaces': true });
    assertStatus(await ctx.post(url, wsManager.token, wsBody({ name: unique('ws') })), 201);
    assertError(await ctx.post(url, wsManager.token, workspaceBody({ name: unique('ws') }, p.id)), 422, '/data/relationships/project/data/id');
    assertStatus(await ctx.patch(`/api/v2/workspaces/${inP.id}`, wsManager.token, wsBody({ description: 'managed' })), 200);
    const created = await createWorkspace(ctx, org, p.id);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${created.id}`, wsManager.token), 204);

    // read-workspaces: sees every workspace, changes none.
    const wsReader = await ctx.member(org, { 'read-workspaces': true });
    const seen = await ctx.get(`${url}?page[size]=100`, wsReader.token);
    assert.ok(seen.body.data.some((w: any) => w.id === inP.id) && seen.body.data.some((w: any) => w.id === inDefault.id));
    assertError(await ctx.patch(`/api/v2/workspaces/${inP.id}`, wsReader.token, wsBody({ description: 'x' })), 403);
    assertError(await ctx.delete(`/api/v2/workspaces/${inP.id}`, wsReader.token), 403);
    assertError(await ctx.post(url, wsReader.token, wsBody({ name: unique('ws') })), 403);

    // Project access: read sees the project's workspaces only; maintain creates, updates, deletes.
    const reader = await ctx.member(org);
    await grant(ctx, org, reader.teamId, p.id, 'read');
    const readerList = await ctx.get(url, reader.token);
    assert.deepEqual(
      readerList.body.data.map((w: any) => w.relationships.project.data.id).filter((id: string) => id !== p.id),
      [],
    );
    assert.ok(readerList.body.data.some((w: any) => w.id === inP.id));
    assertError(await ctx.get(`/api/v2/workspaces/${inDefault.id}`, reader.token), 404);
    assertError(await ctx.patch(`/api/v2/workspaces/${inP.id}`, reader.token, wsBody({ description: 'x' })), 403);
    assertError(await ctx.post(url, reader.token, workspaceBody({ name: unique('ws') }, p.id)), 403);
    const maintainer = await ctx.member(org);
    await grant(ctx, org, maintainer.teamId, p.id, 'maintain');
    const mine = await ctx.post(url, maintainer.token, workspaceBody({ name: unique('ws') }, p.id));
    assertStatus(mine, 201);
    assert.equal(mine.body.data.attributes.permissions['can-update'], true);
    assertStatus(await ctx.patch(`/api/v2/workspaces/${mine.body.data.id}`, maintainer.token, wsBody({ description: 'ok' })), 200);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${mine.body.data.id}`, maintainer.token), 204);
    assertError(await ctx.get(`/api/v2/workspaces/${inDefault.id}`, maintainer.token), 404);

    // Plain members see nothing; outsiders get 404 everywhere.
    const plain = await ctx.member(org);
    assert.deepEqual((await ctx.get(url, plain.token)).body.data, []);
    assertError(await ctx.get(`/api/v2/workspaces/${inP.id}`, plain.token), 404);
    const outsider = (await ctx.organization()).owner;
    assertError(await ctx.get(url, outsider.token), 404);
    assertError(await ctx.post(url, outsider.token, wsBody({ name: unique('ws') })), 404);
    assertError(await ctx.get(`/api/v2/workspaces/${inP.id}`, outsider.token), 404);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}/workspaces/${inP.attributes.name}`, outsider.token), 404);
    assertError(await ctx.patch(`/api/v2/workspaces/${inP.id}`, outsider.token, wsBody({ description: 'x' })), 404);
    assertError(await ctx.delete(`/api/v2/workspaces/${inP.id}`, outsider.token), 404);
  });

  it('requires a token (401), the JSON:API content type (415), and answers unknown ids with 404', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const url = `/api/v2/organizations/${org.name}/workspaces`;
    for (const res of [
      await ctx.get(url, null),
      await ctx.post(url, null, wsBody({ name: unique('ws') })),
      await ctx.get(`/api/v2/workspaces/${w.id}`, null),
      await ctx.patch(`/api/v2/workspaces/${w.id}`, null, wsBody({ description: 'x' })),
      await ctx.delete(`/api/v2/workspaces/${w.id}`, null),
      await ctx.get(`${url}/${w.attributes.name}`, null),
    ]) {
      assertError(res, 401);
    }
    assertError(await ctx.request('POST', url, { token: org.owner.token, body: wsBody({ name: unique('ws') }), contentType: 'application/json' }), 415);
    assertError(
      await ctx.request('PATCH', `/api/v2/workspaces/${w.id}`, { token: org.owner.token, body: wsBody({ name: 'x' }), contentType: 'text/plain' }),
      415,
    );
    for (const id of ['ws-0000000000000000', 'prj-0000000000000000', 'x']) {
      assertError(await ctx.get(`/api/v2/workspaces/${id}`, org.owner.token), 404);
      assertError(await ctx.patch(`/api/v2/workspaces/${id}`, org.owner.token, wsBody({ description: 'x' })), 404);
      assertError(await ctx.delete(`/api/v2/workspaces/${id}`, org.owner.token), 404);
    }
    assertError(await ctx.get(`${url}/no-such-workspace`, org.owner.token), 404);
    assert.ok(!ctx.logs.includes(org.owner.token));
  });
});

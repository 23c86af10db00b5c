// Workspace variables: the TFE shapes, validation, permissions, and the effective variables a run
// gets (all-vars and forRun), precedence included. Secrets: test/variables-secrets.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';
import { workspaceRefs, projectRefs } from './helpers/policy-sets.ts';
import { effective, precedenceRank } from '../src/variables/service.ts';
import { createSet, createSetVariable, createVariable, varBody, varUpdate } from './helpers/variables.ts';

const VAR_ID = /^var-[0-9A-Za-z]{16}$/;

suite('workspace variables', (ctx) => {
  const varsOf = (workspaceId: string) => `/api/v2/workspaces/${workspaceId}/vars`;

  it('creates a variable with TFE shape; create, show, list and update agree; the workspace lists it', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const res = await ctx.post(varsOf(ws.id), t, varBody({ key: 'region', value: 'eu-west-1', description: 'where', hcl: false, ignored: 'x' }));
    assertStatus(res, 201);
    const v = res.body.data;
    assert.match(v.id, VAR_ID);
    assert.match(v.attributes['version-id'], /^[0-9a-f]{40}$/);
    assert.deepEqual(res.body, {
      data: {
        id: v.id,
        type: 'vars',
        attributes: {
          key: 'region',
          value: 'eu-west-1',
          description: 'where',
          category: 'terraform',
          hcl: false,
          sensitive: false,
          'version-id': v.attributes['version-id'],
        },
        relationships: { configurable: { data: { id: ws.id, type: 'workspaces' }, links: { related: `/api/v2/workspaces/${ws.id}` } } },
        links: { self: `/api/v2/workspaces/${ws.id}/vars/${v.id}` },
      },
    });
    assert.deepEqual((await ctx.get(`${varsOf(ws.id)}/${v.id}`, t)).body, res.body);
    assert.deepEqual((await ctx.get(varsOf(ws.id), t)).body, { data: [v] });
    const shownWs = await ctx.get(`/api/v2/workspaces/${ws.id}`, t);
    assert.deepEqual(shownWs.body.data.relationships.vars, { data: [{ id: v.id, type: 'vars' }] });

    // Every update, even an empty one, is a new version.
    const same = await ctx.patch(`${varsOf(ws.id)}/${v.id}`, t, { data: { type: 'vars' } });
    assertStatus(same, 200);
    assert.notEqual(same.body.data.attributes['version-id'], v.attributes['version-id']);
    assert.deepEqual({ ...same.body.data.attributes, 'version-id': 'x' }, { ...v.attributes, 'version-id': 'x' });

    const updated = await ctx.patch(
      `${varsOf(ws.id)}/${v.id}`,
      t,
      varUpdate({ key: 'REGION', value: 'us-east-1', category: 'env', hcl: true, description: '' }),
    );
    assertStatus(updated, 200);
    assert.deepEqual(
      { ...updated.body.data.attributes, 'version-id': 'x' },
      { key: 'REGION', value: 'us-east-1', description: '', category: 'env', hcl: true, sensitive: false, 'version-id': 'x' },
    );

    assertStatus(await ctx.delete(`${varsOf(ws.id)}/${v.id}`, t), 204);
    assertError(await ctx.get(`${varsOf(ws.id)}/${v.id}`, t), 404);
    assertError(await ctx.delete(`${varsOf(ws.id)}/${v.id}`, t), 404);
  });

  it('defaults value and description to "", hcl and sensitive to false', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const v = await createVariable(ctx, org.owner.token, ws.id, { key: 'empty' });
    assert.deepEqual([v.attributes.value, v.attributes.description, v.attributes.hcl, v.attributes.sensitive], ['', '', false, false]);
  });

  it('lists in creation order: everything with only data, or a page with the envelope', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const keys = ['zeta', 'alpha', 'mid'];
    for (const key of keys) await createVariable(ctx, org.owner.token, ws.id, { key });
    const all = await ctx.get(varsOf(ws.id), org.owner.token);
    assert.deepEqual(Object.keys(all.body), ['data']);
    assert.deepEqual(
      all.body.data.map((v: any) => v.attributes.key),
      keys,
    );
    const page = await ctx.get(`${varsOf(ws.id)}?page[size]=2&page[number]=2`, org.owner.token);
    assert.deepEqual(
      page.body.data.map((v: any) => v.attributes.key),
      ['mid'],
    );
    assert.equal(page.body.meta.pagination['total-count'], 3);
    assertError(await ctx.get(`${varsOf(ws.id)}?page[size]=0`, org.owner.token), 400);
  });

  it('lists with one query for the page and one for the count, however many there are', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    for (let i = 0; i < 5; i++) await createVariable(ctx, org.owner.token, ws.id, { key: `k${i}` });
    const url = `${varsOf(ws.id)}?page[size]=50`;
    await ctx.get(url, org.owner.token); // warm the caller's caches
    const few = await ctx.countQueries(() => ctx.get(url, org.owner.token));
    for (let i = 5; i < 15; i++) await createVariable(ctx, org.owner.token, ws.id, { key: `k${i}` });
    const many = await ctx.countQueries(() => ctx.get(url, org.owner.token));
    assert.equal(many.queries, few.queries);
  });

  it('refuses bad bodies with 422 at the pointer, and changes nothing', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const v = await createVariable(ctx, t, ws.id, { key: 'taken', value: 'keep' });
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: 'taken' })), 422, '/data/attributes/key');
    // The same key in the other category is another variable.
    await createVariable(ctx, t, ws.id, { key: 'taken', category: 'env' });
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: '' })), 422, '/data/attributes/key');
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: '   ' })), 422, '/data/attributes/key');
    assertError(await ctx.post(varsOf(ws.id), t, { data: { type: 'vars', attributes: { value: 'x', category: 'terraform' } } }), 422, '/data/attributes/key');
    assertError(await ctx.post(varsOf(ws.id), t, { data: { type: 'vars', attributes: { key: 'x' } } }), 422, '/data/attributes/category');
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: 'x', category: 'policy-set' })), 422, '/data/attributes/category');
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: 'x', hcl: 'yes' })), 422, '/data/attributes/hcl');
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: 'x', description: 'd'.repeat(513) })), 422, '/data/attributes/description');
    assertError(await ctx.post(varsOf(ws.id), t, varBody({ key: 'x', value: 'v'.repeat(256 * 1024 + 1) })), 422, '/data/attributes/value');
    assertError(await ctx.post(varsOf(ws.id), t, { data: { type: 'workspaces', attributes: { key: 'x', category: 'env' } } }), 422, '/data/type');
    const one = `${varsOf(ws.id)}/${v.id}`;
    assertError(await ctx.patch(one, t, varUpdate({ key: 'taken', category: 'env' })), 422, '/data/attributes/key');
    assertError(await ctx.patch(one, t, varUpdate({ category: 'nope' })), 422, '/data/attributes/category');
    assertError(await ctx.request('POST', varsOf(ws.id), { token: t, body: varBody({ key: 'y' }), contentType: 'application/json' }), 415);
    assertError(await ctx.get(`${varsOf(ws.id)}/var-0000000000000000`, t), 404);
    assertError(await ctx.get(varsOf('ws-0000000000000000'), t), 404);
    const after = (await ctx.get(one, t)).body.data;
    assert.deepEqual([after.attributes.key, after.attributes.value, after.attributes.category], ['taken', 'keep', 'terraform']);
    assert.equal((await ctx.get(varsOf(ws.id), t)).body.data.length, 2);
  });

  it('follows the workspace `variables` permission: none 403, read reads, write writes; other organizations 404', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const v = await createVariable(ctx, org.owner.token, ws.id, { key: 'k', value: 'v' });
    const reader = await ctx.member(org);
    await grant(ctx, org, reader.teamId, project.id, 'read');
    const writer = await ctx.member(org);
    await grant(ctx, org, writer.teamId, project.id, 'write');
    const none = await ctx.member(org);
    await grant(ctx, org, none.teamId, project.id, 'custom', { 'workspace-access': { variables: 'none' } });
    // A team's grant on the workspace itself counts too.
    const wsWriter = await ctx.member(org);
    const tws = await ctx.post('/api/v2/team-workspaces', org.owner.token, {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'custom', variables: 'write' },
        relationships: { workspace: { data: { type: 'workspaces', id: ws.id } }, team: { data: { type: 'teams', id: wsWriter.teamId } } },
      },
    });
    assertStatus(tws, 200);
    const outsider = (await ctx.organization()).owner;
    const one = `${varsOf(ws.id)}/${v.id}`;

    assertStatus(await ctx.get(one, reader.token), 200);
    assertError(await ctx.patch(one, reader.token, varUpdate({ value: 'x' })), 403);
    assertError(await ctx.post(varsOf(ws.id), reader.token, varBody({ key: 'r' })), 403);
    assertError(await ctx.get(varsOf(ws.id), none.token), 403);
    assertStatus(await ctx.patch(one, writer.token, varUpdate({ value: 'by-writer' })), 200);
    assertStatus(await ctx.post(varsOf(ws.id), wsWriter.token, varBody({ key: 'w' })), 201);
    for (const res of [await ctx.get(one, outsider.token), await ctx.get(varsOf(ws.id), outsider.token), await ctx.delete(one, outsider.token)])
      assertError(res, 404);
    assertError(await ctx.get(varsOf(ws.id), null), 401);
    // A variable id under another workspace is absent there.
    const other = await createWorkspace(ctx, org, project.id);
    assertError(await ctx.get(`${varsOf(other.id)}/${v.id}`, org.owner.token), 404);
  });

  it("serves TFE's older /vars routes: list by names, create naming the workspace, update and delete by id", async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const created = await ctx.post('/api/v2/vars', t, {
      data: {
        type: 'vars',
        attributes: { key: 'old', value: 'style', category: 'env' },
        relationships: { workspace: { data: { type: 'workspaces', id: ws.id } } },
      },
    });
    assertStatus(created, 201);
    const v = created.body.data;
    assert.deepEqual(v.relationships.configurable.data, { id: ws.id, type: 'workspaces' });
    const listed = await ctx.get(`/api/v2/vars?filter[organization][name]=${org.name}&filter[workspace][name]=${ws.attributes.name}`, t);
    assert.deepEqual(listed.body, { data: [v] });
    const updated = await ctx.patch(`/api/v2/vars/${v.id}`, t, varUpdate({ value: 'new' }));
    assertStatus(updated, 200);
    assert.equal(updated.body.data.attributes.value, 'new');
    assertStatus(await ctx.delete(`/api/v2/vars/${v.id}`, t), 204);
    assertError(await ctx.delete(`/api/v2/vars/${v.id}`, t), 404);
    assertError(await ctx.get(`/api/v2/vars?filter[organization][name]=${org.name}`, t), 400);
    assertError(await ctx.get(`/api/v2/vars?filter[organization][name]=${org.name}&filter[workspace][name]=nope`, t), 404);
    assertError(await ctx.post('/api/v2/vars', t, { data: { type: 'vars', attributes: { key: 'k', category: 'env' } } }), 422, '/data/relationships');
    // A variable set's variable is not reachable here.
    const set = await createSet(ctx, org);
    const sv = await createSetVariable(ctx, t, set.id, { key: 'k' });
    assertError(await ctx.patch(`/api/v2/vars/${sv.id}`, t, varUpdate({ value: 'x' })), 404);
    assertError(await ctx.patch(`/api/v2/vars/${sv.id}`, (await ctx.organization()).owner.token, varUpdate({ value: 'x' })), 404);
  });

  it('goes with its workspace', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const v = await createVariable(ctx, org.owner.token, ws.id, { key: 'k' });
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, org.owner.token), 204);
    assert.equal(await ctx.database.db.selectFrom('variables').select('id').where('id', '=', v.id).executeTakeFirst(), undefined);
  });

  it('gives a run the effective variables: workspace over sets; priority sets over everything; workspace-scoped over project-scoped over global', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const globalSet = await createSet(ctx, org, { global: true });
    const projectSet = await createSet(ctx, org);
    const workspaceSet = await createSet(ctx, org);
    const prioritySet = await createSet(ctx, org, { priority: true });
    const unapplied = await createSet(ctx, org);
    assertStatus(await ctx.post(`/api/v2/varsets/${projectSet.id}/relationships/projects`, t, projectRefs(project.id)), 204);
    for (const s of [workspaceSet, prioritySet]) assertStatus(await ctx.post(`/api/v2/varsets/${s.id}/relationships/workspaces`, t, workspaceRefs(ws.id)), 204);

    const put = (setId: string, key: string, value: string, extra: Record<string, unknown> = {}) => createSetVariable(ctx, t, setId, { key, value, ...extra });
    // `a`: everywhere; the priority set wins over the workspace's own.
    for (const [id, value] of [
      [globalSet.id, 'global'],
      [projectSet.id, 'project'],
      [workspaceSet.id, 'workspace-set'],
      [prioritySet.id, 'priority'],
    ] as const)
      await put(id, 'a', value);
    await createVariable(ctx, t, ws.id, { key: 'a', value: 'own' });
    // `b`: the workspace's own wins over every ordinary set.
    for (const [id, value] of [
      [globalSet.id, 'global'],
      [projectSet.id, 'project'],
      [workspaceSet.id, 'workspace-set'],
    ] as const)
      await put(id, 'b', value);
    await createVariable(ctx, t, ws.id, { key: 'b', value: 'own' });
    // `c`: workspace-scoped over project-scoped over global; `d`: project over global; `e`: global only.
    for (const [id, value] of [
      [globalSet.id, 'global'],
      [projectSet.id, 'project'],
      [workspaceSet.id, 'workspace-set'],
    ] as const)
      await put(id, 'c', value);
    for (const [id, value] of [
      [globalSet.id, 'global'],
      [projectSet.id, 'project'],
    ] as const)
      await put(id, 'd', value);
    await put(globalSet.id, 'e', 'global');
    // The same key in the other category is another variable; a set applied nowhere gives nothing.
    await put(globalSet.id, 'a', 'env-global', { category: 'env' });
    await put(unapplied.id, 'f', 'never');
    // Sensitive values reach the run in clear text.
    await put(workspaceSet.id, 'secret', 'hush', { sensitive: true, hcl: true });

    const run = await ctx.services.variables.forRun(ws.id);
    const byKey = Object.fromEntries(run.map((v) => [`${v.category}:${v.key}`, v]));
    assert.deepEqual(Object.keys(byKey).sort(), ['env:a', 'terraform:a', 'terraform:b', 'terraform:c', 'terraform:d', 'terraform:e', 'terraform:secret']);
    assert.deepEqual(Object.fromEntries(Object.entries(byKey).map(([k, v]) => [k, v.value])), {
      'terraform:a': 'priority',
      'terraform:b': 'own',
      'terraform:c': 'workspace-set',
      'terraform:d': 'project',
      'terraform:e': 'global',
      'env:a': 'env-global',
      'terraform:secret': 'hush',
    });
    assert.deepEqual(byKey['terraform:secret'], { key: 'secret', value: 'hush', category: 'terraform', hcl: true, sensitive: true });

    // all-vars shows the same winners, with the sensitive value hidden.
    const all = await ctx.get(`/api/v2/workspaces/${ws.id}/all-vars`, t);
    assertStatus(all, 200);
    const shown = Object.fromEntries(all.body.data.map((v: any) => [`${v.attributes.category}:${v.attributes.key}`, v.attributes.value]));
    assert.deepEqual(shown, { ...Object.fromEntries(Object.entries(byKey).map(([k, v]) => [k, v.value])), 'terraform:secret': null });

    // Removing the priority set from the workspace hands `a` back to the workspace's own.
    assertStatus(await ctx.delete(`/api/v2/varsets/${prioritySet.id}/relationships/workspaces`, t, workspaceRefs(ws.id)), 204);
    assert.equal((await ctx.services.variables.forRun(ws.id)).find((v) => v.key === 'a' && v.category === 'terraform')!.value, 'own');
    await assert.rejects(ctx.services.variables.forRun('ws-0000000000000000'), /not found/);
  });

  it("gathers a run's variables with a fixed number of queries, however many sets apply", async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const ws = await createWorkspace(ctx, org);
    let made = 0;
    const addSets = async (n: number) => {
      for (let i = 0; i < n; i++, made++) {
        const s = await createSet(ctx, org);
        await createSetVariable(ctx, t, s.id, { key: `k${made}`, value: 'v', sensitive: made % 2 === 0 });
        assertStatus(await ctx.post(`/api/v2/varsets/${s.id}/relationships/workspaces`, t, workspaceRefs(ws.id)), 204);
      }
    };
    await addSets(1);
    const few = await ctx.countQueries(() => ctx.services.variables.forRun(ws.id));
    await addSets(5);
    const many = await ctx.countQueries(() => ctx.services.variables.forRun(ws.id));
    assert.equal(many.result.length, 6);
    assert.equal(many.queries, few.queries);
  });

  it('ranks sources as TFE documents, and breaks ties between sets of one rank by name', () => {
    const order = [
      { set: { priority: true, scope: 'global' as const } },
      { set: { priority: true, scope: 'project' as const } },
      { set: { priority: true, scope: 'workspace' as const } },
      { set: null },
      { set: { priority: false, scope: 'workspace' as const } },
      { set: { priority: false, scope: 'project' as const } },
      { set: { priority: false, scope: 'global' as const } },
    ];
    const ranks = order.map(precedenceRank);
    assert.deepEqual(
      [...ranks].sort((a, b) => a - b),
      ranks,
    );
    assert.equal(new Set(ranks).size, ranks.length);
    const sets = [
      { id: 'varset-b', name: 'B_set', priority: false, scope: 'workspace' as const },
      { id: 'varset-a', name: 'A_set', priority: false, scope: 'workspace' as const },
    ];
    const winners = effective(
      [
        { id: 'var-1', key: 'k', category: 'terraform' as const, setId: 'varset-b' },
        { id: 'var-2', key: 'k', category: 'terraform' as const, setId: 'varset-a' },
      ],
      sets,
    );
    assert.deepEqual(
      winners.map((v) => v.id),
      ['var-2'],
    );
  });
});

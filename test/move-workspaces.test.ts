import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, projectsOf, seedWorkspaces, type Org } from './helpers/projects.ts';

const moveBody = (ids: string[]) => ({ data: ids.map((id) => ({ type: 'workspaces', id })) });
const OFFENDING = /^Workspace\(s\) not found, or you are not authorized to move them: (.*)$/;

suite('moving workspaces', (ctx) => {
  const move = (org: Org | { owner: { token: string } } | string, projectId: string, ids: string[]) =>
    ctx.post(`/api/v2/projects/${projectId}/relationships/workspaces`, typeof org === 'string' ? org : org.owner.token, moveBody(ids));

  it('moves workspaces from several projects into one (204, no body) and updates the counts', async () => {
    const org = await ctx.organization();
    const [a, b, dest] = [await createProject(ctx, org), await createProject(ctx, org), await createProject(ctx, org)];
    const wa = [await createWorkspace(ctx, org, a.id), await createWorkspace(ctx, org, a.id)];
    const wb = await createWorkspace(ctx, org, b.id);
    const already = await createWorkspace(ctx, org, dest.id);
    const ids = [...wa.map((w) => w.id), wb.id, already.id];
    const res = await move(org, dest.id, ids);
    assertStatus(res, 204);
    assert.equal(res.raw, '');
    const where = await projectsOf(ctx, ids);
    assert.deepEqual([...new Set(where.values())], [dest.id]);
    const count = async (id: string) => (await ctx.get(`/api/v2/projects/${id}`, org.owner.token)).body.data.attributes['workspace-count'];
    assert.deepEqual([await count(a.id), await count(b.id), await count(dest.id)], [0, 0, 4]);
    const shown = await ctx.get(`/api/v2/workspaces/${wb.id}`, org.owner.token);
    assert.equal(shown.body.data.relationships.project.data.id, dest.id);
    // Now empty, the source projects can be deleted.
    assertStatus(await ctx.delete(`/api/v2/projects/${a.id}`, org.owner.token), 204);
  });

  it('refuses bad bodies with 422 and moves nothing', async () => {
    const org = await ctx.organization();
    const dest = await createProject(ctx, org);
    const w = [await createWorkspace(ctx, org), await createWorkspace(ctx, org)];
    const url = `/api/v2/projects/${dest.id}/relationships/workspaces`;
    const t = org.owner.token;
    assertError(await ctx.post(url, t, { data: [] }), 422, '/data');
    assertError(await ctx.post(url, t, { data: {} }), 422, '/data');
    assertError(await ctx.post(url, t, {}), 422, '/data');
    let e = assertError(await ctx.post(url, t, moveBody([w[0]!.id, w[1]!.id, w[0]!.id])), 422, '/data/2/id');
    assert.match(e.detail!, new RegExp(w[0]!.id));
    assertError(
      await ctx.post(url, t, {
        data: [
          { type: 'workspaces', id: w[0]!.id },
          { type: 'projects', id: w[1]!.id },
        ],
      }),
      422,
      '/data/1/type',
    );
    assertError(await ctx.post(url, t, { data: [{ type: 'workspaces' }] }), 422, '/data/0/id');
    assertError(await ctx.post(url, t, { data: [{ type: 'workspaces', id: 7 }] }), 422, '/data/0/id');
    e = assertError(await ctx.request('POST', url, { token: t, body: moveBody([w[0]!.id]), contentType: 'application/json' }), 415);
    assertError(await ctx.post(url, null, moveBody([w[0]!.id])), 401);
    const where = await projectsOf(
      ctx,
      w.map((x) => x.id),
    );
    assert.deepEqual([...new Set(where.values())], [org.defaultProjectId]);
  });

  it('answers 404 when the destination is missing, elsewhere or not movable-into by the caller', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const dest = await createProject(ctx, org);
    assertError(await move(org, 'prj-0000000000000000', [w.id]), 404);
    assertError(await move(org, 'nonsense', [w.id]), 404);
    const other = await ctx.organization();
    assertError(await move(org, (await createProject(ctx, other)).id, [w.id]), 404);
    assertError(await move(other, dest.id, [w.id]), 404);
    // A member who may read the destination (and move out of the source) but not move into it.
    const member = await ctx.member(org);
    await grant(ctx, org, member.teamId, org.defaultProjectId, 'admin');
    await grant(ctx, org, member.teamId, dest.id, 'maintain');
    assertError(await move(member.token, dest.id, [w.id]), 404);
    const invisible = await createProject(ctx, org);
    assertError(await move(member.token, invisible.id, [w.id]), 404);
    const wsManager = await ctx.member(org, { 'manage-workspaces': true });
    assertError(await move(wsManager.token, dest.id, [w.id]), 404);
    assert.equal((await projectsOf(ctx, [w.id])).get(w.id), org.defaultProjectId);
  });

  it('answers 403 listing every offending workspace, and moves none of them', async () => {
    const org = await ctx.organization();
    const [movable, locked, hidden, dest] = [
      await createProject(ctx, org),
      await createProject(ctx, org),
      await createProject(ctx, org),
      await createProject(ctx, org),
    ];
    const member = await ctx.member(org);
    await grant(ctx, org, member.teamId, movable.id, 'admin');
    await grant(ctx, org, member.teamId, locked.id, 'maintain');
    await grant(ctx, org, member.teamId, dest.id, 'custom', { 'workspace-access': { move: true } });
    const ok = await createWorkspace(ctx, org, movable.id);
    const notMovable = await createWorkspace(ctx, org, locked.id);
    const notVisible = await createWorkspace(ctx, org, hidden.id);
    const foreign = await createWorkspace(ctx, await ctx.organization());
    const missing = 'ws-0000000000000000';
    const ids = [ok.id, notMovable.id, missing, notVisible.id, foreign.id, 'garbage'];
    const e = assertError(await move(member.token, dest.id, ids), 403);
    assert.equal(e.title, 'forbidden');
    assert.deepEqual(OFFENDING.exec(e.detail!)?.[1]!.split(', '), [notMovable.id, missing, notVisible.id, foreign.id, 'garbage']);
    const where = await projectsOf(ctx, [ok.id, notMovable.id, notVisible.id]);
    assert.deepEqual([where.get(ok.id), where.get(notMovable.id), where.get(notVisible.id)], [movable.id, locked.id, hidden.id]);
    // Without the offenders the same caller's move succeeds.
    assertStatus(await move(member.token, dest.id, [ok.id]), 204);
    assert.equal((await projectsOf(ctx, [ok.id])).get(ok.id), dest.id);
  });

  it('needs move permission on both ends: admin, custom move, manage-projects, owners', async () => {
    const org = await ctx.organization();
    const [src, dest] = [await createProject(ctx, org), await createProject(ctx, org)];
    const cases: Array<[string, () => Promise<{ token: string }>, boolean]> = [
      [
        'admin on both',
        async () => {
          const m = await ctx.member(org);
          await grant(ctx, org, m.teamId, src.id, 'admin');
          await grant(ctx, org, m.teamId, dest.id, 'admin');
          return m;
        },
        true,
      ],
      [
        'custom move on both',
        async () => {
          const m = await ctx.member(org);
          for (const p of [src, dest]) await grant(ctx, org, m.teamId, p.id, 'custom', { 'workspace-access': { move: true } });
          return m;
        },
        true,
      ],
      ['manage-projects', async () => ctx.member(org, { 'manage-projects': true }), true],
      [
        'admin on destination only',
        async () => {
          const m = await ctx.member(org);
          await grant(ctx, org, m.teamId, dest.id, 'admin');
          await grant(ctx, org, m.teamId, src.id, 'write');
          return m;
        },
        false,
      ],
      [
        'manage-workspaces and admin on destination',
        async () => {
          const m = await ctx.member(org, { 'manage-workspaces': true });
          await grant(ctx, org, m.teamId, dest.id, 'admin');
          return m;
        },
        false,
      ],
    ];
    for (const [label, caller, allowed] of cases) {
      const w = await createWorkspace(ctx, org, src.id);
      const res = await move((await caller()).token, dest.id, [w.id]);
      if (allowed) assertStatus(res, 204);
      else assert.match(assertError(res, 403).detail!, new RegExp(w.id), label);
      assert.equal((await projectsOf(ctx, [w.id])).get(w.id), allowed ? dest.id : src.id, label);
    }
  });

  it('moves one workspace with PATCH /workspaces/:id under the same rules, atomically', async () => {
    const org = await ctx.organization();
    const [src, dest] = [await createProject(ctx, org), await createProject(ctx, org)];
    const w = await createWorkspace(ctx, org, src.id);
    const patch = (token: string, projectId: string, attributes: Record<string, unknown> = {}, id = w.id) =>
      ctx.patch(`/api/v2/workspaces/${id}`, token, {
        data: { type: 'workspaces', attributes, relationships: { project: { data: { type: 'projects', id: projectId } } } },
      });
    const res = await patch(org.owner.token, dest.id, { description: 'moved' });
    assertStatus(res, 200);
    assert.equal(res.body.data.relationships.project.data.id, dest.id);
    assert.equal(res.body.data.attributes.description, 'moved');
    assertError(await patch(org.owner.token, 'prj-0000000000000000'), 404);

    const member = await ctx.member(org);
    await grant(ctx, org, member.teamId, dest.id, 'maintain');
    await grant(ctx, org, member.teamId, src.id, 'admin');
    // Source (dest, maintain) does not allow moving out: 403, and the description is not changed either.
    const e = assertError(await patch(member.token, src.id, { description: 'should not stick' }), 403);
    assert.match(e.detail!, new RegExp(w.id));
    let shown = await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token);
    assert.deepEqual([shown.body.data.relationships.project.data.id, shown.body.data.attributes.description], [dest.id, 'moved']);
    // A rename that collides rolls the move back too.
    const taken = await createWorkspace(ctx, org, dest.id);
    assertError(await patch(org.owner.token, src.id, { name: taken.attributes.name }), 422, '/data/attributes/name');
    shown = await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token);
    assert.equal(shown.body.data.relationships.project.data.id, dest.id);
    // Move rights alone are enough to move (no workspace admin needed); the same project is a no-op.
    const mover = await ctx.member(org);
    for (const p of [src, dest]) await grant(ctx, org, mover.teamId, p.id, 'custom', { 'workspace-access': { move: true } });
    assertStatus(await patch(mover.token, src.id), 200);
    assertStatus(await patch(mover.token, src.id), 200);
    assertError(await patch(mover.token, dest.id, { description: 'needs admin' }), 403);
    assert.equal((await projectsOf(ctx, [w.id])).get(w.id), src.id);
  });

  it('moves 1,000 workspaces in one request with as many queries as moving 2', async () => {
    const org = await ctx.organization();
    const [src, dest] = [await createProject(ctx, org), await createProject(ctx, org)];
    const many = await seedWorkspaces(ctx, org, src.id, 1000);
    const few = many.slice(0, 2);
    const member = await ctx.member(org);
    for (const p of [src, dest]) await grant(ctx, org, member.teamId, p.id, 'admin');
    await move(member.token, dest.id, [few[0]!]); // warms the token lookup
    await move(member.token, src.id, [few[0]!]);
    const small = await ctx.countQueries(() => move(member.token, dest.id, few));
    assertStatus(small.result, 204);
    const large = await ctx.countQueries(() => move(member.token, dest.id, many));
    assertStatus(large.result, 204);
    assert.equal(large.queries, small.queries, `1,000 took ${large.queries} queries, 2 took ${small.queries}`);
    assert.ok(large.queries <= 12, `${large.queries} queries`);
    const where = await projectsOf(ctx, many);
    assert.equal(where.size, 1000);
    assert.deepEqual([...new Set(where.values())], [dest.id]);
    const counts = await ctx.get(`/api/v2/organizations/${org.name}/projects?filter[names]=${encodeURIComponent(dest.attributes.name)}`, org.owner.token);
    assert.equal(counts.body.data[0].attributes['workspace-count'], 1000);
  });
});

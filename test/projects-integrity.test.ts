import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, workspaceBody, type Org } from './helpers/projects.ts';

/** A small deterministic PRNG, so a failing interleaving can be replayed from its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

suite('projects integrity', (ctx) => {
  it('keeps a project that holds workspaces even against a direct DELETE (foreign key)', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    await createWorkspace(ctx, org, p.id);
    await assert.rejects(ctx.database.db.deleteFrom('projects').where('id', '=', p.id).execute());
    assertStatus(await ctx.get(`/api/v2/projects/${p.id}`, org.owner.token), 200);
  });

  it('deletes an organization with all its projects, workspaces and team access', async () => {
    const org = await ctx.organization();
    const keep = await ctx.organization();
    const keepWs = await createWorkspace(ctx, keep, (await createProject(ctx, keep)).id);
    const projects = [await createProject(ctx, org), await createProject(ctx, org)];
    const workspaces = [await createWorkspace(ctx, org, projects[0]!.id), await createWorkspace(ctx, org, projects[1]!.id), await createWorkspace(ctx, org)];
    const member = await ctx.member(org);
    const g = await grant(ctx, org, member.teamId, projects[0]!.id, 'admin');
    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    const db = ctx.database.db;
    const left = async (table: 'projects' | 'workspaces' | 'team_projects', ids: string[]) =>
      (await db.selectFrom(table).select('id').where('id', 'in', ids).execute()).length;
    assert.equal(await left('projects', [...projects.map((p) => p.id), org.defaultProjectId]), 0);
    assert.equal(
      await left(
        'workspaces',
        workspaces.map((w) => w.id),
      ),
      0,
    );
    assert.equal(await left('team_projects', [g.id]), 0);
    // Another organization's rows are untouched.
    assertStatus(await ctx.get(`/api/v2/workspaces/${keepWs.id}`, keep.owner.token), 200);
  });

  it('stays consistent under concurrent moves, deletes and creates', async () => {
    for (const seed of [1, 2, 3]) {
      const random = prng(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const org: Org = await ctx.organization();
      const projects = [org.defaultProjectId];
      // Three projects start with workspaces, five start empty: deleting those races moves into them.
      for (let i = 0; i < 8; i++) projects.push((await createProject(ctx, org)).id);
      const workspaces: string[] = [];
      for (let i = 0; i < 24; i++) workspaces.push((await createWorkspace(ctx, org, projects[1 + (i % 3)])).id);

      type Op = { kind: string; run: () => Promise<{ status: number; raw: string }>; ok: number[]; target?: string };
      const ops: Op[] = [];
      const t = org.owner.token;
      for (let i = 0; i < 24; i++) {
        const ids = [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(workspaces)))];
        const dest = pick(projects);
        ops.push({
          kind: 'move',
          target: dest,
          ok: [204, 403, 404],
          run: () => ctx.post(`/api/v2/projects/${dest}/relationships/workspaces`, t, { data: ids.map((id) => ({ type: 'workspaces', id })) }),
        });
      }
      for (const p of projects.slice(1)) {
        for (let k = 0; k < 2; k++) ops.push({ kind: 'delete-project', target: p, ok: [204, 404, 409], run: () => ctx.delete(`/api/v2/projects/${p}`, t) });
      }
      for (let i = 0; i < 4; i++) {
        const w = pick(workspaces);
        ops.push({ kind: 'delete-workspace', target: w, ok: [204, 404], run: () => ctx.delete(`/api/v2/workspaces/${w}`, t) });
      }
      for (let i = 0; i < 6; i++) {
        const p = pick(projects.slice(1));
        ops.push({
          kind: 'create-workspace',
          target: p,
          ok: [201, 422],
          run: () => ctx.post(`/api/v2/organizations/${org.name}/workspaces`, t, workspaceBody({ name: unique('race') }, p)),
        });
      }
      for (let i = ops.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [ops[i], ops[j]] = [ops[j]!, ops[i]!];
      }

      const results = await Promise.all(ops.map((op) => op.run()));
      for (const [i, res] of results.entries()) {
        assert.ok(ops[i]!.ok.includes(res.status), `seed ${seed}: ${ops[i]!.kind} answered ${res.status}: ${res.raw}`);
      }

      // No workspace points at a missing project.
      const orphans = await ctx.database.db
        .selectFrom('workspaces as w')
        .leftJoin('projects as p', 'p.id', 'w.project_id')
        .select('w.id')
        .where('p.id', 'is', null)
        .execute();
      assert.deepEqual(orphans, [], `seed ${seed}`);

      // A project reported deleted is gone, and every remaining count is right.
      const deleted = new Set(ops.filter((op, i) => op.kind === 'delete-project' && results[i]!.status === 204).map((op) => op.target));
      const listed = await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100`, t);
      const remaining = new Map<string, number>(listed.body.data.map((p: any) => [p.id, p.attributes['workspace-count']]));
      for (const p of projects) assert.equal(remaining.has(p), !deleted.has(p), `seed ${seed}: project ${p}`);
      const all = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?page[size]=100`, t);
      const actual = new Map<string, number>();
      for (const w of all.body.data) {
        const p = w.relationships.project.data.id;
        actual.set(p, (actual.get(p) ?? 0) + 1);
      }
      for (const [p, count] of remaining) assert.equal(count, actual.get(p) ?? 0, `seed ${seed}: workspace-count of ${p}`);
      const created = results.filter((r, i) => ops[i]!.kind === 'create-workspace' && r.status === 201).length;
      const removed = new Set(ops.filter((op, i) => op.kind === 'delete-workspace' && results[i]!.status === 204).map((op) => op.target)).size;
      assert.equal(all.body.meta.pagination['total-count'], workspaces.length + created - removed, `seed ${seed}: workspace total`);
      // A move that succeeded into a project that was then deleted is impossible: deleted projects were empty.
      for (const p of deleted) assert.ok(!actual.has(p!), `seed ${seed}: workspaces left in deleted project ${p}`);
    }
  });
});

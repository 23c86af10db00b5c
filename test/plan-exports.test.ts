// Plan exports: POST /plan-exports, GET /plan-exports/:id, its download and DELETE. The only
// format, sentinel-mock-bundle-v0, is Sentinel mocks of a finished plan as a .tar.gz; exporting
// takes the workspace's `sentinel-mocks` permission. Runs are driven through the runners'
// reports here (test/policy-checks-terraform.test.ts exports a real plan and tests a policy with it).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import * as tar from 'tar';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, grant, memberWithAccess } from './helpers/projects.ts';
import { advancePlan, uploadConfiguration } from './helpers/runner.ts';

const MAIN_TF = { 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' };
const PLAN_JSON = JSON.stringify({
  format_version: '1.2',
  terraform_version: '1.9.8',
  resource_changes: [
    {
      address: 'terraform_data.a',
      mode: 'managed',
      type: 'terraform_data',
      name: 'a',
      provider_name: 'terraform.io/builtin/terraform',
      change: { actions: ['create'], before: null, after: { input: 'x' }, after_unknown: { id: true } },
    },
  ],
});
const body = (planId: string | null, dataType: string | null = 'sentinel-mock-bundle-v0') => ({
  data: {
    type: 'plan-exports',
    ...(dataType === null ? {} : { attributes: { 'data-type': dataType } }),
    relationships: { plan: { data: planId === null ? null : { type: 'plans', id: planId } } },
  },
});

/** A run of the workspace whose plan a runner finished (with PLAN_JSON), or only started; its plan's id. */
async function plannedRun(ctx: TestContext, token: string, workspaceId: string, finished = true): Promise<{ runId: string; planId: string }> {
  await uploadConfiguration(ctx, token, workspaceId, MAIN_TF);
  const res = await ctx.post('/api/v2/runs', token, {
    data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
  });
  assertStatus(res, 201);
  const runId = res.body.data.id;
  return { runId, planId: (await advancePlan(ctx, runId, finished ? 'planned' : 'planning', PLAN_JSON)).planId };
}

/** The files of a downloaded bundle, by name. */
async function unpack(bytes: Buffer): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-plan-export-'));
  try {
    writeFileSync(path.join(dir, 'bundle.tar.gz'), bytes);
    await tar.x({ file: path.join(dir, 'bundle.tar.gz'), cwd: dir });
    const names = readdirSync(dir).filter((n) => n !== 'bundle.tar.gz');
    return Object.fromEntries(names.map((n) => [n, readFileSync(path.join(dir, n), 'utf8')]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

suite('plan exports', (ctx) => {
  it('exports a finished plan as Sentinel mocks: shown, downloaded as a .tar.gz of the four imports, and deleted', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const ws = await createWorkspace(ctx, org);
    const { runId, planId } = await plannedRun(ctx, t, ws.id);

    const created = await ctx.post('/api/v2/plan-exports', t, body(planId));
    assertStatus(created, 201);
    const e = created.body.data;
    assert.match(e.id, /^pe-[A-Za-z0-9]{16}$/);
    assert.equal(e.type, 'plan-exports');
    assert.equal(e.attributes['data-type'], 'sentinel-mock-bundle-v0');
    assert.equal(e.attributes.status, 'finished');
    assert.ok(e.attributes['status-timestamps']['queued-at']);
    assert.ok(e.attributes['status-timestamps']['finished-at']);
    assert.equal(e.relationships.plan.data.id, planId);

    const shown = await ctx.get(`/api/v2/plan-exports/${e.id}`, t);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, e);

    const got = await ctx.app.inject({ method: 'GET', url: `/api/v2/plan-exports/${e.id}/download`, headers: { authorization: `Bearer ${t}` } });
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['content-type'], 'application/x-gzip');
    assert.match(String(got.headers['content-disposition']), new RegExp(`${e.id}\\.tar\\.gz`));
    const files = await unpack(got.rawPayload);
    assert.deepEqual(Object.keys(files).sort(), [
      'mock-tfconfig-v2.sentinel',
      'mock-tfplan-v2.sentinel',
      'mock-tfrun.sentinel',
      'mock-tfstate-v2.sentinel',
      'sentinel.hcl',
    ]);
    assert.match(files['mock-tfplan-v2.sentinel']!, /^terraform_version = "1\.9\.8"$/m);
    assert.match(files['mock-tfplan-v2.sentinel']!, /"terraform_data\.a": \{/);
    assert.match(files['mock-tfrun.sentinel']!, new RegExp(`^id = "${runId}"$`, 'm'));
    assert.match(files['mock-tfrun.sentinel']!, new RegExp(`"name": "${org.name}"`));
    assert.match(files['sentinel.hcl']!, /mock "tfplan\/v2" \{\n {2}module \{\n {4}source = "mock-tfplan-v2.sentinel"/);

    assertStatus(await ctx.delete(`/api/v2/plan-exports/${e.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}`, t), 404);
    // The plan can be exported again once its export is gone.
    assertStatus(await ctx.post('/api/v2/plan-exports', t, body(planId)), 201);
  });

  it('keeps one downloadable export of a plan; an hour after it finished it is expired, and another can be made', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const ws = await createWorkspace(ctx, org);
    const { planId } = await plannedRun(ctx, t, ws.id);
    const first = (await ctx.post('/api/v2/plan-exports', t, body(planId))).body.data;
    assertError(await ctx.post('/api/v2/plan-exports', t, body(planId)), 422, '/data/relationships/plan/data');

    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000 - 1000).toISOString();
    await ctx.database.db.updateTable('plan_exports').set({ finished_at: anHourAgo }).where('id', '=', first.id).execute();
    const expired = await ctx.get(`/api/v2/plan-exports/${first.id}`, t);
    assert.equal(expired.body.data.attributes.status, 'expired');
    assert.ok(expired.body.data.attributes['status-timestamps']['expired-at']);
    assertError(await ctx.get(`/api/v2/plan-exports/${first.id}/download`, t), 409);
    assertStatus(await ctx.post('/api/v2/plan-exports', t, body(planId)), 201);
  });

  it('refuses a bad body with 422 and a pointer, an unknown id with 404, and another content type with 415', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const ws = await createWorkspace(ctx, org);
    const { planId } = await plannedRun(ctx, t, ws.id);
    const unfinished = await plannedRun(ctx, t, (await createWorkspace(ctx, org)).id, false);
    assertError(await ctx.post('/api/v2/plan-exports', t, body(planId, null)), 422, '/data/attributes/data-type');
    assertError(await ctx.post('/api/v2/plan-exports', t, body(planId, 'sentinel-mock-bundle-v1')), 422, '/data/attributes/data-type');
    assertError(await ctx.post('/api/v2/plan-exports', t, body(null)), 422, '/data/relationships/plan/data');
    assertError(await ctx.post('/api/v2/plan-exports', t, { data: { type: 'plan-exports', attributes: { 'data-type': 'sentinel-mock-bundle-v0' } } }), 422);
    assertError(await ctx.post('/api/v2/plan-exports', t, body(unfinished.planId)), 422, '/data/relationships/plan/data');
    assertError(await ctx.post('/api/v2/plan-exports', t, { data: 'nope' }), 422);
    assertError(await ctx.post('/api/v2/plan-exports', t, body('plan-0000000000000000')), 404);
    assertError(await ctx.post('/api/v2/plan-exports', t, body(`apply-${planId.slice(5)}`)), 404);
    for (const id of ['pe-0000000000000000', 'nonexisting']) {
      assertError(await ctx.get(`/api/v2/plan-exports/${id}`, t), 404);
      assertError(await ctx.get(`/api/v2/plan-exports/${id}/download`, t), 404);
      assertError(await ctx.delete(`/api/v2/plan-exports/${id}`, t), 404);
    }
    const wrongType = await ctx.app.inject({
      method: 'POST',
      url: '/api/v2/plan-exports',
      headers: { authorization: `Bearer ${t}`, 'content-type': 'text/plain' },
      payload: JSON.stringify(body(planId)),
    });
    assert.equal(wrongType.statusCode, 415);
    // Nothing was made by any refused request.
    const made = await ctx.database.db.selectFrom('plan_exports').select('id').where('plan_id', 'in', [planId, unfinished.planId]).execute();
    assert.deepEqual(made, []);
  });

  it("takes the workspace's sentinel-mocks permission: readers get 403, another organization 404, no token 401", async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const { planId } = await plannedRun(ctx, t, ws.id);
    const e = (await ctx.post('/api/v2/plan-exports', t, body(planId))).body.data;

    const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    assertError(await ctx.post('/api/v2/plan-exports', reader.token, body(planId)), 403);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}`, reader.token), 403);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}/download`, reader.token), 403);
    assertError(await ctx.delete(`/api/v2/plan-exports/${e.id}`, reader.token), 403);

    // A custom grant with `sentinel-mocks: read` and nothing else of note may.
    const custom = await memberWithAccess(ctx, org, []);
    await grant(ctx, org, custom.teamId, project.id, 'custom', { 'workspace-access': { 'sentinel-mocks': 'read' } });
    assertStatus(await ctx.get(`/api/v2/plan-exports/${e.id}`, custom.token), 200);
    const downloaded = await ctx.app.inject({
      method: 'GET',
      url: `/api/v2/plan-exports/${e.id}/download`,
      headers: { authorization: `Bearer ${custom.token}` },
    });
    assert.equal(downloaded.statusCode, 200);

    const other = await ctx.organization();
    assertError(await ctx.post('/api/v2/plan-exports', other.owner.token, body(planId)), 404);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}/download`, other.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/plan-exports/${e.id}`, other.owner.token), 404);
    assertError(await ctx.post('/api/v2/plan-exports', null, body(planId)), 401);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}`, null), 401);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}/download`, null), 401);
    assertStatus(await ctx.get(`/api/v2/plan-exports/${e.id}`, t), 200);
  });

  it('goes with its run: deleting the workspace deletes its plans’ exports', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const ws = await createWorkspace(ctx, org);
    const { planId } = await plannedRun(ctx, t, ws.id);
    const e = (await ctx.post('/api/v2/plan-exports', t, body(planId))).body.data;
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/plan-exports/${e.id}`, t), 404);
    assert.equal((await ctx.database.db.selectFrom('plan_exports').select('id').where('id', '=', e.id).execute()).length, 0);
  });
});

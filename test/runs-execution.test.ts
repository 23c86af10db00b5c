// Runs executed by the server's own runner, in-process, with the real terraform binary: the
// pipeline through the API (auto-apply, confirm, discard, destroy, speculative plans, errors),
// plans and applies with their counts, the signed log URL (STX/ETX framing, offset/limit, no
// token), the JSON plan, sensitive values kept out of logs and plans, and the scheduler erroring
// a job whose runner went silent. Only the built-in `terraform_data` resource is used.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, it } from 'node:test';
import type { RunVariable } from '../src/runner/port.ts';
import type { Workers } from '../src/runner/workers.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createWorkspace, type Org } from './helpers/projects.ts';
import { startSuiteRunner, uploadConfiguration } from './helpers/runner.ts';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const SECRET = 'hunter2-very-secret-value';

const CONFIG = `
variable "secret_token" {
  sensitive = true
}
variable "greeting" {
  default = "hi"
}
resource "terraform_data" "a" {
  input = var.greeting
}
resource "terraform_data" "leak" {
  input = var.secret_token
}
output "echo" {
  value     = var.secret_token
  sensitive = true
}
`;

const runBody = (workspaceId: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'runs', attributes, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
});

async function waitFor(ctx: TestContext, token: string, runId: string, statuses: string[], timeoutMs = 90_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await ctx.get(`/api/v2/runs/${runId}?include=plan,apply`, token);
    if (statuses.includes(res.body.data.attributes.status)) return res.body;
    if (Date.now() > until) throw new Error(`run ${runId} is ${res.body.data.attributes.status}, not ${statuses.join('|')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The whole log behind a log URL, read as go-tfe reads it (no token). */
async function readLog(ctx: TestContext, url: string): Promise<Buffer> {
  const res = await ctx.app.inject({ method: 'GET', url: new URL(url).pathname + '?offset=0&limit=10000000' });
  assert.equal(res.statusCode, 200, res.body);
  return res.rawPayload;
}

suite('runs execution', (ctx) => {
  let runner: Workers;
  const variables: RunVariable[] = [
    { key: 'secret_token', value: SECRET, category: 'terraform', hcl: false, sensitive: true },
    { key: 'greeting', value: 'hello from a variable', category: 'terraform', hcl: false, sensitive: false },
  ];
  before(() => {
    runner = startSuiteRunner(ctx, { variables: { forRun: async () => variables } });
  });

  async function setup(files: Record<string, string> = { 'main.tf': CONFIG }) {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const cv = await uploadConfiguration(ctx, org.owner.token, ws.id, files);
    return { org, ws, cv, token: org.owner.token };
  }

  it(
    'plans and auto-applies: counts, a signed log with STX/ETX, the JSON plan, the new state; no secret anywhere',
    { skip: !hasTerraform && 'no terraform' },
    async () => {
      const { org, ws, token } = await setup();
      const created = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'auto-apply': true, message: 'first' }));
      assertStatus(created, 201);
      const done = await waitFor(ctx, token, created.body.data.id, ['applied', 'errored']);
      assert.equal(done.data.attributes.status, 'applied', JSON.stringify(done));
      assert.equal(done.data.attributes['has-changes'], true);
      for (const key of ['plan-queued-at', 'planning-at', 'planned-at', 'confirmed-at', 'apply-queued-at', 'applying-at', 'applied-at']) {
        assert.match(done.data.attributes['status-timestamps'][key], /Z$/, key);
      }
      const [plan, apply] = done.included;
      assert.equal(plan.type, 'plans');
      assert.equal(plan.attributes.status, 'finished');
      assert.equal(plan.attributes['resource-additions'], 2);
      assert.equal(apply.attributes.status, 'finished');
      assert.equal(apply.attributes['resource-additions'], 2);
      assertStatus(await ctx.get(`/api/v2/plans/${plan.id}`, token), 200);
      assertStatus(await ctx.get(`/api/v2/applies/${apply.id}`, token), 200);

      const planLog = await readLog(ctx, plan.attributes['log-read-url']);
      assert.equal(planLog[0], 0x02);
      assert.equal(planLog[planLog.length - 1], 0x03);
      const planText = planLog.toString('utf8');
      assert.match(planText, /Plan: 2 to add, 0 to change, 0 to destroy/);
      assert.doesNotMatch(planText, new RegExp(SECRET));
      const applyText = (await readLog(ctx, apply.attributes['log-read-url'])).toString('utf8');
      assert.match(applyText, /Apply complete! Resources: 2 added/);
      assert.doesNotMatch(applyText, new RegExp(SECRET));
      // offset/limit read the framed log piece by piece, as go-tfe does.
      const url = new URL(plan.attributes['log-read-url']).pathname;
      let pieced = Buffer.alloc(0);
      for (let offset = 0; offset < planLog.length; offset += 7) {
        const res = await ctx.app.inject({ method: 'GET', url: `${url}?offset=${offset}&limit=7` });
        pieced = Buffer.concat([pieced, res.rawPayload]);
      }
      assert.deepEqual(pieced, planLog);
      // The URL is the credential: anything else is 404.
      assert.equal((await ctx.app.inject({ method: 'GET', url: url.replace(/\.(\d+)\./, '.1.') })).statusCode, 404);
      assert.equal((await ctx.app.inject({ method: 'GET', url: url.replace(plan.id, apply.id) })).statusCode, 404);
      assert.equal((await ctx.app.inject({ method: 'GET', url: `${url}?offset=-1` })).statusCode, 400);

      const json = await ctx.get(`/api/v2/plans/${plan.id}/json-output`, token);
      assertStatus(json, 200);
      assert.equal(typeof json.body.format_version, 'string');
      assert.doesNotMatch(json.raw, new RegExp(SECRET));
      assert.equal(json.body.variables.secret_token.value, '(sensitive value)');
      assert.equal(json.body.variables.greeting.value, 'hello from a variable');

      // The apply wrote the state, sealed as any other, and the run let go of the workspace.
      const current = await ctx.get(`/api/v2/workspaces/${ws.id}/current-state-version`, token);
      assertStatus(current, 200);
      assert.equal(current.body.data.attributes.resources.length, 2);
      const workspace = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
      assert.equal(workspace.body.data.attributes.locked, false);
      assert.equal(workspace.body.data.relationships['current-run'].data.id, created.body.data.id);

      const events = await ctx.get(`/api/v2/runs/${created.body.data.id}/run-events`, token);
      assert.deepEqual(
        events.body.data.map((e: any) => e.attributes.action),
        ['queued', 'plan_queued', 'planning', 'planned', 'confirmed', 'apply_queued', 'applying', 'applied'],
      );
      assert.doesNotMatch(ctx.logs, new RegExp(SECRET));
      const orgRuns = await ctx.get(`/api/v2/organizations/${org.name}/runs`, token);
      assert.equal(orgRuns.body.data.length, 1);
    },
  );

  it(
    'waits for confirmation; apply applies that plan; discard ends a planned run; a second run with no changes finishes at plan',
    { skip: !hasTerraform && 'no terraform' },
    async () => {
      const { ws, token } = await setup();
      const first = await ctx.post('/api/v2/runs', token, runBody(ws.id));
      const planned = await waitFor(ctx, token, first.body.data.id, ['planned', 'errored']);
      assert.equal(planned.data.attributes.status, 'planned');
      assert.deepEqual(planned.data.attributes.actions, {
        'is-cancelable': false,
        'is-confirmable': true,
        'is-discardable': true,
        'is-force-cancelable': false,
      });
      // A second run queues behind the planned one.
      const second = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'is-destroy': true }));
      assert.equal(second.body.data.attributes.status, 'pending');
      assertStatus(await ctx.post(`/api/v2/runs/${first.body.data.id}/actions/apply`, token, { comment: 'go' }), 202);
      const applied = await waitFor(ctx, token, first.body.data.id, ['applied', 'errored']);
      assert.equal(applied.data.attributes.status, 'applied');
      assert.equal(applied.data.relationships['confirmed-by'].data.id, (await ctx.get('/api/v2/account/details', token)).body.data.id);
      // The destroy run started once the first ended; discard it.
      const destroyPlanned = await waitFor(ctx, token, second.body.data.id, ['planned', 'errored']);
      assert.equal(destroyPlanned.included[0].attributes['resource-destructions'], 2);
      assertStatus(await ctx.post(`/api/v2/runs/${second.body.data.id}/actions/discard`, token, {}), 202);
      assert.equal((await ctx.get(`/api/v2/runs/${second.body.data.id}`, token)).body.data.attributes.status, 'discarded');
      assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes.locked, false);
      // Nothing changed since: the next run ends at its plan.
      const third = await ctx.post('/api/v2/runs', token, runBody(ws.id));
      const noChanges = await waitFor(ctx, token, third.body.data.id, ['planned_and_finished', 'errored']);
      assert.equal(noChanges.data.attributes.status, 'planned_and_finished');
      assert.equal(noChanges.data.attributes['has-changes'], false);
    },
  );

  it(
    'speculative plans neither lock nor queue; run variables (HCL) win over the workspace’s; target addresses narrow the plan',
    { skip: !hasTerraform && 'no terraform' },
    async () => {
      const { org, ws, token } = await setup();
      assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, token, {}), 200);
      const specCv = await uploadConfiguration(ctx, token, ws.id, { 'main.tf': CONFIG }, true);
      const body = runBody(ws.id, { variables: [{ key: 'greeting', value: '"from the run"' }], 'target-addrs': ['terraform_data.a'] });
      (body.data.relationships as any)['configuration-version'] = { data: { type: 'configuration-versions', id: specCv } };
      const spec = await ctx.post('/api/v2/runs', token, body);
      assertStatus(spec, 201);
      assert.equal(spec.body.data.attributes['plan-only'], true);
      const done = await waitFor(ctx, token, spec.body.data.id, ['planned_and_finished', 'errored']);
      assert.equal(done.data.attributes.status, 'planned_and_finished');
      assert.equal(done.included[0].attributes['resource-additions'], 1);
      const json = await ctx.get(`/api/v2/plans/${done.included[0].id}/json-output`, token);
      assert.equal(json.body.variables.greeting.value, 'from the run');
      // The user's lock was never the run's.
      const workspace = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
      assert.deepEqual(workspace.body.data.relationships['locked-by'].data.type, 'users');
      void org;
    },
  );

  it('a configuration terraform refuses errors the run, releases its lock and starts the next', { skip: !hasTerraform && 'no terraform' }, async () => {
    const { ws, token } = await setup({ 'main.tf': 'resource "terraform_data" "a" {\n  input = \n}\n' });
    const bad = await ctx.post('/api/v2/runs', token, runBody(ws.id));
    const next = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'plan-only': false }));
    const errored = await waitFor(ctx, token, bad.body.data.id, ['errored', 'planned']);
    assert.equal(errored.data.attributes.status, 'errored');
    assert.equal(errored.included[0].attributes.status, 'errored');
    const log = (await readLog(ctx, errored.included[0].attributes['log-read-url'])).toString('utf8');
    assert.match(log, /Error/);
    assert.equal(log.endsWith('\x03'), true);
    await waitFor(ctx, token, next.body.data.id, ['errored']);
  });

  it('refuses bad run bodies; plans, applies and logs of other organizations are 404', async () => {
    const { ws, token } = await setup();
    assertError(await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'target-addrs': 'a' })), 422, '/data/attributes/target-addrs');
    assertError(await ctx.post('/api/v2/runs', token, runBody(ws.id, { variables: [{ key: '1bad', value: 'x' }] })), 422, '/data/attributes/variables/0/key');
    assertError(await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'is-destroy': true, 'refresh-only': true })), 422, '/data/attributes/refresh-only');
    assertError(await ctx.get(`/api/v2/runs/run-nothere0000000000?include=nonsense`, token), 400);
    const run = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'plan-only': true }));
    const planId = run.body.data.relationships.plan.data.id;
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/plans/${planId}`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/applies/${run.body.data.relationships.apply.data.id}`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/plans/${planId}/json-output`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/runs/${run.body.data.id}/run-events`, other.owner.token), 404);
    assertError(await ctx.get(`/api/v2/plans/plan-nothere000000000`, token), 404);
    assertError(await ctx.get(`/api/v2/plans/${planId}`, null), 401);
    assertError(await ctx.get(`/api/v2/organizations/${other.name}/runs/queue`, token), 404);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/_archivist/v1/logs/plan-x.1.abc' })).statusCode, 404);
  });

  it('the scheduler errors a job whose runner went silent and frees its workspace', async () => {
    const { ws, token } = await setup();
    // Locked by the owner, so that no runner of this suite picks the run up.
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, token, {}), 200);
    const run = await ctx.post('/api/v2/runs', token, runBody(ws.id));
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/unlock`, token, {}), 200);
    const db = ctx.database.db;
    const { jobs, runs } = ctx.services;
    // Started by hand, as a runner that then died would have: the run takes the lock, its plan runs.
    await ctx.database.transaction(async (trx) => {
      await ctx.services.workspaceLocks.acquire(trx, ws.id, { type: 'runs', id: run.body.data.id }, null);
      await trx.updateTable('runs').set({ status: 'plan_queued' }).where('id', '=', run.body.data.id).execute();
    });
    const [plan] = (await jobs.ofRuns(db, [run.body.data.id])).filter((j) => j.phase === 'plan');
    const running = await jobs.move(db, plan!, ['pending'], 'running', new Date().toISOString(), { runner: 'gone', heartbeatAt: '2000-01-01T00:00:00.000Z' });
    await runs.pipeline.started(running!);
    assert.equal(await runs.pipeline.reapSilent('2001-01-01T00:00:00.000Z'), 1);
    const after = await ctx.get(`/api/v2/runs/${run.body.data.id}?include=plan`, token);
    assert.equal(after.body.data.attributes.status, 'errored');
    assert.equal(after.body.included[0].attributes.status, 'errored');
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes.locked, false);
  });
});

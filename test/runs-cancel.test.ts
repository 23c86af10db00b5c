// Cancel as TFE has it, with the real terraform binary and the server's own runner: a cancel of
// an executing plan or apply is a request (the runner interrupts terraform, the run ends
// `canceled` when terraform exits, an interrupted apply's state is kept); force-cancel is refused
// before a cancel and before its cool-off, then kills terraform and frees the workspace at once.
// Plans are kept busy by a `terraform_remote_state` read the test holds (helpers/held-state.ts),
// applies by a `local-exec` provisioner that sleeps.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { Workers } from '../src/runner/workers.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { heldStateServer, type HeldStateServer } from './helpers/held-state.ts';
import { createWorkspace } from './helpers/projects.ts';
import { startSuiteRunner, uploadConfiguration } from './helpers/runner.ts';

const skip = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0 ? false : 'terraform is not installed';

const upload = async (ctx: TestContext, token: string, workspaceId: string, main: string) =>
  void (await uploadConfiguration(ctx, token, workspaceId, { 'main.tf': main }));

const runBody = (workspaceId: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'runs', attributes, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
});

/** Polls the run (the API has no push) until it reaches one of `statuses`. */
async function waitFor(ctx: TestContext, token: string, runId: string, statuses: string[], timeoutMs = 90_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await ctx.get(`/api/v2/runs/${runId}?include=plan,apply`, token);
    if (statuses.includes(res.body.data.attributes.status)) return res.body;
    if (Date.now() > until) throw new Error(`run ${runId} is ${res.body.data.attributes.status}, not ${statuses.join('|')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('run cancel', (ctx) => {
  let runner: Workers;
  let held: HeldStateServer;
  const scratch = mkdtempSync(path.join(tmpdir(), 'hangar-cancel-'));
  before(async () => {
    held = await heldStateServer();
    runner = startSuiteRunner(ctx, { beforeStop: () => held.release() });
  });
  after(async () => {
    await held.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function setup(main: string) {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    await upload(ctx, org.owner.token, ws.id, main);
    return { ws, token: org.owner.token };
  }

  it('a cancel during a plan is a request: the run plans on until terraform stops, then ends canceled', { skip }, async () => {
    const { ws, token } = await setup(held.config());
    const reading = held.requested();
    const created = await ctx.post('/api/v2/runs', token, runBody(ws.id));
    assertStatus(created, 201);
    const id = created.body.data.id;
    await reading;
    await waitFor(ctx, token, id, ['planning']);
    assertError(await ctx.post(`/api/v2/runs/${id}/actions/force-cancel`, token, {}), 409);

    const asked = Date.now();
    assertStatus(await ctx.post(`/api/v2/runs/${id}/actions/cancel`, token, { comment: 'stop it' }), 202);
    const requested = (await ctx.get(`/api/v2/runs/${id}`, token)).body.data.attributes;
    // Terraform is interrupted, but waits for its read: the run is still planning.
    assert.equal(requested.status, 'planning');
    assert.equal(requested.actions['is-cancelable'], false);
    assert.equal(requested.actions['is-force-cancelable'], false);
    const available = Date.parse(requested['force-cancel-available-at']);
    assert.ok(available >= asked + 9_000 && available <= Date.now() + 10_000, requested['force-cancel-available-at']);
    // A second cancel, and a force-cancel before the cool-off, are refused.
    assertError(await ctx.post(`/api/v2/runs/${id}/actions/cancel`, token, {}), 409);
    assertError(await ctx.post(`/api/v2/runs/${id}/actions/force-cancel`, token, {}), 409);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes.locked, true);

    held.release();
    const done = await waitFor(ctx, token, id, ['canceled', 'errored', 'planned', 'force_canceled']);
    assert.equal(done.data.attributes.status, 'canceled');
    assert.equal(done.included[0].attributes.status, 'canceled');
    assert.equal(done.included[1].attributes.status, 'unreachable');
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes.locked, false);
    const events = await ctx.get(`/api/v2/runs/${id}/run-events`, token);
    const actions = events.body.data.map((e: any) => e.attributes.action);
    assert.deepEqual(actions.slice(0, 5), ['queued', 'plan_queued', 'planning', 'cancel_requested', 'commented']);
    assert.equal(actions.at(-1), 'canceled');
    // Nothing is left to force once it ended.
    assertError(await ctx.post(`/api/v2/runs/${id}/actions/force-cancel`, token, {}), 409);
  });

  it('force-cancel after the cool-off kills terraform at once and frees the workspace for the next run', { skip }, async () => {
    const fresh = await heldStateServer();
    try {
      const { ws, token } = await setup(fresh.config());
      const reading = fresh.requested();
      const created = await ctx.post('/api/v2/runs', token, runBody(ws.id));
      const id = created.body.data.id;
      await reading;
      await waitFor(ctx, token, id, ['planning']);
      const next = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'plan-only': false, message: 'next' }));
      assert.equal(next.body.data.attributes.status, 'pending');
      assertStatus(await ctx.post(`/api/v2/runs/${id}/actions/cancel`, token, {}), 202);
      // The cool-off passes (the request is dated back rather than waited for).
      await ctx.database.db
        .updateTable('jobs')
        .set({ cancel_requested_at: new Date(Date.now() - 11_000).toISOString() })
        .where('id', '=', created.body.data.relationships.plan.data.id)
        .execute();
      const ready = (await ctx.get(`/api/v2/runs/${id}`, token)).body.data.attributes;
      assert.equal(ready.actions['is-force-cancelable'], true);
      assert.equal(ready.status, 'planning');
      // Another organization does not see the run.
      assertError(await ctx.post(`/api/v2/runs/${id}/actions/force-cancel`, (await ctx.organization()).owner.token, {}), 404);

      const killed = fresh.abandoned();
      assertStatus(await ctx.post(`/api/v2/runs/${id}/actions/force-cancel`, token, { comment: 'enough' }), 202);
      const ended = (await ctx.get(`/api/v2/runs/${id}?include=plan`, token)).body;
      assert.equal(ended.data.attributes.status, 'force_canceled');
      assert.equal(ended.included[0].attributes.status, 'canceled');
      // The held read's client went away: terraform was killed, not left to wait.
      await killed;
      fresh.release();
      // The workspace moved on to the next run.
      const planned = await waitFor(ctx, token, next.body.data.id, ['planned', 'errored']);
      assert.equal(planned.data.attributes.status, 'planned');
      assertStatus(await ctx.post(`/api/v2/runs/${next.body.data.id}/actions/discard`, token, {}), 202);
    } finally {
      await fresh.close();
    }
  });

  it('a cancel during an apply interrupts terraform; what the apply did is kept as a state version', { skip }, async () => {
    const marker = path.join(scratch, 'apply-started');
    const { ws, token } = await setup(
      `resource "terraform_data" "first" {\n  input = "kept"\n}\n` +
        `resource "terraform_data" "slow" {\n  depends_on = [terraform_data.first]\n  provisioner "local-exec" {\n    command = "touch ${marker} && exec sleep 300"\n  }\n}\n`,
    );
    const created = await ctx.post('/api/v2/runs', token, runBody(ws.id, { 'auto-apply': true }));
    const id = created.body.data.id;
    await waitFor(ctx, token, id, ['applying', 'errored']);
    // The provisioner is running (it made its marker): the first resource exists already.
    const until = Date.now() + 60_000;
    while (!existsSync(marker)) {
      if (Date.now() > until) throw new Error('the apply never reached its provisioner');
      await new Promise((r) => setTimeout(r, 50));
    }
    assertStatus(await ctx.post(`/api/v2/runs/${id}/actions/cancel`, token, {}), 202);
    const done = await waitFor(ctx, token, id, ['canceled', 'errored', 'applied', 'force_canceled']);
    assert.equal(done.data.attributes.status, 'canceled');
    assert.equal(done.included[1].attributes.status, 'canceled');
    const state = await ctx.get(`/api/v2/workspaces/${ws.id}/current-state-version`, token);
    assertStatus(state, 200);
    const names = state.body.data.attributes.resources.map((r: any) => r.name);
    assert.ok(names.includes('first'), JSON.stringify(names));
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes.locked, false);
  });

  it('the job protocol: a cancel request keeps the job beating but says stop; the runner’s report ends the run canceled', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const token = org.owner.token;
    // Locked by the owner, so that no runner of this suite picks the run up; it is started by hand.
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, token, {}), 200);
    await upload(ctx, token, ws.id, 'resource "terraform_data" "a" {}\n');
    const run = await ctx.post('/api/v2/runs', token, runBody(ws.id));
    const id = run.body.data.id;
    const { jobs, runs } = ctx.services;
    const db = ctx.database.db;
    await db.updateTable('runs').set({ status: 'plan_queued' }).where('id', '=', id).execute();
    const [plan] = (await jobs.ofRuns(db, [id])).filter((j) => j.phase === 'plan');
    const running = (await jobs.move(db, plan!, ['pending'], 'running', new Date().toISOString(), { runner: 'r1', heartbeatAt: '2000-01-01T00:00:00.000Z' }))!;
    assert.equal(await runs.pipeline.started(running), true);
    let woken = 0;
    const unwatch = jobs.watch(running.id, () => woken++);
    assert.equal(await jobs.heartbeat(running.id, 'r1'), true);
    assert.equal(await jobs.heartbeat(running.id, 'someone-else'), false);

    assertStatus(await ctx.post(`/api/v2/runs/${id}/actions/cancel`, token, {}), 202);
    assert.equal(woken, 1, 'the runner is woken, not left to its next beat');
    unwatch();
    // The boolean heartbeat says stop; the beat is still recorded, so the job is not taken for silent.
    const before = (await jobs.find(db, running.id))!.heartbeatAt!;
    assert.equal(await jobs.heartbeat(running.id, 'r1'), false);
    assert.ok((await jobs.find(db, running.id))!.heartbeatAt! > before);
    assert.equal(await jobs.beat(running.id, 'r1'), 'cancel');
    assert.equal((await ctx.get(`/api/v2/runs/${id}`, token)).body.data.attributes.status, 'planning');

    // Terraform exited (interrupted): the runner reports a failure, the server ends the run canceled.
    await runs.pipeline.failed(running, 'The run was canceled');
    const ended = await ctx.get(`/api/v2/runs/${id}?include=plan`, token);
    assert.equal(ended.body.data.attributes.status, 'canceled');
    assert.equal(ended.body.included[0].attributes.status, 'canceled');
    assert.equal(await jobs.beat(running.id, 'r1'), 'gone');
    // A late report changes nothing.
    await runs.pipeline.failed(running, 'again');
    assert.equal((await ctx.get(`/api/v2/runs/${id}`, token)).body.data.attributes.status, 'canceled');
  });

  it('a cancel of a run that is not executing ends it at once; cancel and force-cancel need permission', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, org.owner.token, {}), 200);
    await upload(ctx, org.owner.token, ws.id, 'resource "terraform_data" "a" {}\n');
    const run = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id));
    assert.equal(run.body.data.attributes.status, 'pending');
    assertError(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/force-cancel`, org.owner.token, {}), 409);
    assertError(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/cancel`, null, {}), 401);
    assertStatus(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/cancel`, org.owner.token, {}), 202);
    assert.equal((await ctx.get(`/api/v2/runs/${run.body.data.id}`, org.owner.token)).body.data.attributes.status, 'canceled');
  });
});

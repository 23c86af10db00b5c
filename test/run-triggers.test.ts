// Run triggers: /workspaces/:id/run-triggers and /run-triggers/:id (create, list in both
// directions, show, delete, the rules and permissions), and their job: a run of the source
// workspace that applies queues a run in each workspace it triggers. Runs are driven through the
// runners' reports (no terraform needed).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';
import { uploadConfiguration } from './helpers/runner.ts';

const path = (workspaceId: string) => `/api/v2/workspaces/${workspaceId}/run-triggers`;
const body = (sourceableId: string) => ({ data: { relationships: { sourceable: { data: { id: sourceableId, type: 'workspaces' } } } } });
const COUNTS = { additions: 1, changes: 0, destructions: 0, imports: 0 };
const MAIN_TF = { 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' };

async function trigger(ctx: TestContext, token: string, workspaceId: string, sourceableId: string): Promise<any> {
  const res = await ctx.post(path(workspaceId), token, body(sourceableId));
  assertStatus(res, 201);
  return res.body.data;
}

/** Moves the run's queued `phase` job to running (as a runner's claim would) and reports it started. */
async function start(ctx: TestContext, runId: string, phase: 'plan' | 'apply') {
  const { jobs, runs } = ctx.services;
  const db = ctx.database.db;
  const job = (await jobs.ofRuns(db, [runId])).find((j) => j.phase === phase)!;
  const at = new Date().toISOString();
  const running = await jobs.move(db, job, ['queued'], 'running', at, { runner: 'test', heartbeatAt: at });
  assert.ok(running, `${phase} of ${runId} was ${job.status}, not queued`);
  assert.ok(await runs.pipeline.started(running));
  return running;
}

async function queueRun(ctx: TestContext, token: string, workspaceId: string, autoApply: boolean): Promise<string> {
  const res = await ctx.post('/api/v2/runs', token, {
    data: { type: 'runs', attributes: { 'auto-apply': autoApply }, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
  });
  assertStatus(res, 201);
  return res.body.data.id;
}

async function runsOf(ctx: TestContext, token: string, workspaceId: string): Promise<any[]> {
  const res = await ctx.get(`/api/v2/workspaces/${workspaceId}/runs`, token);
  assertStatus(res, 200);
  return res.body.data;
}

suite('run triggers', (ctx) => {
  it('creates, lists inbound and outbound (paging, include=sourceable), shows and deletes', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const [w, a, b] = await Promise.all([1, 2, 3].map(() => createWorkspace(ctx, org)));
    const first = await trigger(ctx, t, w!.id, a!.id);
    assert.match(first.id, /^rt-[0-9A-Za-z]{16}$/);
    assert.equal(first.type, 'run-triggers');
    assert.equal(first.attributes['workspace-name'], w!.attributes.name);
    assert.equal(first.attributes['sourceable-name'], a!.attributes.name);
    assert.match(first.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(first.relationships.workspace.data.id, w!.id);
    assert.equal(first.relationships.sourceable.data.id, a!.id);
    assert.equal(first.relationships.sourceable.data.type, 'workspaces');
    assert.equal(first.links.self, `/api/v2/run-triggers/${first.id}`);
    const second = await trigger(ctx, t, w!.id, b!.id);

    const inbound = await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=inbound`, t);
    assertStatus(inbound, 200);
    // As created, in creation order (go-tfe compares the listed items with the created ones).
    assert.deepEqual(inbound.body.data, [first, second]);
    assert.equal(inbound.body.meta.pagination['total-count'], 2);
    assert.equal(inbound.body.included, undefined);
    const paged = await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=inbound&page[size]=1&page[number]=2`, t);
    assert.deepEqual(
      paged.body.data.map((x: any) => x.id),
      [second.id],
    );
    assert.equal(paged.body.meta.pagination['total-count'], 2);
    const far = await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=inbound&page[number]=999&page[size]=100`, t);
    assert.deepEqual(far.body.data, []);
    assert.equal(far.body.meta.pagination['current-page'], 999);

    const withSources = await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=inbound&include=sourceable`, t);
    assert.deepEqual(withSources.body.included.map((x: any) => x.id).sort(), [a!.id, b!.id].sort());
    assert.equal(withSources.body.included[0].type, 'workspaces');

    // Outbound: the workspaces `a` triggers; the list of `w` is empty that way.
    const outbound = await ctx.get(`${path(a!.id)}?filter[run-trigger][type]=outbound&include=sourceable`, t);
    assert.deepEqual(outbound.body.data, [first]);
    assert.equal(outbound.body.included, undefined);
    assert.deepEqual((await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=outbound`, t)).body.data, []);
    assert.deepEqual((await ctx.get(`${path(a!.id)}?filter[run-trigger][type]=inbound`, t)).body.data, []);

    const shown = await ctx.get(`/api/v2/run-triggers/${first.id}?include=sourceable,workspace`, t);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, first);
    assert.deepEqual(shown.body.included.map((x: any) => x.id).sort(), [w!.id, a!.id].sort());

    assertStatus(await ctx.delete(`/api/v2/run-triggers/${first.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/run-triggers/${first.id}`, t), 404);
    assertError(await ctx.delete(`/api/v2/run-triggers/${first.id}`, t), 404);
    assertError(await ctx.get('/api/v2/run-triggers/nonexisting', t), 404);
    assert.deepEqual((await ctx.get(`${path(w!.id)}?filter[run-trigger][type]=inbound`, t)).body.data, [second]);
  });

  it('refuses a missing source, the workspace itself, another organization, a duplicate and the 21st (422 at the sourceable)', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const a = await createWorkspace(ctx, org);
    const POINTER = '/data/relationships/sourceable';
    assertError(await ctx.post(path(w.id), t, { data: { type: 'run-triggers' } }), 422, POINTER);
    assertError(await ctx.post(path(w.id), t, { data: { relationships: { sourceable: { data: null } } } }), 422, POINTER);
    assertError(await ctx.post(path(w.id), t, body(w.id)), 422, POINTER);
    // A source nobody can find, or one the caller may not see (another organization's): not found.
    assertError(await ctx.post(path(w.id), t, body('ws-0000000000000000')), 404);
    const other = await ctx.organization();
    const foreign = await createWorkspace(ctx, other);
    assertError(await ctx.post(path(w.id), t, body(foreign.id)), 404);
    // A caller who sees both organizations (a site admin) is told the source must be of the same one.
    const admin = await ctx.user({ siteAdmin: true });
    assertError(await ctx.post(path(w.id), admin.token, body(foreign.id)), 422, POINTER);

    await trigger(ctx, t, w.id, a.id);
    assertError(await ctx.post(path(w.id), t, body(a.id)), 422, POINTER);
    // The reverse pair is another trigger.
    await trigger(ctx, t, a.id, w.id);

    const sources = await Promise.all(Array.from({ length: 17 }, () => createWorkspace(ctx, org)));
    for (const s of sources) await trigger(ctx, t, w.id, s.id);
    // Five additions at once for the last two places: two are made, however they interleave.
    const racing = await Promise.all(Array.from({ length: 5 }, () => createWorkspace(ctx, org)));
    const answers = await Promise.all(racing.map((s) => ctx.post(path(w.id), t, body(s.id))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 422, 422, 422]);
    const extra = await createWorkspace(ctx, org);
    assertError(await ctx.post(path(w.id), t, body(extra.id)), 422, POINTER);
    const list = await ctx.get(`${path(w.id)}?filter[run-trigger][type]=inbound&page[size]=100`, t);
    assert.equal(list.body.meta.pagination['total-count'], 20);
  });

  it('needs filter[run-trigger][type] to be inbound or outbound (400)', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    for (const query of ['', '?filter[run-trigger][type]=', '?filter[run-trigger][type]=oubound', '?page[number]=999']) {
      const res = await ctx.get(`${path(w.id)}${query}`, org.owner.token);
      assertError(res, 400);
    }
  });

  it('answers 401 without a token, 404 to another organization, 403 to readers who may not manage, and follows visibility', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const [p, q] = [await createProject(ctx, org), await createProject(ctx, org)];
    const w = await createWorkspace(ctx, org, p.id);
    const same = await createWorkspace(ctx, org, p.id);
    const elsewhere = await createWorkspace(ctx, org, q.id);
    const rt = await trigger(ctx, t, w.id, elsewhere.id);
    const inbound = `${path(w.id)}?filter[run-trigger][type]=inbound`;

    assertError(await ctx.request('GET', inbound), 401);
    assertError(await ctx.request('GET', `/api/v2/run-triggers/${rt.id}`), 401);

    const outsider = await ctx.organization();
    assertError(await ctx.get(inbound, outsider.owner.token), 404);
    assertError(await ctx.post(path(w.id), outsider.owner.token, body(same.id)), 404);
    assertError(await ctx.get(`/api/v2/run-triggers/${rt.id}`, outsider.owner.token), 404);
    assertError(await ctx.delete(`/api/v2/run-triggers/${rt.id}`, outsider.owner.token), 404);

    const member = await ctx.member(org);
    assertError(await ctx.get(inbound, member.token), 404);
    assertError(await ctx.get(`/api/v2/run-triggers/${rt.id}`, member.token), 404);
    assertError(await ctx.delete(`/api/v2/run-triggers/${rt.id}`, member.token), 404);

    // A reader of the project lists and shows, creates and deletes nothing; the source it may not
    // see is not included.
    const reader = await memberWithAccess(ctx, org, [[p.id, 'read']]);
    const listed = await ctx.get(`${inbound}&include=sourceable`, reader.token);
    assertStatus(listed, 200);
    assert.deepEqual(
      listed.body.data.map((x: any) => x.id),
      [rt.id],
    );
    assert.equal(listed.body.included, undefined);
    assertStatus(await ctx.get(`/api/v2/run-triggers/${rt.id}`, reader.token), 200);
    assertError(await ctx.post(path(w.id), reader.token, body(same.id)), 403);
    assertError(await ctx.delete(`/api/v2/run-triggers/${rt.id}`, reader.token), 403);

    // A project admin manages triggers from workspaces it may see; another project's is not found.
    const admin = await memberWithAccess(ctx, org, [[p.id, 'admin']]);
    assertError(await ctx.post(path(w.id), admin.token, body(elsewhere.id)), 404);
    const made = await trigger(ctx, admin.token, w.id, same.id);
    assertStatus(await ctx.delete(`/api/v2/run-triggers/${made.id}`, admin.token), 204);

    // Who reads only the source sees the trigger, and may not delete it (a setting of the target).
    const sourceReader = await memberWithAccess(ctx, org, [[q.id, 'read']]);
    assertStatus(await ctx.get(`/api/v2/run-triggers/${rt.id}`, sourceReader.token), 200);
    assertError(await ctx.delete(`/api/v2/run-triggers/${rt.id}`, sourceReader.token), 403);
  });

  it('goes with either workspace', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const [w, a, b] = await Promise.all([1, 2, 3].map(() => createWorkspace(ctx, org)));
    const fromA = await trigger(ctx, t, w!.id, a!.id);
    const intoB = await trigger(ctx, t, b!.id, w!.id);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${a!.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/run-triggers/${fromA.id}`, t), 404);
    assertStatus(await ctx.delete(`/api/v2/workspaces/${b!.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/run-triggers/${intoB.id}`, t), 404);
    const left = await ctx.database.db.selectFrom('run_triggers').select('id').where('id', 'in', [fromA.id, intoB.id]).execute();
    assert.deepEqual(left, []);
  });

  describeTheJob(ctx);
});

function describeTheJob(ctx: TestContext): void {
  async function setup() {
    const org: Org = await ctx.organization();
    const t = org.owner.token;
    const source = await createWorkspace(ctx, org);
    await uploadConfiguration(ctx, t, source.id, MAIN_TF);
    return { org, t, source };
  }

  /** A run of `workspaceId`, auto-applied, driven through plan and apply to `applied`. */
  async function applyRun(t: string, workspaceId: string): Promise<string> {
    const runId = await queueRun(ctx, t, workspaceId, true);
    await ctx.services.runs.pipeline.planned(await start(ctx, runId, 'plan'), COUNTS, true);
    await ctx.services.runs.pipeline.applied(await start(ctx, runId, 'apply'), COUNTS);
    const run = await ctx.get(`/api/v2/runs/${runId}`, t);
    assert.equal(run.body.data.attributes.status, 'applied');
    return runId;
  }

  it('an applied run of the source queues a run in each target: source tfe-run-trigger, auto-applied as the target says', async () => {
    const { org, t, source } = await setup();
    const plain = await createWorkspace(ctx, org);
    const eager = await createWorkspace(ctx, org, undefined, { 'auto-apply-run-trigger': true });
    const bare = await createWorkspace(ctx, org);
    const local = await createWorkspace(ctx, org, undefined, { 'execution-mode': 'local' });
    const plainCv = await uploadConfiguration(ctx, t, plain.id, MAIN_TF);
    await uploadConfiguration(ctx, t, eager.id, MAIN_TF);
    await uploadConfiguration(ctx, t, local.id, MAIN_TF);
    for (const target of [plain, eager, bare, local]) await trigger(ctx, t, target.id, source.id);
    // A trigger into the source (the reverse direction) queues nothing when the source applies.
    const upstream = await createWorkspace(ctx, org);
    await trigger(ctx, t, source.id, upstream.id);

    const runId = await applyRun(t, source.id);
    const [queued] = await runsOf(ctx, t, plain.id);
    assert.ok(queued, 'no run in the target');
    assert.equal(queued.attributes.source, 'tfe-run-trigger');
    assert.equal(queued.attributes.message, `Triggered by successful apply of ${runId} in workspace ${source.attributes.name}`);
    assert.equal(queued.attributes['auto-apply'], false);
    assert.equal(queued.attributes['is-destroy'], false);
    assert.equal(queued.relationships['configuration-version'].data.id, plainCv);
    // It took the target's queue: its plan is queued for a runner.
    assert.equal(queued.attributes.status, 'plan_queued');
    const [eagerRun] = await runsOf(ctx, t, eager.id);
    assert.equal(eagerRun.attributes['auto-apply'], true);
    assert.equal(eagerRun.attributes.source, 'tfe-run-trigger');
    // No configuration to run, or nothing Hangar executes: no run.
    assert.deepEqual(await runsOf(ctx, t, bare.id), []);
    assert.deepEqual(await runsOf(ctx, t, local.id), []);
    assert.deepEqual(await runsOf(ctx, t, upstream.id), []);
    // The source's own queue is untouched by its trigger.
    assert.equal((await runsOf(ctx, t, source.id)).length, 1);

    // A triggered run that applies triggers further down the chain.
    const next = await createWorkspace(ctx, org);
    await uploadConfiguration(ctx, t, next.id, MAIN_TF);
    await trigger(ctx, t, next.id, eager.id);
    await ctx.services.runs.pipeline.planned(await start(ctx, eagerRun.id, 'plan'), COUNTS, true);
    await ctx.services.runs.pipeline.applied(await start(ctx, eagerRun.id, 'apply'), COUNTS);
    const [chained] = await runsOf(ctx, t, next.id);
    assert.equal(chained.attributes.message, `Triggered by successful apply of ${eagerRun.id} in workspace ${eager.attributes.name}`);
  });

  it('a target whose run cannot be queued is recorded on the source run and stops neither the others nor the source', async () => {
    const { org, t, source } = await setup();
    const broken = await createWorkspace(ctx, org);
    const fine = await createWorkspace(ctx, org);
    for (const target of [broken, fine]) {
      await uploadConfiguration(ctx, t, target.id, MAIN_TF);
      await trigger(ctx, t, target.id, source.id);
    }
    // The broken target fails in the database, after its run row is written: on PostgreSQL a
    // failed statement aborts the apply's whole transaction unless that step alone is undone.
    const { jobs } = ctx.services;
    const original = jobs.createForRun;
    jobs.createForRun = async (q, runId, agentPoolId, at) => {
      const run = await q.selectFrom('runs').select('workspace_id').where('id', '=', runId).executeTakeFirst();
      if (run?.workspace_id === broken.id) await sql`select * from no_such_table_secret_detail`.execute(q);
      return original(q, runId, agentPoolId, at);
    };
    let runId: string;
    try {
      runId = await applyRun(t, source.id);
    } finally {
      jobs.createForRun = original;
    }
    assert.equal((await ctx.get(`/api/v2/runs/${runId}`, t)).body.data.attributes.status, 'applied');
    // Nothing half-made is left of the broken target's run.
    assert.deepEqual(await runsOf(ctx, t, broken.id), []);
    assert.equal((await runsOf(ctx, t, fine.id)).length, 1);
    const events = (await ctx.get(`/api/v2/runs/${runId}/run-events`, t)).body.data;
    const failed = events.find((e: any) => e.attributes.action === 'run_trigger_failed');
    assert.ok(failed, JSON.stringify(events));
    assert.equal(failed.attributes.description, `No run could be queued in ${broken.id}: an internal error`);
  });

  it('queues nothing for a source run that errors, is discarded, or only plans; a repeated apply report queues once', async () => {
    const { org, t, source } = await setup();
    const target = await createWorkspace(ctx, org);
    await uploadConfiguration(ctx, t, target.id, MAIN_TF);
    await trigger(ctx, t, target.id, source.id);
    const { runs } = ctx.services;

    const errored = await queueRun(ctx, t, source.id, true);
    await runs.pipeline.planned(await start(ctx, errored, 'plan'), COUNTS, true);
    await runs.pipeline.failed(await start(ctx, errored, 'apply'), 'terraform exited 1');
    assert.equal((await ctx.get(`/api/v2/runs/${errored}`, t)).body.data.attributes.status, 'errored');

    const discarded = await queueRun(ctx, t, source.id, false);
    await runs.pipeline.planned(await start(ctx, discarded, 'plan'), COUNTS, true);
    assertStatus(await ctx.post(`/api/v2/runs/${discarded}/actions/discard`, t, {}), 202);
    assert.equal((await ctx.get(`/api/v2/runs/${discarded}`, t)).body.data.attributes.status, 'discarded');

    const unchanged = await queueRun(ctx, t, source.id, true);
    await runs.pipeline.planned(await start(ctx, unchanged, 'plan'), { additions: 0, changes: 0, destructions: 0, imports: 0 }, false);
    assert.equal((await ctx.get(`/api/v2/runs/${unchanged}`, t)).body.data.attributes.status, 'planned_and_finished');
    assert.deepEqual(await runsOf(ctx, t, target.id), []);

    const applied = await queueRun(ctx, t, source.id, true);
    await runs.pipeline.planned(await start(ctx, applied, 'plan'), COUNTS, true);
    const applying = await start(ctx, applied, 'apply');
    await runs.pipeline.applied(applying, COUNTS);
    // A runner that reports again (its first answer lost) changes nothing.
    await runs.pipeline.applied(applying, COUNTS);
    assert.equal((await runsOf(ctx, t, target.id)).length, 1);
  });
}

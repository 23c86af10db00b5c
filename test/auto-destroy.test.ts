// Auto-destroy with the real terraform binary and the server's own runner: an idle workspace
// (no new state for its activity duration, inherited from its project) gets exactly one destroy
// run, auto-applied, however many schedulers race for it; a scheduler started afresh (a restart)
// finds everything it needs in the database and fires nothing twice; an explicit
// `auto-destroy-at` fires once and is cleared; a workspace with nothing to destroy gets no run.
// The clock is the argument of `tick`, so no test waits for hours to pass.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, it } from 'node:test';
import { createAutoDestroyService } from '../src/auto-destroy/service.ts';
import { SETTLE_MS } from '../src/auto-destroy/store.ts';
import type { Workers } from '../src/runner/workers.ts';
import { assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, type Org } from './helpers/projects.ts';
import { startSuiteRunner, uploadConfiguration } from './helpers/runner.ts';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const skip = !hasTerraform && 'terraform is not installed';

const CONFIG = 'resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "b" {\n  input = "y"\n}\n';

const upload = async (ctx: TestContext, token: string, workspaceId: string) => void (await uploadConfiguration(ctx, token, workspaceId, { 'main.tf': CONFIG }));

async function waitFor(ctx: TestContext, token: string, runId: string, statuses: string[]): Promise<any> {
  const until = Date.now() + 120_000;
  for (;;) {
    const res = await ctx.get(`/api/v2/runs/${runId}`, token);
    if (statuses.includes(res.body.data.attributes.status)) return res.body.data;
    if (Date.now() > until) throw new Error(`run ${runId} is ${res.body.data.attributes.status}, not ${statuses.join('|')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('auto-destroy', (ctx) => {
  let runner: Workers;
  before(() => {
    runner = startSuiteRunner(ctx, { concurrency: 1 });
  });
  /** Another instance's scheduler: its own service object over the same database. */
  const another = () => createAutoDestroyService({ database: ctx.database, runs: ctx.services.runs });

  /** A workspace whose state (from an auto-applied run) holds two resources. */
  async function applied(org: Org, projectId?: string) {
    const ws = await createWorkspace(ctx, org, projectId);
    await upload(ctx, org.owner.token, ws.id);
    const run = await ctx.post('/api/v2/runs', org.owner.token, {
      data: { type: 'runs', attributes: { 'auto-apply': true }, relationships: { workspace: { data: { type: 'workspaces', id: ws.id } } } },
    });
    assertStatus(run, 201);
    assert.equal((await waitFor(ctx, org.owner.token, run.body.data.id, ['applied', 'errored'])).attributes.status, 'applied');
    return ws;
  }
  const runsOf = async (token: string, wsId: string) => (await ctx.get(`/api/v2/workspaces/${wsId}/runs`, token)).body.data as any[];

  it('an idle workspace gets one destroy run, auto-applied, with schedulers racing; a restarted scheduler fires nothing again', { skip }, async () => {
    const org = await ctx.organization();
    const token = org.owner.token;
    const project = await createProject(ctx, org, { 'auto-destroy-activity-duration': '2h' });
    const ws = await applied(org, project.id);

    // auto-destroy-at: the current state's time plus the duration the workspace inherits.
    const state = await ctx.get(`/api/v2/workspaces/${ws.id}/current-state-version`, token);
    const shown = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
    assert.equal(shown.body.data.attributes['auto-destroy-activity-duration'], '2h');
    const at = shown.body.data.attributes['auto-destroy-at'];
    assert.equal(at, new Date(Date.parse(state.body.data.attributes['created-at']) + 2 * 3_600_000).toISOString());

    // Not yet: a minute before, nothing happens.
    assert.deepEqual(await ctx.services.autoDestroy.tick(new Date(Date.parse(at) - 60_000)), []);

    // Three instances' schedulers at once, past the time: one run between them.
    const past = new Date(Date.parse(at) + 1000);
    const created = (await Promise.all([ctx.services.autoDestroy, another(), another()].map((s) => s.tick(past)))).flat();
    assert.equal(created.length, 1);
    const run = await waitFor(ctx, token, created[0]!, ['applied', 'errored']);
    assert.equal(run.attributes.status, 'applied');
    assert.equal(run.attributes['is-destroy'], true);
    assert.equal(run.attributes['auto-apply'], true);
    assert.match(run.attributes.message, /no state change in 2h/);

    // The destroy left an empty state: nothing more to destroy, and nothing shown.
    const after = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
    assert.equal(after.body.data.attributes['resource-count'], 0);
    assert.equal(after.body.data.attributes['auto-destroy-at'], null);

    // A scheduler started afresh, days later, finds the fact in the database: no second run.
    assert.deepEqual(await another().tick(new Date(Date.parse(at) + 5 * 86_400_000)), []);
    assert.equal((await runsOf(token, ws.id)).length, 2);
  });

  it('a workspace that overrides its project, and one whose state changed since, keep their own clocks', { skip }, async () => {
    const org = await ctx.organization();
    const token = org.owner.token;
    const project = await createProject(ctx, org, { 'auto-destroy-activity-duration': '1h' });
    const ws = await applied(org, project.id);
    const patched = await ctx.patch(`/api/v2/workspaces/${ws.id}`, token, {
      data: { type: 'workspaces', attributes: { 'auto-destroy-activity-duration': '3d' } },
    });
    assertStatus(patched, 200);
    assert.equal(patched.body.data.attributes['inherits-project-auto-destroy'], false);
    const at = Date.parse(patched.body.data.attributes['auto-destroy-at']);
    // Past the project's hour but not the workspace's three days: nothing.
    assert.deepEqual(await another().tick(new Date(at - 86_400_000)), []);
    assert.equal((await runsOf(token, ws.id)).length, 1);
  });

  it('an explicit auto-destroy-at fires once at that time and is cleared', { skip }, async () => {
    const org = await ctx.organization();
    const token = org.owner.token;
    const ws = await applied(org);
    const when = new Date(Date.now() + 86_400_000).toISOString();
    const set = await ctx.patch(`/api/v2/workspaces/${ws.id}`, token, { data: { type: 'workspaces', attributes: { 'auto-destroy-at': when } } });
    assertStatus(set, 200);
    assert.equal(set.body.data.attributes['auto-destroy-at'], when);
    assert.deepEqual(await another().tick(new Date(Date.parse(when) - 1000)), []);
    const created = (await Promise.all([another(), another()].map((s) => s.tick(new Date(Date.parse(when) + 1000))))).flat();
    assert.equal(created.length, 1);
    assert.equal((await waitFor(ctx, token, created[0]!, ['applied', 'errored'])).attributes.status, 'applied');
    const after = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
    assert.equal(after.body.data.attributes['auto-destroy-at'], null);
    assert.deepEqual(await another().tick(new Date(Date.parse(when) + 2000)), []);
  });

  it('a time set already past is read back as set, and acted on a minute after it was set', async () => {
    const org = await ctx.organization();
    const token = org.owner.token;
    const past = '2025-01-01T00:00:00.000Z';
    const created = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, token, {
      data: { type: 'workspaces', attributes: { name: `past-${Date.now()}`, 'auto-destroy-at': past } },
    });
    assertStatus(created, 201);
    const id = created.body.data.id;
    assert.deepEqual(await another().tick(new Date()), []);
    assert.equal((await ctx.get(`/api/v2/workspaces/${id}`, token)).body.data.attributes['auto-destroy-at'], past, 'not cleared under the client');
    // A minute on, the scheduler acts: nothing to destroy, so the time is cleared.
    assert.deepEqual(await another().tick(new Date(Date.now() + SETTLE_MS + 1000)), []);
    assert.equal((await ctx.get(`/api/v2/workspaces/${id}`, token)).body.data.attributes['auto-destroy-at'], null);
  });

  it('a workspace with nothing to destroy gets no run (no state; a scheduled time is cleared all the same)', async () => {
    const org = await ctx.organization();
    const token = org.owner.token;
    const project = await createProject(ctx, org, { 'auto-destroy-activity-duration': '1h' });
    const ws = await createWorkspace(ctx, org, project.id);
    const when = new Date(Date.now() + 60_000).toISOString();
    await ctx.patch(`/api/v2/workspaces/${ws.id}`, token, { data: { type: 'workspaces', attributes: { 'auto-destroy-at': when } } });
    const shown = await ctx.get(`/api/v2/workspaces/${ws.id}`, token);
    assert.equal(shown.body.data.attributes['auto-destroy-at'], when);
    // Two hours on: past the scheduled time and the project's hour (no other test's workspace is due then).
    assert.deepEqual(await another().tick(new Date(Date.now() + 2 * 3_600_000)), []);
    assert.equal((await runsOf(token, ws.id)).length, 0);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, token)).body.data.attributes['auto-destroy-at'], null);
  });
});

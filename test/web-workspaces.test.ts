// The workspace pages, driven like a browser: the list and creating one; lock and unlock;
// variables (a sensitive value never reaches a page); run triggers; settings (execution mode); state versions
// and outputs (sensitive ones hidden); runs, their log for the live view, discard and cancel.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';
import { advancePlan } from './helpers/runner.ts';
import { createStateVersion } from './helpers/state.ts';
import { PASSWORD, signedIn, signedInOwner, WebClient } from './helpers/web.ts';

const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]);
const HOSTILE = `<script>alert("x")</script>'"&`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;';

async function queuedRun(ctx: TestContext, token: string, workspaceId: string): Promise<string> {
  const cv = await ctx.post(`/api/v2/workspaces/${workspaceId}/configuration-versions`, token, { data: { type: 'configuration-versions' } });
  await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: TARBALL });
  const run = await ctx.post('/api/v2/runs', token, {
    data: { type: 'runs', attributes: { message: HOSTILE }, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
  });
  if (run.status !== 201) throw new Error(run.raw);
  return run.body.data.id;
}

/** A member who may read the organization's default project, signed in through the form. */
async function signedInReader(ctx: TestContext, org: Org): Promise<WebClient> {
  const reader = await memberWithAccess(ctx, org, [[org.defaultProjectId, 'read']]);
  await ctx.services.users.setPassword(reader.username, PASSWORD);
  const client = new WebClient(ctx);
  assert.equal((await client.signIn(reader.username)).status, 303);
  return client;
}

suite('web: workspaces', (ctx) => {
  it('lists workspaces, creates one from the form, and shows its overview', async () => {
    const { org, client } = await signedInOwner(ctx);
    await createWorkspace(ctx, org);
    const list = await client.get(`/app/${org.name}/workspaces`);
    assert.equal(list.status, 200);
    assert.match(list.body, /\(1 workspaces\)/);
    const name = unique('ws');
    const bad = await client.post(`/app/${org.name}/workspaces`, { name: 'bad name!', project: org.defaultProjectId });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /aria-invalid="true"/);
    const created = await client.post(`/app/${org.name}/workspaces`, { name, project: org.defaultProjectId });
    assert.equal(created.status, 303);
    assert.equal(created.location, `/app/${org.name}/workspaces/${name}`);
    const overview = await client.get(created.location!);
    assert.equal(overview.status, 200);
    assert.match(overview.body, new RegExp(`<h1>${name}</h1>`));
    assert.match(overview.body, /Unlocked/);
  });

  it('locks and unlocks a workspace', async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const base = `/app/${org.name}/workspaces/${ws.attributes.name}`;
    assert.equal((await client.post(`${base}/lock`, { reason: HOSTILE })).status, 303);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token)).body.data.attributes.locked, true);
    const page = await client.get(base);
    assert.ok(page.body.includes(ESCAPED) && !page.body.includes('<script>alert'));
    assert.equal((await client.post(`${base}/unlock`, {})).status, 303);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token)).body.data.attributes.locked, false);
  });

  it('adds variables; a sensitive value is never on any page; deletes one', async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const base = `/app/${org.name}/workspaces/${ws.attributes.name}/variables`;
    const secret = 'very-secret-value-9f8e7d';
    assert.equal((await client.post(base, { key: 'db_password', value: secret, category: 'terraform', sensitive: 'true' })).status, 303);
    assert.equal((await client.post(base, { key: 'region', value: HOSTILE, category: 'env', description: HOSTILE })).status, 303);
    const bad = await client.post(base, { key: '', value: secret, sensitive: 'true' });
    assert.equal(bad.status, 422);
    assert.ok(!bad.body.includes(secret), 'a refused sensitive value is not sent back');
    const page = await client.get(base);
    assert.ok(!page.body.includes(secret), 'the sensitive value is on the page');
    assert.match(page.body, /db_password/);
    assert.match(page.body, /write-only/);
    assert.ok(page.body.includes(ESCAPED) && !page.body.includes('<script>alert'));
    const vars = await ctx.get(`/api/v2/workspaces/${ws.id}/vars`, org.owner.token);
    const region = vars.body.data.find((v: any) => v.attributes.key === 'region');
    assert.equal(region.attributes.category, 'env');
    assert.equal((await client.post(`${base}/${region.id}/delete`, {})).status, 303);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}/vars`, org.owner.token)).body.data.length, 1);
    assert.ok(!ctx.logs.includes(secret));
  });

  it('changes settings: the execution mode, and refuses an agent mode without a pool in the form', async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const base = `/app/${org.name}/workspaces/${ws.attributes.name}/settings`;
    assert.equal((await client.get(base)).status, 200);
    const saved = await client.post(base, { description: 'hello', execution_mode: 'local', auto_apply: 'true', terraform_version: '' });
    assert.equal(saved.status, 303);
    const shown = await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token);
    assert.equal(shown.body.data.attributes['execution-mode'], 'local');
    assert.equal(shown.body.data.attributes['auto-apply'], true);
    assert.equal(shown.body.data.attributes.description, 'hello');
    const agent = await client.post(base, { execution_mode: 'agent', agent_pool: '' });
    assert.equal(agent.status, 422);
    assert.match(agent.body, /role="alert"/);
  });

  it('shows state versions and outputs, a sensitive output hidden', async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    await createStateVersion(ctx, ws.id, org.owner.token);
    const page = await client.get(`/app/${org.name}/workspaces/${ws.attributes.name}/states`);
    assert.equal(page.status, 200);
    assert.match(page.body, /greeting/);
    assert.match(page.body, /&quot;hello&quot;/);
    assert.match(page.body, /password/);
    assert.ok(!page.body.includes('hunter2-secret-value'), 'a sensitive output is on the page');
    assert.match(page.body, /Sensitive/);
  });

  it('shows runs with their log for the live view, and discards and cancels them', async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const first = await queuedRun(ctx, org.owner.token, ws.id);
    const second = await queuedRun(ctx, org.owner.token, ws.id);
    const base = `/app/${org.name}/workspaces/${ws.attributes.name}/runs`;
    const list = await client.get(base);
    assert.match(list.body, new RegExp(first));
    assert.ok(list.body.includes(ESCAPED) && !list.body.includes('<script>alert'));
    const page = await client.get(`${base}/${first}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /data-follow="[^"]+\/log"/);
    assert.match(page.body, /Cancel run/);
    const log = await client.get(`${base}/${first}/log`);
    assert.equal(log.status, 200);
    assert.deepEqual(Object.keys(JSON.parse(log.body)).sort(), ['done', 'log', 'status']);
    assert.match((await client.get(`${base}/${second}`)).body, /Discard run/);
    assert.equal((await client.post(`${base}/${second}/discard`, {})).status, 303);
    assert.equal((await ctx.get(`/api/v2/runs/${second}`, org.owner.token)).body.data.attributes.status, 'discarded');
    assert.equal((await client.post(`${base}/${first}/cancel`, {})).status, 303);
    assert.equal((await ctx.get(`/api/v2/runs/${first}`, org.owner.token)).body.data.attributes.status, 'canceled');
    // A run of another workspace, named under this one: 404.
    const other = await createWorkspace(ctx, org);
    const theirs = await queuedRun(ctx, org.owner.token, other.id);
    assert.equal((await client.get(`${base}/${theirs}`)).status, 404);
  });

  it('adds and removes run triggers; shows what the workspace triggers; a reader sees them and may not change them', async () => {
    const { org, client } = await signedInOwner(ctx);
    const target = await createWorkspace(ctx, org);
    const source = await createWorkspace(ctx, org, undefined, { name: unique('src') });
    const base = `/app/${org.name}/workspaces/${target.attributes.name}/run-triggers`;
    const empty = await client.get(base);
    assert.equal(empty.status, 200);
    assert.match(empty.body, /No source workspaces/);
    assert.ok(empty.body.includes(`value="${source.id}"`), 'the source is offered');
    assert.ok(!empty.body.includes(`value="${target.id}"`), 'the workspace itself is not offered');

    assert.equal((await client.post(base, { source: '' })).status, 422);
    assert.equal((await client.post(base, { source: source.id })).status, 303);
    const again = await client.post(base, { source: source.id });
    assert.equal(again.status, 422);
    assert.match(again.body, /already has a run trigger/);
    const listed = await client.get(base);
    assert.match(listed.body, new RegExp(`>${source.attributes.name}</a>`));
    assert.ok(!listed.body.includes(`value="${source.id}"`), 'a source is not offered twice');
    const downstream = await client.get(`/app/${org.name}/workspaces/${source.attributes.name}/run-triggers`);
    assert.match(downstream.body, new RegExp(`Workspaces this one triggers[\\s\\S]*>${target.attributes.name}</a>`));
    const [trigger] = (await ctx.get(`/api/v2/workspaces/${target.id}/run-triggers?filter[run-trigger][type]=inbound`, org.owner.token)).body.data;

    // A reader of the workspace sees the triggers, is offered nothing, and may not remove one.
    const readerClient = await signedInReader(ctx, org);
    const seen = await readerClient.get(base);
    assert.equal(seen.status, 200);
    assert.match(seen.body, new RegExp(`>${source.attributes.name}</a>`));
    assert.match(seen.body, /may not change this workspace’s run triggers/);
    assert.equal((await readerClient.post(`${base}/${trigger.id}/delete`, {})).status, 403);
    // A trigger named under another workspace's address: not found, and not removed.
    const elsewhere = `/app/${org.name}/workspaces/${source.attributes.name}/run-triggers/${trigger.id}/delete`;
    assert.equal((await client.post(elsewhere, {})).status, 404);

    assert.equal((await client.post(`${base}/${trigger.id}/delete`, {})).status, 303);
    assert.match((await client.get(base)).body, /No source workspaces/);
  });

  it("downloads a finished plan's Sentinel mocks from its run page; a reader is offered nothing and refused", async () => {
    const { org, client } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const runId = await queuedRun(ctx, org.owner.token, ws.id);
    const base = `/app/${org.name}/workspaces/${ws.attributes.name}/runs/${runId}`;
    assert.doesNotMatch((await client.get(base)).body, /Download Sentinel mocks/, 'a plan that has not finished has none');
    await advancePlan(ctx, runId, 'planned');
    assert.match((await client.get(base)).body, /Download Sentinel mocks/);
    const got = await client.post(`${base}/sentinel-mocks`, {}, { from: base });
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], 'application/x-gzip');
    assert.equal(got.headers['content-disposition'], `attachment; filename="${runId}-sentinel-mocks.tar.gz"`);
    assert.ok(got.body.startsWith('\u001f'), 'a gzip stream');

    const readerClient = await signedInReader(ctx, org);
    const seen = await readerClient.get(base);
    assert.equal(seen.status, 200);
    assert.doesNotMatch(seen.body, /Download Sentinel mocks/);
    assert.equal((await readerClient.post(`${base}/sentinel-mocks`, {}, { from: base })).status, 403);
  });

  it('shows a workspace to nobody outside its organization: the same 404 as an absent one', async () => {
    const { org } = await signedInOwner(ctx);
    const ws = await createWorkspace(ctx, org);
    const { client: stranger } = await signedIn(ctx);
    for (const tab of ['', '/variables', '/states', '/settings', '/runs', '/run-triggers']) {
      assert.equal((await stranger.get(`/app/${org.name}/workspaces/${ws.attributes.name}${tab}`)).status, 404, tab);
    }
    assert.equal((await stranger.post(`/app/${org.name}/workspaces/${ws.attributes.name}/lock`, {})).status, 404);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token)).body.data.attributes.locked, false);
  });
});

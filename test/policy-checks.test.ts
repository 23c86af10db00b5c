import assert from 'node:assert/strict';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createWorkspace, memberWithAccess } from './helpers/projects.ts';
import { createParameter, type Org } from './helpers/policy-sets.ts';

const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]);
const PLAN = {
  format_version: '1.2',
  resource_changes: [{ address: 'null_resource.a', type: 'null_resource', name: 'a', mode: 'managed', change: { actions: ['create'] } }],
};

/** A tar.gz of `files` (a policy set version's archive). */
async function tarball(files: Record<string, string>): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of p) chunks.push(c as Buffer);
  })();
  for (const [name, body] of Object.entries(files)) {
    await new Promise<void>((resolve, reject) => p.entry({ type: 'file', name }, body, (e) => (e ? reject(e) : resolve())));
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const VERSION_FILES = {
  'sentinel.hcl':
    'module "helpers" {\n  source = "./modules/helpers.sentinel"\n}\nparam "limit" {\n  value = 0\n}\npolicy "few-resources" {\n  source = "./few.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
  'few.sentinel':
    'import "tfplan/v2" as tfplan\nimport "helpers"\nparam limit\nmain = rule { length(tfplan.resource_changes) > limit and helpers.one() is 1 }\n',
  'modules/helpers.sentinel': 'one = func() { return 1 }\n',
};

interface PolicySpec {
  source: string;
  level: 'advisory' | 'soft-mandatory' | 'hard-mandatory';
}

suite('policy checks', (ctx: TestContext) => {
  /** A policy set attached to a new workspace of `org`, holding the given policies. */
  async function policySet(org: Org, wsId: string, policies: PolicySpec[]) {
    const ids: string[] = [];
    for (const p of policies) {
      const created = await ctx.post(`/api/v2/organizations/${org.name}/policies`, org.owner.token, {
        data: { type: 'policies', attributes: { name: unique('pol'), 'enforcement-level': p.level } },
      });
      assertStatus(created, 201);
      const up = await ctx.request('PUT', `/api/v2/policies/${created.body.data.id}/upload`, {
        token: org.owner.token,
        rawBody: p.source,
        contentType: 'application/octet-stream',
      });
      assert.ok(up.status < 300, up.raw);
      ids.push(created.body.data.id);
    }
    const set = await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, org.owner.token, {
      data: {
        type: 'policy-sets',
        attributes: { name: unique('ps') },
        relationships: { policies: { data: ids.map((id) => ({ id, type: 'policies' })) }, workspaces: { data: [{ id: wsId, type: 'workspaces' }] } },
      },
    });
    assertStatus(set, 201);
    return set.body.data.id as string;
  }

  /** A policy set of `org` with `data` (attributes, relationships) whose current version holds `files`. */
  async function versionedSet(org: Org, data: Record<string, unknown>, files: Record<string, string>): Promise<string> {
    const set = await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, org.owner.token, { data: { type: 'policy-sets', ...data } });
    assertStatus(set, 201);
    const version = await ctx.request('POST', `/api/v2/policy-sets/${set.body.data.id}/versions`, {
      token: org.owner.token,
      contentType: 'application/vnd.api+json',
    });
    assertStatus(version, 201);
    const up = await ctx.app.inject({
      method: 'PUT',
      url: new URL(version.body.data.links.upload).pathname,
      headers: { 'content-type': 'application/octet-stream' },
      payload: await tarball(files),
    });
    assert.equal(up.statusCode, 200, up.body);
    return set.body.data.id as string;
  }

  /** A run of the workspace, planned (the runner's part done by hand): returns the run after its checks. */
  async function plannedRun(org: Org, wsId: string, attributes: Record<string, unknown> = {}) {
    const cv = await ctx.post(`/api/v2/workspaces/${wsId}/configuration-versions`, org.owner.token, { data: { type: 'configuration-versions' } });
    assertStatus(cv, 201);
    await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: TARBALL });
    const created = await ctx.post('/api/v2/runs', org.owner.token, {
      data: {
        type: 'runs',
        attributes,
        relationships: {
          workspace: { data: { type: 'workspaces', id: wsId } },
          'configuration-version': { data: { type: 'configuration-versions', id: cv.body.data.id } },
        },
      },
    });
    assertStatus(created, 201);
    const runId = created.body.data.id as string;
    const { jobs, runs } = ctx.services;
    const db = ctx.database.db;
    const plan = (await jobs.ofRuns(db, [runId])).find((j) => j.phase === 'plan')!;
    const at = new Date().toISOString();
    const running = (await jobs.move(db, plan, ['queued'], 'running', at, { runner: 'test', heartbeatAt: at }))!;
    assert.ok(await runs.pipeline.started(running));
    await jobs.putBlob(db, running.id, 'plan-json', Buffer.from(JSON.stringify(PLAN)));
    await runs.pipeline.planned(running, { additions: 1, changes: 0, destructions: 0, imports: 0 }, true);
    const run = await ctx.get(`/api/v2/runs/${runId}`, org.owner.token);
    assertStatus(run, 200);
    return run.body.data;
  }

  async function setup(policies: PolicySpec[]) {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const setId = await policySet(org, ws.id, policies);
    return { org, wsId: ws.id, setId };
  }

  async function checkOf(org: Org, run: any) {
    const list = await ctx.get(`/api/v2/runs/${run.id}/policy-checks`, org.owner.token);
    assertStatus(list, 200);
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(run.relationships['policy-checks'].data, [{ id: list.body.data[0].id, type: 'policy-checks' }]);
    return list.body.data[0];
  }

  it('a passing set: the run is policy_checked and confirmable; the check and its log say so', async () => {
    const { org, wsId } = await setup([
      { source: 'print("hello from the policy")\nmain = rule { true }', level: 'soft-mandatory' },
      { source: 'main = rule { true }', level: 'hard-mandatory' },
    ]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'policy_checked');
    assert.equal(run.attributes.actions['is-confirmable'], true);
    const check = await checkOf(org, run);
    assert.match(check.id, /^polchk-/);
    assert.equal(check.attributes.status, 'passed');
    assert.equal(check.attributes.scope, 'organization');
    assert.equal(check.attributes.result.passed, 2);
    assert.equal(check.attributes.result['total-failed'], 0);
    assert.equal(check.attributes.result.result, true);
    assert.equal(check.attributes.actions['is-overridable'], false);
    assert.equal(check.attributes.permissions['can-override'], true);
    assert.ok(check.attributes['status-timestamps']['queued-at']);
    const shown = await ctx.get(`/api/v2/policy-checks/${check.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.relationships.run.data.id, run.id);
    const withRun = await ctx.get(`/api/v2/runs/${run.id}/policy-checks?include=run`, org.owner.token);
    assert.equal(withRun.body.included[0].id, run.id);
    const log = await ctx.request('GET', `/api/v2/policy-checks/${check.id}/output`, { token: org.owner.token });
    assert.equal(log.status, 200);
    assert.match(log.raw, /2 policies evaluated/);
    assert.match(log.raw, /hello from the policy/);
    // A passed check cannot be overridden.
    assertError(await ctx.post(`/api/v2/policy-checks/${check.id}/actions/override`, org.owner.token, {}), 409);
    // The run goes on as any planned run.
    assertStatus(await ctx.post(`/api/v2/runs/${run.id}/actions/apply`, org.owner.token, {}), 202);
  });

  it('include=policy_checks puts the checks beside a run, and beside each run of a list', async () => {
    const { org, wsId } = await setup([{ source: 'main = rule { false }', level: 'soft-mandatory' }]);
    const first = await plannedRun(org, wsId);
    const check = await checkOf(org, first);
    const shown = await ctx.get(`/api/v2/runs/${first.id}?include=policy_checks`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.included.length, 1);
    assert.equal(shown.body.included[0].id, check.id);
    assert.equal(shown.body.included[0].type, 'policy-checks');
    assert.equal(shown.body.included[0].attributes.status, 'soft_failed');
    assert.equal(shown.body.included[0].attributes.permissions['can-override'], true);
    assertStatus(await ctx.post(`/api/v2/runs/${first.id}/actions/discard`, org.owner.token, {}), 202);
    const second = await plannedRun(org, wsId);
    const listed = await ctx.get(`/api/v2/workspaces/${wsId}/runs?include=policy_checks`, org.owner.token);
    assertStatus(listed, 200);
    assert.deepEqual(listed.body.included.map((c: any) => c.relationships.run.data.id).sort(), [first.id, second.id].sort());
    const byOrg = await ctx.get(`/api/v2/organizations/${org.name}/runs?include=policy_checks`, org.owner.token);
    assertStatus(byOrg, 200);
    assert.equal(byOrg.body.included.length, 2);
    // Without the include, nothing is included.
    assert.equal((await ctx.get(`/api/v2/runs/${first.id}`, org.owner.token)).body.included, undefined);
  });

  it('an advisory failure: the run is policy_checked, the failure counted', async () => {
    const { org, wsId } = await setup([{ source: 'main = rule { false }', level: 'advisory' }]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'policy_checked');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'passed');
    assert.equal(check.attributes.result['advisory-failed'], 1);
    assert.equal(check.attributes.result.result, false);
  });

  it('a soft-mandatory failure waits in policy_override; only who may manage policies overrides it, and the run goes on', async () => {
    const { org, wsId } = await setup([{ source: 'main = rule { false }', level: 'soft-mandatory' }]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'policy_override');
    // Waiting for an override, it still holds its workspace: it is in the organization's queue.
    const queue = await ctx.get(`/api/v2/organizations/${org.name}/runs/queue`, org.owner.token);
    assert.deepEqual(
      queue.body.data.map((r: any) => r.id),
      [run.id],
    );
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'soft_failed');
    assert.equal(check.attributes.actions['is-overridable'], true);
    const url = `/api/v2/policy-checks/${check.id}/actions/override`;
    assertError(await ctx.post(url, null, {}), 401);
    const stranger = await ctx.organization();
    assertError(await ctx.post(url, stranger.owner.token, {}), 404);
    const writer = await memberWithAccess(ctx, org, [[org.defaultProjectId, 'write']]);
    const seen = await ctx.get(`/api/v2/policy-checks/${check.id}`, writer.token);
    assertStatus(seen, 200);
    assert.equal(seen.body.data.attributes.permissions['can-override'], false);
    assertError(await ctx.post(url, writer.token, {}), 403);
    const wrongType = await ctx.request('POST', url, { token: org.owner.token, rawBody: 'x', contentType: 'text/plain' });
    assert.equal(wrongType.status, 415);
    assertError(await ctx.get(`/api/v2/policy-checks/${check.id}`, stranger.owner.token), 404);
    assertError(await ctx.get('/api/v2/policy-checks/polchk-nope', org.owner.token), 404);

    const done = await ctx.post(url, org.owner.token, {});
    assertStatus(done, 200);
    assert.equal(done.body.data.attributes.status, 'overridden');
    const after = await ctx.get(`/api/v2/runs/${run.id}`, org.owner.token);
    assert.equal(after.body.data.attributes.status, 'policy_checked');
    assertError(await ctx.post(url, org.owner.token, {}), 409);
  });

  it('a hard-mandatory failure errors the run and frees the workspace', async () => {
    const { org, wsId } = await setup([
      { source: 'main = rule { false }', level: 'hard-mandatory' },
      { source: 'main = rule { true }', level: 'soft-mandatory' },
    ]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'errored');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'hard_failed');
    assert.equal(check.attributes.result['hard-failed'], 1);
    assert.equal(check.attributes.result.passed, 1);
    const ws = await ctx.get(`/api/v2/workspaces/${wsId}`, org.owner.token);
    assert.equal(ws.body.data.attributes.locked, false);
  });

  it('a sensitive parameter decides the outcome, and its value appears in no response, log or output', async () => {
    const secret = 'sup3r-s3cret-value-4242';
    const source = `param token\nprint("token is", token)\nmain = rule { token is "${secret}" }`;
    const { org, wsId, setId } = await setup([{ source, level: 'hard-mandatory' }]);
    await createParameter(ctx, org.owner.token, setId, { key: 'token', value: JSON.stringify(secret), sensitive: true });
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'policy_checked');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'passed');
    const shown = await ctx.get(`/api/v2/policy-checks/${check.id}`, org.owner.token);
    const log = await ctx.request('GET', `/api/v2/policy-checks/${check.id}/output`, { token: org.owner.token });
    assert.match(log.raw, /token is \*\*\*/);
    for (const text of [JSON.stringify(check), shown.raw, log.raw, ctx.logs]) assert.ok(!text.includes(secret));

    // The same set with another value: the policy fails.
    const other = await setup([{ source, level: 'hard-mandatory' }]);
    await createParameter(ctx, other.org.owner.token, other.setId, { key: 'token', value: '"wrong"', sensitive: true });
    const failed = await plannedRun(other.org, other.wsId);
    assert.equal(failed.attributes.status, 'errored');
  });

  it('a policy that never ends is stopped: the check and the run are errored, with the reason in the log', async () => {
    const source = 'f = func(n) { c = 0\n for range(n) as i { for range(n) as j { c = c + 1 } }\n return c }\nmain = rule { f(100000) > 0 }';
    const { org, wsId } = await setup([{ source, level: 'soft-mandatory' }]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'errored');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'errored');
    const log = await ctx.request('GET', `/api/v2/policy-checks/${check.id}/output`, { token: org.owner.token });
    assert.match(log.raw, /evaluation stopped/);
  });

  it('a policy building a huge list is stopped: the check and the run are errored, the server answers on', async () => {
    const { org, wsId } = await setup([{ source: 'l = range(50000000)\nmain = rule { length(l) > 0 }', level: 'hard-mandatory' }]);
    const run = await plannedRun(org, wsId);
    assert.equal(run.attributes.status, 'errored');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.status, 'errored');
    assert.match(check.attributes.result.sentinel.data[Object.keys(check.attributes.result.sentinel.data)[0]!].error, /evaluation stopped .*step limit/);
    const log = await ctx.request('GET', `/api/v2/policy-checks/${check.id}/output`, { token: org.owner.token });
    assert.match(log.raw, /Error: .*evaluation stopped/);
    // The workspace is free again and the next run is checked as usual.
    const ws = await ctx.get(`/api/v2/workspaces/${wsId}`, org.owner.token);
    assert.equal(ws.body.data.attributes.locked, false);
  });

  it('checks a stopped server left queued run from the scheduler; those of a run that moved on are canceled', async () => {
    const { org, wsId } = await setup([{ source: 'main = rule { true }', level: 'hard-mandatory' }]);
    const run = await plannedRun(org, wsId);
    const check = await checkOf(org, run);
    const db = ctx.database.db;
    // As if the server stopped between the plan and the evaluation.
    await db.updateTable('policy_checks').set({ status: 'queued' }).where('id', '=', check.id).execute();
    await db.updateTable('runs').set({ status: 'policy_checking' }).where('id', '=', run.id).execute();
    const soon = new Date(Date.now() + 60_000).toISOString();
    assert.ok((await ctx.services.runs.pipeline.resumePolicyChecks(soon)) >= 1);
    assert.equal((await ctx.get(`/api/v2/runs/${run.id}`, org.owner.token)).body.data.attributes.status, 'policy_checked');
    assert.equal((await ctx.get(`/api/v2/policy-checks/${check.id}`, org.owner.token)).body.data.attributes.status, 'passed');

    await db.updateTable('policy_checks').set({ status: 'queued' }).where('id', '=', check.id).execute();
    await db.updateTable('runs').set({ status: 'discarded' }).where('id', '=', run.id).execute();
    await ctx.services.runs.pipeline.resumePolicyChecks(soon);
    assert.equal((await ctx.get(`/api/v2/policy-checks/${check.id}`, org.owner.token)).body.data.attributes.status, 'canceled');
  });

  it("a global set's current version: its policies, modules and parameter defaults are used; a set parameter overrides a default", async () => {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const setId = await versionedSet(org, { attributes: { name: unique('ps'), global: true } }, VERSION_FILES);
    const run = await plannedRun(org, ws.id);
    assert.equal(run.attributes.status, 'policy_checked');
    const check = await checkOf(org, run);
    assert.equal(check.attributes.result.passed, 1);

    assertStatus(await ctx.post(`/api/v2/runs/${run.id}/actions/discard`, org.owner.token, {}), 202);
    await createParameter(ctx, org.owner.token, setId, { key: 'limit', value: '5' });
    const second = await plannedRun(org, ws.id);
    assert.equal(second.attributes.status, 'errored');
    assert.equal((await checkOf(org, second)).attributes.status, 'hard_failed');
  });

  it('a version declaring its helpers as current policy libraries do: import "module", import "static", the collection imports', async () => {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const policy = (allowed: string) =>
      [
        'import "tfplan/v2" as tfplan',
        'import "collection"',
        'import "collection/maps" as maps',
        'import "resources"',
        'import "allowed"',
        `violations = collection.reject(resources.of(tfplan.resource_changes), func(rc) { return maps.get(rc, "type") in allowed.${allowed} })`,
        'main = rule { violations is empty }',
      ].join('\n');
    const files = {
      'sentinel.hcl': [
        'import "module" "resources" {\n  source = "./modules/resources.sentinel"\n}',
        'import "static" "allowed" {\n  source = "./data/allowed.json"\n  format = "json"\n}',
        'policy "null-only" {\n  source = "./null-only.sentinel"\n  enforcement_level = "hard-mandatory"\n}',
        'policy "aws-only" {\n  source = "./aws-only.sentinel"\n  enforcement_level = "advisory"\n}',
      ].join('\n'),
      'modules/resources.sentinel': 'of = func(changes) { return map changes as _, rc { rc } }\n',
      'data/allowed.json': JSON.stringify({ null_types: ['null_resource'], aws_types: ['aws_s3_bucket'] }),
      'null-only.sentinel': policy('null_types'),
      'aws-only.sentinel': policy('aws_types'),
    };
    await versionedSet(org, { attributes: { name: unique('ps') }, relationships: { workspaces: { data: [{ id: ws.id, type: 'workspaces' }] } } }, files);
    const run = await plannedRun(org, ws.id);
    assert.equal(run.attributes.status, 'policy_checked');
    const check = await checkOf(org, run);
    // The plan creates a null_resource: allowed by the data for one policy, not for the other.
    assert.equal(check.attributes.result.passed, 1);
    assert.equal(check.attributes.result['advisory-failed'], 1);
    assert.equal(check.attributes.result.errored ?? 0, 0);
  });

  it('a workspace no policy set applies to: the run plans as before, with no checks', async () => {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const run = await plannedRun(org, ws.id);
    assert.equal(run.attributes.status, 'planned');
    assert.deepEqual(run.relationships['policy-checks'].data, []);
    const list = await ctx.get(`/api/v2/runs/${run.id}/policy-checks`, org.owner.token);
    assert.deepEqual(list.body.data, []);
    assertError(await ctx.get('/api/v2/runs/run-nope/policy-checks', org.owner.token), 404);
    assertError(await ctx.get(`/api/v2/runs/${run.id}/policy-checks?page[size]=abc`, org.owner.token), 400);
    assertError(await ctx.get(`/api/v2/runs/${run.id}/policy-checks`, null), 401);
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/runs/${run.id}/policy-checks`, other.owner.token), 404);
  });
});

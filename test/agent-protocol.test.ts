// The job protocol under /api/agent/jobs: an agent claims its pool's jobs (never another pool's,
// never remote-mode work, which the server's own workers claim), gets their inputs (sensitive
// variables included, for the claiming runner only), streams the log and reports results; the
// run moves on exactly as with the in-process runner. No terraform here: the results are made up.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertStatus } from './helpers/assert.ts';
import { assertAgentError, createAgentToken, createPool, poolWithToken, registerAgent } from './helpers/agents.ts';
import { agentRun, agentWorkspace, jobCall } from './helpers/agent-jobs.ts';
import { LOG_PART_BYTES } from '../src/jobs/service.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createWorkspace } from './helpers/projects.ts';
import { createVariable } from './helpers/variables.ts';

const STATE = JSON.stringify({ version: 4, terraform_version: '1.11.0', serial: 1, lineage: 'agent-test', outputs: {}, resources: [] });
const COUNTS = { additions: 1, changes: 0, destructions: 0, imports: 0 };

async function runStatus(ctx: TestContext, token: string, runId: string): Promise<string> {
  const res = await ctx.get(`/api/v2/runs/${runId}`, token);
  assertStatus(res, 200);
  return res.body.data.attributes.status;
}

/** The oldest queued job of the pool, claimed for `runner` (without waiting). */
async function claim(ctx: TestContext, secret: string, runner: string) {
  const res = await jobCall(ctx, 'POST', 'claim', secret, { runner });
  return res;
}

suite('agent job protocol', (ctx) => {
  it('runs a plan and an apply through the protocol: claim, start, inputs, log, heartbeat, results', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const agent = await registerAgent(ctx, token.secret);
    const runner = `${agent}/0`;
    const { workspaceId } = await agentWorkspace(ctx, org, pool.id);
    await createVariable(ctx, org.owner.token, workspaceId, { key: 'secret', value: 'pr0tocol-s3cret', sensitive: true });
    // The workspace's SSH key travels like a sensitive variable: to the runner holding the job only.
    const sshKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAagentProtocolKeyAAAA\n-----END OPENSSH PRIVATE KEY-----\n';
    const key = await ctx.post(`/api/v2/organizations/${org.name}/ssh-keys`, org.owner.token, {
      data: { type: 'ssh-keys', attributes: { name: 'k', value: sshKey } },
    });
    assertStatus(key, 201);
    const assigned = await ctx.patch(`/api/v2/workspaces/${workspaceId}/relationships/ssh-key`, org.owner.token, {
      data: { type: 'workspaces', attributes: { id: key.body.data.id } },
    });
    assertStatus(assigned, 200);
    const cv = await ctx.get(`/api/v2/workspaces/${workspaceId}/configuration-versions`, org.owner.token);
    const created = await ctx.post('/api/v2/runs', org.owner.token, {
      data: {
        type: 'runs',
        attributes: { 'auto-apply': true },
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          'configuration-version': { data: { type: 'configuration-versions', id: cv.body.data[0].id } },
        },
      },
    });
    assertStatus(created, 201);
    const runId = created.body.data.id;
    // The server's own workers never take agent-mode work.
    assert.equal(await ctx.database.transaction((trx) => ctx.services.jobs.claim(trx, 'local/0', null)), undefined);

    const claimed = await claim(ctx, token.secret, runner);
    assertStatus(claimed, 200);
    assert.match(String(claimed.headers['content-type']), /^application\/json/);
    assert.equal(claimed.body['run-id'], runId);
    assert.equal(claimed.body.phase, 'plan');
    assert.equal(claimed.body.runner, runner);
    const planJob = claimed.body.id;
    assert.equal((await claim(ctx, token.secret, `${agent}/1`)).status, 204, 'a job is claimed once');
    // A claim whose answer was lost is answered again, until the job starts.
    assert.equal((await claim(ctx, token.secret, runner)).body.id, planJob);

    const started = await jobCall(ctx, 'POST', `${planJob}/start`, token.secret, { runner });
    assertStatus(started, 200);
    assert.deepEqual(started.body, { proceed: true });
    assert.equal(await runStatus(ctx, org.owner.token, runId), 'planning');
    assertStatus(await claim(ctx, token.secret, runner), 204);

    const inputs = await jobCall(ctx, 'GET', `${planJob}/inputs?runner=${encodeURIComponent(runner)}`, token.secret);
    assertStatus(inputs, 200);
    assert.equal(inputs.body['workspace-id'], workspaceId);
    assert.equal(inputs.body.phase, 'plan');
    assert.equal(inputs.body.state, null);
    assert.equal(inputs.body['plan-file'], null);
    assert.equal(inputs.body['terraform-version'], 'latest', "the workspace's own setting: the agent's binary serves it");
    assert.equal(Buffer.from(inputs.body.archive, 'base64')[0], 0x1f, 'the gzip archive');
    assert.deepEqual(
      inputs.body.variables.map((v: any) => [v.key, v.value, v.sensitive]),
      [['secret', 'pr0tocol-s3cret', true]],
    );
    assert.equal(inputs.body['ssh-key'], sshKey);
    // Another runner of the same pool does not get the job's secrets.
    assertAgentError(await jobCall(ctx, 'GET', `${planJob}/inputs?runner=${encodeURIComponent(`${agent}/1`)}`, token.secret), 409);

    assertStatus(await jobCall(ctx, 'POST', `${planJob}/log`, token.secret, { runner, chunk: Buffer.from('Plan: 1 to add\n').toString('base64') }), 204);
    const heartbeat = await jobCall(ctx, 'POST', `${planJob}/heartbeat`, token.secret, { runner });
    assertStatus(heartbeat, 200);
    assert.deepEqual(heartbeat.body, { 'carry-on': true, 'cancel-requested': false });
    assert.deepEqual((await jobCall(ctx, 'POST', `${planJob}/heartbeat`, token.secret, { runner: `${agent}/1` })).body, {
      'carry-on': false,
      'cancel-requested': false,
    });

    const planned = await jobCall(ctx, 'POST', `${planJob}/planned`, token.secret, {
      runner,
      'plan-file': Buffer.from('the-plan-file').toString('base64'),
      'plan-json': '{"format_version":"1.2"}',
      counts: COUNTS,
      'has-changes': true,
    });
    assertStatus(planned, 204);
    const job = (await ctx.services.jobs.find(ctx.database.db, planJob))!;
    assert.equal(job.status, 'finished');
    assert.equal((await ctx.services.jobs.readLog(job, 0, 1000)).toString('utf8'), '\u0002Plan: 1 to add\n\u0003');
    // A result reported again (its answer lost) changes nothing; another runner's report is refused.
    assertStatus(await jobCall(ctx, 'POST', `${planJob}/failed`, token.secret, { runner, reason: 'again' }), 204);
    assert.equal((await ctx.services.jobs.find(ctx.database.db, planJob))!.status, 'finished');
    assertAgentError(await jobCall(ctx, 'POST', `${planJob}/failed`, token.secret, { runner: `${agent}/1`, reason: 'again' }), 409);

    // Auto-apply queued the apply: the same agent claims it, with the plan file.
    const apply = await claim(ctx, token.secret, runner);
    assertStatus(apply, 200);
    assert.equal(apply.body.phase, 'apply');
    assertStatus(await jobCall(ctx, 'POST', `${apply.body.id}/start`, token.secret, { runner }), 200);
    const applyInputs = await jobCall(ctx, 'GET', `${apply.body.id}/inputs?runner=${encodeURIComponent(runner)}`, token.secret);
    assert.equal(Buffer.from(applyInputs.body['plan-file'], 'base64').toString(), 'the-plan-file');
    assertAgentError(
      await jobCall(ctx, 'POST', `${apply.body.id}/planned`, token.secret, { runner, 'plan-file': '', 'plan-json': '{}', counts: COUNTS, 'has-changes': true }),
      409,
    );
    const applied = await jobCall(ctx, 'POST', `${apply.body.id}/applied`, token.secret, {
      runner,
      state: Buffer.from(STATE).toString('base64'),
      counts: COUNTS,
    });
    assertStatus(applied, 204);
    assert.equal(await runStatus(ctx, org.owner.token, runId), 'applied');
    const state = await ctx.get(`/api/v2/workspaces/${workspaceId}/current-state-version`, org.owner.token);
    assertStatus(state, 200);
    assert.equal(state.body.data.attributes.serial, 1);
    const ws = await ctx.get(`/api/v2/workspaces/${workspaceId}`, org.owner.token);
    assert.equal(ws.body.data.attributes.locked, false);
  });

  it('a failed job errors its run and releases the workspace', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    const { runId, workspaceId, planJobId } = await agentRun(ctx, org, pool.id);
    assert.equal((await claim(ctx, token.secret, runner)).body.id, planJobId);
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/start`, token.secret, { runner }), 200);
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/failed`, token.secret, { runner, reason: 'terraform plan failed' }), 204);
    assert.equal(await runStatus(ctx, org.owner.token, runId), 'errored');
    assert.equal((await ctx.get(`/api/v2/workspaces/${workspaceId}`, org.owner.token)).body.data.attributes.locked, false);
  });

  it('keeps a burst of log in parts of at most LOG_PART_BYTES, read back exactly at any range', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    const { planJobId } = await agentRun(ctx, org, pool.id);
    assert.equal((await claim(ctx, token.secret, runner)).body.id, planJobId);
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/start`, token.secret, { runner }), 200);
    // One flush of 1 MiB less a byte (the agent's largest chunk), every byte telling its offset.
    const burst = Buffer.from(Array.from({ length: 1024 * 1024 - 1 }, (_, i) => (i * 7 + (i >> 8)) & 0xff));
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/log`, token.secret, { runner, chunk: burst.toString('base64') }), 204);
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/log`, token.secret, { runner, chunk: Buffer.from('tail\n').toString('base64') }), 204);
    const log = Buffer.concat([burst, Buffer.from('tail\n')]);

    // The suite keeps blobs in the database (no HANGAR_BLOB_DIR): one row per part.
    const rows = await ctx.database.db
      .selectFrom('blobs')
      .select('size')
      .where('family', '=', 'jobs')
      .where('owner', '=', planJobId)
      .where('name', '=', 'log')
      .orderBy('part')
      .execute();
    const parts = rows.map((r) => Number(r.size));
    assert.equal(parts.length, Math.ceil(burst.length / LOG_PART_BYTES) + 1, 'the burst in parts, and the tail in one');
    assert.ok(
      parts.every((size) => size <= LOG_PART_BYTES),
      `parts: ${parts.join(', ')}`,
    );
    assert.equal(
      parts.reduce((a, b) => a + b, 0),
      log.length,
    );

    const job = (await ctx.services.jobs.find(ctx.database.db, planJobId))!;
    assert.equal(job.logSize, log.length);
    const framed = Buffer.concat([Buffer.from([2]), log]);
    for (const [offset, limit] of [
      [0, 10],
      [LOG_PART_BYTES - 5, 10],
      [LOG_PART_BYTES + 1, LOG_PART_BYTES * 2],
      [100, 1024 * 1024],
      [framed.length - 3, 100],
    ] as const) {
      assert.ok((await ctx.services.jobs.readLog(job, offset, limit)).equals(framed.subarray(offset, offset + limit)), `offset ${offset}, limit ${limit}`);
    }
  });

  it("claims only its own pool's agent-mode jobs; another pool's job is 404 on every route", async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const other = await createPool(ctx, org);
    const otherToken = await createAgentToken(ctx, other.id, org.owner.token);
    const mine = `${await registerAgent(ctx, token.secret)}/0`;
    const theirs = `${await registerAgent(ctx, otherToken.secret)}/0`;
    // Remote-mode work is the server's: no agent gets it.
    const remote = await createWorkspace(ctx, org);
    assert.equal(remote.attributes['execution-mode'], 'remote');
    const { planJobId } = await agentRun(ctx, org, pool.id);
    assertStatus(await jobCall(ctx, 'POST', 'claim', otherToken.secret, { runner: theirs }), 204);
    // A runner naming an agent of another pool cannot claim.
    assertAgentError(await jobCall(ctx, 'POST', 'claim', otherToken.secret, { runner: mine }), 404);
    assertAgentError(await jobCall(ctx, 'POST', 'claim', token.secret, { runner: 'agent-0000000000000000/0' }), 404);
    assert.equal((await claim(ctx, token.secret, mine)).body.id, planJobId);
    // Each call names the token it is made with: the other pool's, except for a job that does
    // not exist at all. (Telling them apart by the path once failed the test whenever the real
    // job's random id began with a 0.)
    for (const [method, path, body, secret] of [
      ['POST', `${planJobId}/start`, { runner: theirs }, otherToken.secret],
      ['GET', `${planJobId}/inputs?runner=${encodeURIComponent(theirs)}`, undefined, otherToken.secret],
      ['POST', `${planJobId}/log`, { runner: theirs, chunk: 'eA==' }, otherToken.secret],
      ['POST', `${planJobId}/heartbeat`, { runner: theirs }, otherToken.secret],
      ['POST', `${planJobId}/planned`, { runner: theirs, 'plan-file': '', 'plan-json': '{}', counts: COUNTS, 'has-changes': false }, otherToken.secret],
      ['POST', `${planJobId}/applied`, { runner: theirs, state: null, counts: COUNTS }, otherToken.secret],
      ['POST', `${planJobId}/failed`, { runner: theirs, reason: 'x' }, otherToken.secret],
      ['POST', `plan-0000000000000000/heartbeat`, { runner: mine }, token.secret],
    ] as const) {
      assertAgentError(await jobCall(ctx, method, path, secret, body), 404);
    }
    // Untouched: the job still runs for its own runner.
    assert.deepEqual((await jobCall(ctx, 'POST', `${planJobId}/heartbeat`, token.secret, { runner: mine })).body, {
      'carry-on': true,
      'cancel-requested': false,
    });
  });

  it('tells the agent of a cancel request through its heartbeat, without taking the job away', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    const { runId, planJobId } = await agentRun(ctx, org, pool.id);
    assert.equal((await claim(ctx, token.secret, runner)).body.id, planJobId);
    assertStatus(await jobCall(ctx, 'POST', `${planJobId}/start`, token.secret, { runner }), 200);
    const beat = async () => (await jobCall(ctx, 'POST', `${planJobId}/heartbeat`, token.secret, { runner })).body;
    assert.deepEqual(await beat(), { 'carry-on': true, 'cancel-requested': false });
    assertStatus(await ctx.post(`/api/v2/runs/${runId}/actions/cancel`, org.owner.token, {}), 202);
    // The agent keeps the job while terraform winds down: it is told to interrupt, not to drop it.
    assert.deepEqual(await beat(), { 'carry-on': true, 'cancel-requested': true });
    assert.equal(await runStatus(ctx, org.owner.token, runId), 'planning');
  });

  it('wakes a waiting claim the moment a job of the pool is queued', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    const started = Date.now();
    const waiting = jobCall(ctx, 'POST', 'claim', token.secret, { runner, wait: 20 });
    const { planJobId } = await agentRun(ctx, org, pool.id);
    const claimed = await waiting;
    assertStatus(claimed, 200);
    assert.equal(claimed.body.id, planJobId);
    assert.ok(Date.now() - started < 15_000, 'answered before the wait ran out');
  });

  it('refuses requests without a usable agent token: 401', async () => {
    const { org, pool, token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    const { planJobId } = await agentRun(ctx, org, pool.id);
    assertAgentError(await jobCall(ctx, 'POST', 'claim', null, { runner }), 401);
    assertAgentError(await jobCall(ctx, 'POST', 'claim', org.owner.token, { runner }), 401);
    assertAgentError(await jobCall(ctx, 'GET', `${planJobId}/inputs?runner=${runner}`, org.owner.token), 401);
    assertStatus(await ctx.delete(`/api/v2/authentication-tokens/${token.id}`, org.owner.token), 204);
    assertAgentError(await jobCall(ctx, 'POST', 'claim', token.secret, { runner }), 401);
    // And an agent token is no key to /api/v2.
    assertStatus(await ctx.get(`/api/v2/runs/${planJobId}`, token.secret), 401);
  });

  it('validates bodies: 422 with a pointer, 415 for another media type', async () => {
    const { token } = await poolWithToken(ctx);
    const runner = `${await registerAgent(ctx, token.secret)}/0`;
    assertAgentError(await jobCall(ctx, 'POST', 'claim', token.secret, { runner: 'me' }), 422, '/runner');
    assertAgentError(await jobCall(ctx, 'POST', 'claim', token.secret, { runner, wait: 31 }), 422, '/wait');
    assertAgentError(await jobCall(ctx, 'POST', 'claim', token.secret, {}), 422, '/runner');
    assertAgentError(await jobCall(ctx, 'POST', 'plan-x/failed', token.secret, { runner, reason: '' }), 422, '/reason');
    assertAgentError(
      await jobCall(ctx, 'POST', 'plan-x/planned', token.secret, { runner, 'plan-file': '', 'plan-json': '{}', counts: {}, 'has-changes': true }),
      422,
    );
    // A missing query parameter is a bad request, as elsewhere.
    assertAgentError(await jobCall(ctx, 'GET', 'plan-x/inputs', token.secret), 400);
    const jsonApi = await ctx.request('POST', '/api/agent/jobs/claim', { token: token.secret, body: { runner } });
    assertAgentError(jsonApi, 415);
  });
});

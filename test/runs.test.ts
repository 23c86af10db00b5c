import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, memberWithAccess, type Org } from './helpers/projects.ts';
import { settledStatements } from './helpers/settled.ts';

const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]);

/** A configuration version of the workspace, uploaded unless told otherwise. */
async function configurationVersion(ctx: TestContext, token: string, workspaceId: string, upload = true): Promise<string> {
  const cv = await ctx.post(`/api/v2/workspaces/${workspaceId}/configuration-versions`, token, { data: { type: 'configuration-versions' } });
  assertStatus(cv, 201);
  if (upload) {
    const res = await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: TARBALL });
    assert.equal(res.statusCode, 200);
  }
  return cv.body.data.id;
}

const runBody = (workspaceId: string, cvId?: string, attributes: Record<string, unknown> = {}) => ({
  data: {
    type: 'runs',
    attributes,
    relationships: {
      workspace: { data: { type: 'workspaces', id: workspaceId } },
      ...(cvId ? { 'configuration-version': { data: { type: 'configuration-versions', id: cvId } } } : {}),
    },
  },
});

suite('runs', (ctx) => {
  async function setup() {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const cv = await configurationVersion(ctx, org.owner.token, ws.id);
    return { org, ws, cv };
  }

  // No runner runs in these tests (the server's workers start with `serve`): a run stops at
  // plan_queued, which is all the queue and its actions need. runs-execution.test.ts executes them.
  it('the first run takes the workspace lock and queues its plan; the next waits pending; the queue moves on when it ends', async () => {
    const { org, ws, cv } = await setup();
    const created = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv, { message: 'hello', 'is-destroy': true, targets: ['ignored'] }));
    assertStatus(created, 201);
    const run = created.body.data;
    assert.match(run.id, /^run-[0-9A-Za-z]{16}$/);
    assert.equal(run.attributes.status, 'plan_queued');
    assert.equal(run.attributes.message, 'hello');
    assert.equal(run.attributes['is-destroy'], true);
    assert.deepEqual(run.attributes.actions, { 'is-cancelable': true, 'is-confirmable': false, 'is-discardable': false, 'is-force-cancelable': false });
    assert.equal(run.attributes.permissions['can-cancel'], true);
    assert.match(run.attributes['status-timestamps']['plan-queued-at'], /Z$/);
    assert.equal(run.relationships['configuration-version'].data.id, cv);
    assert.equal(run.relationships.workspace.data.id, ws.id);
    assert.equal(run.relationships['created-by'].data.id, org.owner.id);
    assert.match(run.relationships.plan.data.id, /^plan-/);
    assert.match(run.relationships.apply.data.id, /^apply-/);

    const locked = await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token);
    assert.equal(locked.body.data.attributes.locked, true);
    assert.deepEqual(locked.body.data.relationships['locked-by'].data, { id: run.id, type: 'runs' });
    assert.equal(locked.body.data.relationships['current-run'].data.id, run.id);
    assert.equal(locked.body.data.attributes['runs-count'], 1);
    const unlock = assertError(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/unlock`, org.owner.token, {}), 409);
    assert.match(`${unlock.title}\n\n${unlock.detail}`, /is locked by Run/);

    // A second run queues behind the first; a speculative one neither waits nor locks.
    const second = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    assertStatus(second, 201);
    assert.equal(second.body.data.attributes.status, 'pending');
    const speculative = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv, { 'plan-only': true }));
    assert.equal(speculative.body.data.attributes.status, 'plan_queued');
    const queue = await ctx.get(`/api/v2/organizations/${org.name}/runs/queue`, org.owner.token);
    assertStatus(queue, 200);
    assert.equal(queue.body.data.length, 3);

    const list = await ctx.get(`/api/v2/workspaces/${ws.id}/runs`, org.owner.token);
    assertStatus(list, 200);
    assert.deepEqual(list.body.data.map((r: any) => r.id).sort(), [run.id, second.body.data.id, speculative.body.data.id].sort());

    const canceled = await ctx.request('POST', `/api/v2/runs/${run.id}/actions/cancel`, { token: org.owner.token, body: { comment: 'no' } });
    assertStatus(canceled, 202);
    const after = await ctx.get(`/api/v2/runs/${run.id}?include=plan,apply`, org.owner.token);
    assert.equal(after.body.data.attributes.status, 'canceled');
    assert.match(after.body.data.attributes['status-timestamps']['canceled-at'], /Z$/);
    assert.equal(after.body.data.attributes.actions['is-cancelable'], false);
    assert.deepEqual(
      after.body.included.map((i: any) => [i.type, i.attributes.status]),
      [
        ['plans', 'canceled'],
        ['applies', 'unreachable'],
      ],
    );
    // The queue moved on: the second run holds the workspace now.
    const next = await ctx.get(`/api/v2/runs/${second.body.data.id}`, org.owner.token);
    assert.equal(next.body.data.attributes.status, 'plan_queued');
    const ws2 = await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token);
    assert.deepEqual(ws2.body.data.relationships['locked-by'].data, { id: second.body.data.id, type: 'runs' });
    // A run ends once.
    assertError(await ctx.post(`/api/v2/runs/${run.id}/actions/cancel`, org.owner.token, {}), 409);
    assertError(await ctx.post(`/api/v2/runs/${run.id}/actions/apply`, org.owner.token, {}), 409);
    const events = await ctx.get(`/api/v2/runs/${run.id}/run-events`, org.owner.token);
    assertStatus(events, 200);
    assert.deepEqual(
      events.body.data.map((e: any) => e.attributes.action),
      ['queued', 'plan_queued', 'canceled', 'commented'],
    );
    assertStatus(await ctx.get(`/api/v2/run-events/${events.body.data[0].id}`, org.owner.token), 200);
    // The action's comment is the run's; comments are read with the run, events include them.
    const comments = await ctx.get(`/api/v2/runs/${run.id}/comments`, org.owner.token);
    assertStatus(comments, 200);
    assert.deepEqual(
      comments.body.data.map((c: any) => c.attributes.body),
      ['no'],
    );
    const withComment = await ctx.get(`/api/v2/runs/${run.id}/run-events?include=actor,comment`, org.owner.token);
    const commented = withComment.body.data.find((e: any) => e.attributes.action === 'commented');
    assert.equal(commented.relationships.comment.data.id, comments.body.data[0].id);
    assert.deepEqual(withComment.body.included.map((i: any) => i.type).sort(), ['comments', 'users']);
    const posted = await ctx.post(`/api/v2/runs/${run.id}/comments`, org.owner.token, { data: { type: 'comments', attributes: { body: 'later' } } });
    assertStatus(posted, 201);
    assertStatus(await ctx.get(`/api/v2/comments/${posted.body.data.id}`, org.owner.token), 200);
    assertError(
      await ctx.post(`/api/v2/runs/${run.id}/comments`, org.owner.token, { data: { type: 'comments', attributes: { body: '' } } }),
      422,
      '/data/attributes/body',
    );
    assertError(await ctx.post(`/api/v2/runs/${run.id}/actions/cancel`, org.owner.token, { comment: 5 }), 422, '/comment');
    assert.deepEqual((await ctx.get(`/api/v2/runs/${run.id}`, org.owner.token)).body.data.relationships.comments.data.length, 2);
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/comments/${posted.body.data.id}`, other.owner.token), 404);
    assertError(await ctx.post(`/api/v2/runs/${run.id}/comments`, other.owner.token, { data: { type: 'comments', attributes: { body: 'x' } } }), 404);
    // Filters of the list: operation, user, commit.
    const list2 = (q: string) => ctx.get(`/api/v2/workspaces/${ws.id}/runs?${q}`, org.owner.token);
    assert.equal((await list2('filter[operation]=plan_only')).body.data.length, 1);
    assert.equal((await list2('filter[operation]=save_plan')).body.data.length, 0);
    assert.equal((await list2('filter[operation]=destroy')).body.data.length, 1);
    assert.equal((await list2(`search[user]=${org.owner.username}`)).body.data.length, 3);
    assert.equal((await list2('search[user]=nobody')).body.data.length, 0);
    assert.equal((await list2('search[commit]=abc')).body.data.length, 0);
    assert.equal((await list2('filter[status]=canceled')).body.data.length, 1);
    assert.equal((await list2('filter[status]=nonsense')).body.data.length, 0);
  });

  it('discard ends a pending run; `configuration-version: null` takes the newest uploaded one; a user lock holds the queue until unlocked', async () => {
    const { org, ws, cv } = await setup();
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, org.owner.token, {}), 200);
    const body = runBody(ws.id);
    (body.data.relationships as any)['configuration-version'] = { data: null };
    const created = await ctx.post('/api/v2/runs', org.owner.token, body);
    assertStatus(created, 201);
    assert.equal(created.body.data.relationships['configuration-version'].data.id, cv);
    assert.equal(created.body.data.attributes.status, 'pending');
    assert.equal(created.body.data.attributes.actions['is-discardable'], true);
    assertStatus(await ctx.post(`/api/v2/runs/${created.body.data.id}/actions/discard`, org.owner.token, {}), 202);
    assert.equal((await ctx.get(`/api/v2/runs/${created.body.data.id}`, org.owner.token)).body.data.attributes.status, 'discarded');
    // The user's lock is not a run's to release.
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws.id}`, org.owner.token)).body.data.attributes.locked, true);
    const waiting = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/unlock`, org.owner.token, {}), 200);
    await ctx.services.runs.pipeline.startWaiting();
    assert.equal((await ctx.get(`/api/v2/runs/${waiting.body.data.id}`, org.owner.token)).body.data.attributes.status, 'plan_queued');
    // force-execute: a pending run replaces the one holding the workspace.
    const third = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    assert.equal(third.body.data.attributes.status, 'pending');
    assertStatus(await ctx.post(`/api/v2/runs/${third.body.data.id}/actions/force-execute`, org.owner.token, {}), 202);
    assert.equal((await ctx.get(`/api/v2/runs/${third.body.data.id}`, org.owner.token)).body.data.attributes.status, 'plan_queued');
    assert.equal((await ctx.get(`/api/v2/runs/${waiting.body.data.id}`, org.owner.token)).body.data.attributes.status, 'canceled');
    const orgRuns = await ctx.get(`/api/v2/organizations/${org.name}/runs?filter[status]=canceled,discarded`, org.owner.token);
    assertStatus(orgRuns, 200);
    assert.equal(orgRuns.body.meta.pagination['total-count'], 2);
  });

  it('a canceled run shows when TFE would offer force-cancel; force-cancel takes a running run', async () => {
    const { org, ws, cv } = await setup();
    await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    const pending = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    assert.equal(pending.body.data.attributes['force-cancel-available-at'], null);
    assert.equal(pending.body.data.attributes.actions['is-force-cancelable'], false);
    assert.equal(pending.body.data.attributes.permissions['can-force-cancel'], true);
    assertStatus(await ctx.post(`/api/v2/runs/${pending.body.data.id}/actions/cancel`, org.owner.token, {}), 202);
    const canceled = (await ctx.get(`/api/v2/runs/${pending.body.data.id}`, org.owner.token)).body.data.attributes;
    assert.equal(canceled.status, 'canceled');
    assert.equal(Date.parse(canceled['force-cancel-available-at']) - Date.parse(canceled['canceled-at']), 10_000);
    // Nothing is left to force on a run that has ended.
    assertError(await ctx.post(`/api/v2/runs/${pending.body.data.id}/actions/force-cancel`, org.owner.token, {}), 409);
    assertError(await ctx.post('/api/v2/runs/run-doesnotexist0000/actions/force-cancel', org.owner.token, {}), 404);
  });

  it('site admins list every run and force-cancel any unfinished one; the admin API does not exist for others', async () => {
    const { org, ws, cv } = await setup();
    const first = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    const second = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    const admin = await ctx.user({ siteAdmin: true });
    const all = await ctx.get(`/api/v2/admin/runs?include=workspace,workspace.organization&q=${first.body.data.id}`, admin.token);
    assertStatus(all, 200);
    assert.deepEqual(
      all.body.data.map((r: any) => r.id),
      [first.body.data.id],
    );
    assert.deepEqual(all.body.included.map((i: any) => i.type).sort(), ['organizations', 'workspaces']);
    const pending = await ctx.get(`/api/v2/admin/runs?filter[status]=pending&q=${ws.attributes?.name ?? ''}`, admin.token);
    assert.ok(pending.body.data.some((r: any) => r.id === second.body.data.id));
    assert.ok(!pending.body.data.some((r: any) => r.id === first.body.data.id));
    const future = await ctx.get(`/api/v2/admin/runs?filter[from]=2999-01-01T00:00:00Z`, admin.token);
    assert.equal(future.body.data.length, 0);
    assertError(await ctx.get('/api/v2/admin/runs?filter[from]=yesterday', admin.token), 400);
    assertError(await ctx.get('/api/v2/admin/runs', org.owner.token), 404);
    assertError(await ctx.get('/api/v2/admin/runs', null), 401);
    assertError(await ctx.post(`/api/v2/admin/runs/${second.body.data.id}/actions/force-cancel`, org.owner.token, {}), 404);
    assertStatus(await ctx.post(`/api/v2/admin/runs/${second.body.data.id}/actions/force-cancel`, admin.token, {}), 202);
    assert.equal((await ctx.get(`/api/v2/runs/${second.body.data.id}`, org.owner.token)).body.data.attributes.status, 'canceled');
    assertError(await ctx.post(`/api/v2/admin/runs/${second.body.data.id}/actions/force-cancel`, admin.token, {}), 409);
  });

  it("reads a page of a workspace's runs, their plans, applies, comments and checks, and the count in one statement; a page past the end in two", async () => {
    const { org, ws, cv } = await setup();
    const t = org.owner.token;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await ctx.post('/api/v2/runs', t, runBody(ws.id, cv))).body.data.id);
    // Comments, in the order they were made, on the newest run.
    for (const body of ['one', 'two', 'three'])
      assertStatus(await ctx.post(`/api/v2/runs/${made[2]}/comments`, t, { data: { type: 'comments', attributes: { body } } }), 201);
    const url = `/api/v2/workspaces/${ws.id}/runs?page[size]=2`;
    await ctx.get(url, t); // the caller's caches, and the page's compiled query
    const { result, statements } = await ctx.statementsOf(() => ctx.get(url, t));
    assertStatus(result, 200);
    const mine = statements.filter((text) => /\b(runs|jobs|comments|policy_checks)\b/.test(text));
    assert.equal(mine.length, 1, mine.join('\n'));
    assert.equal(result.body.meta.pagination['total-count'], 3);
    assert.deepEqual(
      result.body.data.map((r: any) => r.id),
      [made[2], made[1]],
    );
    // Each listed run as it is shown on its own.
    for (const r of result.body.data) assert.deepEqual(r, (await ctx.get(`/api/v2/runs/${r.id}`, t)).body.data);
    assert.equal(result.body.data[0].relationships.comments.data.length, 3);
    const shownComments = await ctx.get(`/api/v2/runs/${made[2]}/comments`, t);
    assert.deepEqual(
      result.body.data[0].relationships.comments.data.map((c: any) => c.id),
      shownComments.body.data.map((c: any) => c.id),
    );
    // The plans and applies a list includes are whole, as a show's.
    const withPhases = await ctx.get(`${url}&include=plan,apply`, t);
    const shown = await ctx.get(`/api/v2/runs/${made[2]}?include=plan,apply`, t);
    // (The log URL is signed at the moment of the answer.)
    const unsigned = (phase: any) => ({ ...phase, attributes: { ...phase.attributes, 'log-read-url': phase.attributes['log-read-url'].split('.')[0] } });
    for (const phase of shown.body.included) assert.deepEqual(unsigned(withPhases.body.included.find((i: any) => i.id === phase.id)), unsigned(phase));
    assert.equal(withPhases.body.included.length, 4);

    const past = await ctx.statementsOf(() => ctx.get(`${url}&page[number]=9`, t));
    assert.deepEqual(past.result.body.data, []);
    assert.equal(past.result.body.meta.pagination['total-count'], 3);
    assert.equal(past.statements.filter((text) => /\bruns\b/.test(text)).length, 2);
  });

  it('refuses bad bodies with pointers', async () => {
    const { org, ws } = await setup();
    const pending = await configurationVersion(ctx, org.owner.token, ws.id, false);
    assertError(await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, pending)), 422, '/data/relationships/configuration-version/data/id');
    const elsewhere = await createWorkspace(ctx, org);
    const theirs = await configurationVersion(ctx, org.owner.token, elsewhere.id);
    assertError(await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, theirs)), 422, '/data/relationships/configuration-version/data/id');
    assertError(await ctx.post('/api/v2/runs', org.owner.token, runBody(elsewhere.id.replace('ws-', 'ws-x'), theirs)), 404);
    const empty = await createWorkspace(ctx, org);
    assertError(await ctx.post('/api/v2/runs', org.owner.token, runBody(empty.id)), 422, '/data/relationships/configuration-version/data/id');
    assertError(await ctx.post('/api/v2/runs', org.owner.token, { data: { type: 'runs', relationships: {} } }), 422, '/data/relationships/workspace');
    assertError(await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, undefined, { 'is-destroy': 'yes' })), 422, '/data/attributes/is-destroy');
    assertError(await ctx.request('POST', '/api/v2/runs', { token: org.owner.token, rawBody: '{}', contentType: 'text/plain' }), 415);
    assertError(await ctx.post('/api/v2/runs', null, runBody(ws.id)), 401);
    assertError(await ctx.get('/api/v2/runs/run-doesnotexist0000', org.owner.token), 404);
  });

  it('takes plan permission to start and end runs; readers see them; other organizations do not', async () => {
    const org: Org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const cv = await configurationVersion(ctx, org.owner.token, ws.id);
    const reader = await ctx.member(org);
    await grant(ctx, org, reader.teamId, project.id, 'read');
    const writer = await ctx.member(org);
    await grant(ctx, org, writer.teamId, project.id, 'write');
    assertError(await ctx.post('/api/v2/runs', reader.token, runBody(ws.id, cv)), 403);
    const run = await ctx.post('/api/v2/runs', writer.token, runBody(ws.id, cv));
    assertStatus(run, 201);
    const seen = await ctx.get(`/api/v2/runs/${run.body.data.id}`, reader.token);
    assertStatus(seen, 200);
    assert.equal(seen.body.data.attributes.permissions['can-discard'], false);
    assertError(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/discard`, reader.token, {}), 403);
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/runs/${run.body.data.id}`, other.owner.token), 404);
    assertError(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/discard`, other.owner.token, {}), 404);
    assertError(await ctx.get(`/api/v2/workspaces/${ws.id}/runs`, other.owner.token), 404);
    assertError(await ctx.post('/api/v2/runs', other.owner.token, runBody(ws.id, cv)), 404);
    assertStatus(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/cancel`, writer.token, {}), 202);
    // Plan permission queues and cancels runs, but confirming an apply takes `apply`.
    assert.equal(seen.body.data.attributes.permissions['can-apply'], false);
    const wsView = await ctx.get(`/api/v2/workspaces/${ws.id}`, writer.token);
    assert.equal(wsView.body.data.attributes.permissions['can-queue-run'], true);
    assert.equal(wsView.body.data.attributes.permissions['can-queue-apply'], true);
    const readerView = await ctx.get(`/api/v2/workspaces/${ws.id}`, reader.token);
    assert.equal(readerView.body.data.attributes.permissions['can-queue-run'], false);
    assert.equal(readerView.body.data.attributes.permissions['can-queue-apply'], false);
    // Another organization sees none of its runs.
    assert.equal((await ctx.get(`/api/v2/organizations/${org.name}/runs`, other.owner.token)).status, 404);
  });

  it('a team token locks as its team: another caller is told "locked by Team"', async () => {
    const org: Org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, org.owner.token, {
      data: { type: 'teams', attributes: { name: `t-${Date.now()}` } },
    });
    const teamId = team.body.data.id;
    const access = await ctx.post('/api/v2/team-workspaces', org.owner.token, {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'admin' },
        relationships: { workspace: { data: { type: 'workspaces', id: ws.id } }, team: { data: { type: 'teams', id: teamId } } },
      },
    });
    assertStatus(access, 200);
    const token = (await ctx.post(`/api/v2/teams/${teamId}/authentication-token`, org.owner.token, { data: { type: '' } })).body.data.attributes.token;
    const locked = await ctx.post(`/api/v2/workspaces/${ws.id}/actions/lock`, token, {});
    assertStatus(locked, 200);
    assert.deepEqual(locked.body.data.relationships['locked-by'].data, { id: teamId, type: 'teams' });
    const refused = assertError(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/unlock`, org.owner.token, {}), 409);
    assert.match(`${refused.title}\n\n${refused.detail}`, /is locked by Team/);
    assertStatus(await ctx.post(`/api/v2/workspaces/${ws.id}/actions/unlock`, token, {}), 200);
  });

  it('finds the workspace of a run list with its project in one statement: a page is two in all, for the owner and for a member on a team alike (its workspace grants are cached until they change)', async () => {
    const org: Org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const cv = await configurationVersion(ctx, org.owner.token, ws.id);
    const run = await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, cv));
    assertStatus(run, 201);
    const member = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    const url = `/api/v2/workspaces/${ws.id}/runs`;
    for (const [token, expected] of [
      [org.owner.token, 2],
      [member.token, 2],
    ] as const) {
      await ctx.get(url, token); // the caller's caches, and the compiled statements
      const { result, statements } = await settledStatements(ctx, () => ctx.get(url, token), expected);
      assertStatus(result, 200);
      assert.deepEqual(
        result.body.data.map((r: any) => r.id),
        [run.body.data.id],
      );
      assert.equal(statements.length, expected, statements.join('\n'));
      assert.match(statements[0]!, /from "workspaces"/, 'the workspace');
      assert.match(statements[0]!, /from "projects"/, 'and its project');
      assert.equal(statements.filter((text) => /from "projects"/.test(text)).length, 1, 'the project is not read again');
      assert.equal(statements.filter((text) => /"team_workspaces"/.test(text)).length, 0, 'the workspace grants are cached');
      assert.match(statements.at(-1)!, /"runs"/, 'the page');
    }
    assertError(await ctx.get(url, (await ctx.organization()).owner.token), 404);
    assertError(await ctx.get(`/api/v2/workspaces/${ws.id.replace('ws-', 'ws-x')}/runs`, org.owner.token), 404);
  });

  it("includes the runs' workspaces in as many statements for four workspaces as for one, and only those the caller may read", async () => {
    /** An organization with `n` workspaces, one run each, and a member who may read the first project only. */
    async function organizationWith(n: number) {
      const org: Org = await ctx.organization();
      const projects = [await createProject(ctx, org), await createProject(ctx, org)];
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const ws = await createWorkspace(ctx, org, projects[i % 2]!.id);
        assertStatus(await ctx.post('/api/v2/runs', org.owner.token, runBody(ws.id, await configurationVersion(ctx, org.owner.token, ws.id))), 201);
        ids.push(ws.id);
      }
      return { org, ids, member: await memberWithAccess(ctx, org, [[projects[0]!.id, 'read']]) };
    }
    const url = (org: Org) => `/api/v2/organizations/${org.name}/runs?include=workspace`;
    const included = async (org: Org, token: string) => {
      const res = await ctx.get(url(org), token);
      assertStatus(res, 200);
      return res.body.included.map((w: any) => w.id).sort();
    };
    const one = await organizationWith(1);
    const four = await organizationWith(4);
    assert.deepEqual(await included(four.org, four.org.owner.token), [...four.ids].sort());
    // On PostgreSQL the notifications of the writes above drop the caches a moment later (the
    // requests after load what they hold again): the fewest statements one workspace's page takes,
    // and four workspaces' page, once it settles, takes no more.
    let fewest = Infinity;
    for (let i = 0; i < 10; i++) {
      fewest = Math.min(fewest, (await ctx.statementsOf(() => ctx.get(url(one.org), one.org.owner.token))).statements.length);
      await sleep(20);
    }
    const large = await settledStatements(ctx, () => ctx.get(url(four.org), four.org.owner.token), fewest);
    assert.equal(large.statements.length, fewest, large.statements.join('\n'));
    // A member who reads one project sees the runs there, and only those workspaces are included.
    assert.deepEqual(await included(four.org, four.member.token), [four.ids[0]!, four.ids[2]!].sort());
  });
});

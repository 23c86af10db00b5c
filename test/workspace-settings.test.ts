// Workspace settings, execution modes (the organization's default and a workspace's own), the
// `actions` object, links, `search[wildcard-name]` and `include=organization`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { createPool } from './helpers/agents.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';

const wsBody = (attributes: Record<string, unknown>) => ({ data: { type: 'workspaces', attributes } });
const orgBody = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type: 'organizations', attributes, ...(relationships ? { relationships } : {}) },
});
const poolRel = (id: string | null) => ({ 'default-agent-pool': { data: id === null ? null : { type: 'agent-pools', id } } });

async function createWs(ctx: TestContext, org: Org, attributes: Record<string, unknown>) {
  return ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, wsBody({ name: unique('ws'), ...attributes }));
}

/** An organization whose default is `agent` on a new pool. */
async function agentOrg(ctx: TestContext) {
  const org = await ctx.organization();
  const pool = await createPool(ctx, org);
  const res = await ctx.patch(`/api/v2/organizations/${org.name}`, org.owner.token, orgBody({ 'default-execution-mode': 'agent' }, poolRel(pool.id)));
  assertStatus(res, 200);
  return { org, pool };
}

suite('workspace settings', (ctx) => {
  it('stores and returns every setting sent on create, and answers TFE defaults for the rest', async () => {
    const org = await ctx.organization();
    const bare = await createWs(ctx, org, {});
    assertStatus(bare, 201);
    const a = bare.body.data.attributes;
    assert.deepEqual(
      {
        auto: a['auto-apply'],
        destroy: a['allow-destroy-plan'],
        triggers: a['file-triggers-enabled'],
        global: a['global-remote-state'],
        queue: a['queue-all-runs'],
        speculative: a['speculative-enabled'],
        structured: a['structured-run-output-enabled'],
        version: a['terraform-version'],
        dir: a['working-directory'],
        prefixes: a['trigger-prefixes'],
        patterns: a['trigger-patterns'],
        source: [a['source-name'], a['source-url']],
        at: a['auto-destroy-at'],
        mode: a['execution-mode'],
        operations: a.operations,
        overwrites: a['setting-overwrites'],
        actions: a.actions,
      },
      {
        auto: false,
        destroy: true,
        triggers: true,
        global: false,
        queue: false,
        speculative: true,
        structured: true,
        version: 'latest',
        dir: '',
        prefixes: [],
        patterns: [],
        source: [null, null],
        at: null,
        mode: 'remote',
        operations: true,
        overwrites: { 'execution-mode': false, 'agent-pool': false },
        actions: { 'is-destroyable': true },
      },
    );
    const name = bare.body.data.attributes.name;
    assert.equal(bare.body.data.links['self-html'], `/app/${org.name}/workspaces/${name}`);
    assert.deepEqual(bare.body.data.relationships['agent-pool'], { data: null });

    const sent = {
      'auto-apply': true,
      'allow-destroy-plan': false,
      'file-triggers-enabled': false,
      'global-remote-state': true,
      'queue-all-runs': true,
      'speculative-enabled': false,
      'structured-run-output-enabled': false,
      'assessments-enabled': true,
      'auto-apply-run-trigger': true,
      'terraform-version': '~> 1.5',
      'working-directory': 'infra/',
      'trigger-prefixes': ['/modules', '/shared'],
      'source-name': 'my-app',
      'source-url': 'https://my-app.example.test/x',
      'auto-destroy-at': '2030-01-02T03:04:05+02:00',
    };
    const full = await createWs(ctx, org, sent);
    assertStatus(full, 201);
    const shown = await ctx.get(`/api/v2/workspaces/${full.body.data.id}`, org.owner.token);
    for (const doc of [full.body.data, shown.body.data]) {
      for (const [k, v] of Object.entries(sent)) {
        if (k !== 'auto-destroy-at') assert.deepEqual(doc.attributes[k], v, k);
      }
      // Kept as UTC with milliseconds, like every Hangar timestamp.
      assert.equal(doc.attributes['auto-destroy-at'], '2030-01-02T01:04:05.000Z');
    }
    assert.deepEqual(shown.body.data, full.body.data);
  });

  it('updates only what is sent, and keeps source-name and source-url as created', async () => {
    const org = await ctx.organization();
    const w = (await createWs(ctx, org, { 'source-name': 'cli', 'working-directory': 'a/' })).body.data;
    const res = await ctx.patch(
      `/api/v2/workspaces/${w.id}`,
      org.owner.token,
      wsBody({
        'auto-apply': true,
        'terraform-version': '1.11.4',
        'trigger-patterns': ['/mod/**/*'],
        'auto-destroy-at': null,
      }),
    );
    assertStatus(res, 200);
    const a = res.body.data.attributes;
    assert.equal(a['auto-apply'], true);
    assert.equal(a['terraform-version'], '1.11.4');
    assert.deepEqual(a['trigger-patterns'], ['/mod/**/*']);
    assert.equal(a['working-directory'], 'a/');
    assert.equal(a['source-name'], 'cli');
    const cleared = await ctx.patch(
      `/api/v2/workspaces/${w.id}`,
      org.owner.token,
      wsBody({ 'trigger-patterns': [], 'auto-destroy-at': '2031-05-06T07:08:09Z' }),
    );
    assert.deepEqual(cleared.body.data.attributes['trigger-patterns'], []);
    assert.equal(cleared.body.data.attributes['auto-destroy-at'], '2031-05-06T07:08:09.000Z');
    const nulled = await ctx.patch(`/api/v2/workspaces/${w.id}`, org.owner.token, wsBody({ 'auto-destroy-at': null }));
    assert.equal(nulled.body.data.attributes['auto-destroy-at'], null);
  });

  it('refuses bad settings with 422 at the attribute, before anything is written', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const url = `/api/v2/workspaces/${w.id}`;
    const t = org.owner.token;
    for (const version of ['nonexisting', '', '1..2', '>= ', '1.0,', 'latest-ish']) {
      const e = assertError(await ctx.patch(url, t, wsBody({ 'terraform-version': version })), 422, '/data/attributes/terraform-version');
      assert.match(e.detail!, /version/);
    }
    for (const version of ['0.11.0', '1.6.0-beta1', '>= 1.2, < 2.0', '~> 1.0', 'latest']) {
      assertStatus(await ctx.patch(url, t, wsBody({ 'terraform-version': version })), 200);
    }
    assertError(await createWs(ctx, org, { 'terraform-version': 'nonexisting' }), 422, '/data/attributes/terraform-version');
    assertError(await ctx.patch(url, t, wsBody({ 'auto-destroy-at': 'tomorrow' })), 422, '/data/attributes/auto-destroy-at');
    assertError(await createWs(ctx, org, { 'source-url': 'not a url' }), 422, '/data/attributes/source-url');
    assertError(await createWs(ctx, org, { 'source-url': 'ftp://example.test/' }), 422, '/data/attributes/source-url');
    assertError(await ctx.patch(url, t, wsBody({ 'auto-apply': 'yes' })), 422, '/data/attributes/auto-apply');
    assertError(await ctx.patch(url, t, wsBody({ 'trigger-prefixes': 'modules' })), 422, '/data/attributes/trigger-prefixes');
    assertError(await ctx.patch(url, t, wsBody({ 'trigger-prefixes': ['/a'], 'trigger-patterns': ['/b/**'] })), 422, '/data/attributes/trigger-patterns');
    assertError(await ctx.patch(url, t, wsBody({ 'execution-mode': 'cloud' })), 422, '/data/attributes/execution-mode');
    const after = (await ctx.get(url, t)).body.data.attributes;
    assert.equal(after['terraform-version'], 'latest');
    assert.equal(after['auto-apply'], false);
    assert.deepEqual(after['trigger-patterns'], []);
  });

  it('replaces trigger prefixes with patterns and the other way round', async () => {
    const org = await ctx.organization();
    const w = (await createWs(ctx, org, { 'trigger-prefixes': ['/a'] })).body.data;
    const url = `/api/v2/workspaces/${w.id}`;
    const patterns = await ctx.patch(url, org.owner.token, wsBody({ 'trigger-patterns': ['/b/**'] }));
    assertStatus(patterns, 200);
    assert.deepEqual([patterns.body.data.attributes['trigger-prefixes'], patterns.body.data.attributes['trigger-patterns']], [[], ['/b/**']]);
    const prefixes = await ctx.patch(url, org.owner.token, wsBody({ 'trigger-prefixes': ['/c'] }));
    assert.deepEqual([prefixes.body.data.attributes['trigger-prefixes'], prefixes.body.data.attributes['trigger-patterns']], [['/c'], []]);
    // Emptying one leaves the other alone.
    const emptied = await ctx.patch(url, org.owner.token, wsBody({ 'trigger-patterns': [] }));
    assert.deepEqual(emptied.body.data.attributes['trigger-prefixes'], ['/c']);
  });

  it('lets a member without workspace admin read the settings but not change them (403)', async () => {
    const org = await ctx.organization();
    const p = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, p.id);
    const reader = await memberWithAccess(ctx, org, [[p.id, 'read']]);
    assertStatus(await ctx.get(`/api/v2/workspaces/${w.id}`, reader.token), 200);
    assertError(await ctx.patch(`/api/v2/workspaces/${w.id}`, reader.token, wsBody({ 'auto-apply': true })), 403);
    assertError(await ctx.patch(`/api/v2/workspaces/${w.id}`, reader.token, wsBody({ 'execution-mode': 'local' })), 403);
    const outsider = await ctx.organization();
    assertError(await ctx.patch(`/api/v2/workspaces/${w.id}`, outsider.owner.token, wsBody({ 'auto-apply': true })), 404);
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token)).body.data.attributes['auto-apply'], false);
  });

  it('searches names with search[wildcard-name]', async () => {
    const org = await ctx.organization();
    for (const name of ['app-prod', 'db-prod', 'app-dev', 'App_stage']) await createWorkspace(ctx, org, undefined, { name });
    const names = async (pattern: string) =>
      (await ctx.get(`/api/v2/organizations/${org.name}/workspaces?search[wildcard-name]=${encodeURIComponent(pattern)}`, org.owner.token)).body.data
        .map((w: any) => w.attributes.name)
        .sort();
    assert.deepEqual(await names('*-prod'), ['app-prod', 'db-prod']);
    assert.deepEqual(await names('app*'), ['App_stage', 'app-dev', 'app-prod']);
    assert.deepEqual(await names('*p-d*'), ['app-dev']);
    assert.deepEqual(await names('app-dev'), ['app-dev']);
    assert.deepEqual(await names('app'), []);
    // `_` and `%` are themselves, not LIKE wildcards.
    assert.deepEqual(await names('app_*'), ['App_stage']);
    assert.deepEqual(await names('%'), []);
  });

  it('includes the organization when asked (include=organization), and refuses unknown includes (400)', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const shown = await ctx.get(`/api/v2/workspaces/${w.id}?include=organization`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.included.length, 1);
    assert.equal(shown.body.included[0].type, 'organizations');
    assert.equal(shown.body.included[0].id, org.name);
    assert.equal(shown.body.included[0].attributes['default-execution-mode'], 'remote');
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?include=organization`, org.owner.token);
    assert.equal(listed.body.included[0].id, org.name);
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token)).body.included, undefined);
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}?include=secrets`, org.owner.token), 400);
  });
});

suite('execution modes', (ctx) => {
  it("sets the organization's default mode and pool, with TFE's 422 rules", async () => {
    const org = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}`;
    const t = org.owner.token;
    const pool = await createPool(ctx, org);
    const onlyPool = await ctx.patch(url, t, orgBody({}, poolRel(pool.id)));
    assert.match(
      assertError(onlyPool, 422, '/data/relationships/default-agent-pool/data').detail!,
      /must not be specified unless using 'agent' execution mode/,
    );
    assert.match(
      assertError(await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'agent' })), 422, '/data/attributes/default-execution-mode').detail!,
      /must be specified/,
    );
    assertError(
      await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'local', 'default-agent-pool-id': pool.id })),
      422,
      '/data/attributes/default-agent-pool-id',
    );
    assertError(await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'elsewhere' })), 422, '/data/attributes/default-execution-mode');
    // A pool of another organization is no pool of this one.
    const other = await ctx.organization();
    const foreign = await createPool(ctx, other);
    const e = assertError(
      await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'agent' }, poolRel(foreign.id))),
      422,
      '/data/relationships/default-agent-pool/data',
    );
    assert.equal(e.detail, 'Agent pool not found');
    assertError(
      await ctx.post('/api/v2/organizations', t, orgBody({ name: unique('org'), email: 'a@b.test', 'default-execution-mode': 'agent' })),
      422,
      '/data/attributes/default-execution-mode',
    );

    const agent = await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'agent' }, poolRel(pool.id)));
    assertStatus(agent, 200);
    assert.equal(agent.body.data.attributes['default-execution-mode'], 'agent');
    assert.deepEqual(agent.body.data.relationships['default-agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    // Unrelated changes keep the mode and pool.
    const renamed = await ctx.patch(url, t, orgBody({ 'session-timeout': 60 }));
    assert.deepEqual(renamed.body.data.relationships['default-agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    // A pool in use cannot be deleted.
    assertError(await ctx.delete(`/api/v2/agent-pools/${pool.id}`, t), 409);
    // Leaving `agent` drops the pool.
    const remote = await ctx.patch(url, t, orgBody({ 'default-execution-mode': 'remote' }));
    assert.equal(remote.body.data.attributes['default-execution-mode'], 'remote');
    assert.equal(remote.body.data.relationships['default-agent-pool'].data, null);
    assert.equal((await ctx.get(url, t)).body.data.relationships['default-agent-pool'].data, null);
    assertStatus(await ctx.delete(`/api/v2/agent-pools/${pool.id}`, t), 204);

    const created = await ctx.post('/api/v2/organizations', t, orgBody({ name: unique('org'), email: 'a@b.test', 'default-execution-mode': 'local' }));
    assertStatus(created, 201);
    assert.equal(created.body.data.attributes['default-execution-mode'], 'local');
  });

  it('only an owner (update-organization) changes the default mode', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org);
    assertError(await ctx.patch(`/api/v2/organizations/${org.name}`, member.token, orgBody({ 'default-execution-mode': 'local' })), 403);
    const outsider = await ctx.organization();
    assertError(await ctx.patch(`/api/v2/organizations/${org.name}`, outsider.owner.token, orgBody({ 'default-execution-mode': 'local' })), 404);
    assert.equal((await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token)).body.data.attributes['default-execution-mode'], 'remote');
    const wrongType = await ctx.request('PATCH', `/api/v2/organizations/${org.name}`, {
      token: org.owner.token,
      body: orgBody({ 'default-execution-mode': 'local' }),
      contentType: 'application/json',
    });
    assertError(wrongType, 415);
  });

  it("a workspace without a mode of its own follows its organization's default, whenever it changes", async () => {
    const { org, pool } = await agentOrg(ctx);
    const w = (await createWs(ctx, org, {})).body.data;
    assert.equal(w.attributes['execution-mode'], 'agent');
    assert.deepEqual(w.attributes['setting-overwrites'], { 'execution-mode': false, 'agent-pool': false });
    assert.deepEqual(w.relationships['agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    // Projects have no mode of their own yet: they show the organization's, which their workspaces follow.
    const project = (await ctx.get(`/api/v2/projects/${org.defaultProjectId}`, org.owner.token)).body.data;
    assert.equal(project.attributes['default-execution-mode'], 'agent');
    assert.deepEqual(project.relationships['default-agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    assertStatus(await ctx.patch(`/api/v2/organizations/${org.name}`, org.owner.token, orgBody({ 'default-execution-mode': 'local' })), 200);
    const now = (await ctx.get(`/api/v2/workspaces/${w.id}`, org.owner.token)).body.data;
    assert.equal(now.attributes['execution-mode'], 'local');
    assert.equal(now.attributes.operations, false);
    assert.equal(now.relationships['agent-pool'].data, null);
  });

  it('a workspace chooses its own mode, and setting-overwrites false hands it back to the organization', async () => {
    const { org, pool } = await agentOrg(ctx);
    const t = org.owner.token;
    const w = (await createWs(ctx, org, { 'execution-mode': 'local', 'setting-overwrites': { 'execution-mode': true, 'agent-pool': true } })).body.data;
    assert.equal(w.attributes['execution-mode'], 'local');
    assert.deepEqual(w.attributes['setting-overwrites'], { 'execution-mode': true, 'agent-pool': true });
    const url = `/api/v2/workspaces/${w.id}`;
    const remote = await ctx.patch(url, t, wsBody({ 'execution-mode': 'remote' }));
    assert.equal(remote.body.data.attributes['execution-mode'], 'remote');
    const back = await ctx.patch(url, t, wsBody({ 'setting-overwrites': { 'execution-mode': false, 'agent-pool': false } }));
    assert.equal(back.body.data.attributes['execution-mode'], 'agent');
    assert.deepEqual(back.body.data.attributes['setting-overwrites'], { 'execution-mode': false, 'agent-pool': false });
    // setting-overwrites true alone pins what is in effect.
    const pinned = await ctx.patch(url, t, wsBody({ 'setting-overwrites': { 'execution-mode': true } }));
    assert.equal(pinned.body.data.attributes['execution-mode'], 'agent');
    assert.deepEqual(pinned.body.data.relationships['agent-pool'].data, { id: pool.id, type: 'agent-pools' });
    // The deprecated `operations`: false is local, true is remote.
    assert.equal((await ctx.patch(url, t, wsBody({ operations: false }))).body.data.attributes['execution-mode'], 'local');
    assert.equal((await ctx.patch(url, t, wsBody({ operations: true }))).body.data.attributes['execution-mode'], 'remote');
    // A pool of its own.
    const second = await createPool(ctx, org);
    const own = await ctx.patch(url, t, wsBody({ 'execution-mode': 'agent', 'agent-pool-id': second.id }));
    assertStatus(own, 200);
    assert.deepEqual(own.body.data.relationships['agent-pool'].data, { id: second.id, type: 'agent-pools' });
    assertError(await ctx.delete(`/api/v2/agent-pools/${second.id}`, t), 409);
  });

  it("refuses a workspace's contradictory or foreign execution settings with 422", async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const w = await createWorkspace(ctx, org);
    const url = `/api/v2/workspaces/${w.id}`;
    const t = org.owner.token;
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ 'agent-pool-id': pool.id }, '/data/attributes/agent-pool-id', /must not be specified unless using 'agent'/],
      [{ 'execution-mode': 'remote', 'agent-pool-id': pool.id }, '/data/attributes/agent-pool-id', /must not be specified/],
      [{ 'execution-mode': 'agent' }, '/data/attributes/execution-mode', /must be specified/],
      [{ 'execution-mode': 'remote', operations: true }, '/data/attributes/operations', /execution-mode/],
      [{ 'setting-overwrites': { 'execution-mode': true, 'agent-pool': false } }, '/data/attributes/setting-overwrites', /must be the same/],
      [{ 'execution-mode': 'local', 'setting-overwrites': { 'execution-mode': false } }, '/data/attributes/execution-mode', /setting-overwrites/],
    ];
    for (const [attributes, pointer, detail] of cases) {
      assert.match(assertError(await ctx.patch(url, t, wsBody(attributes)), 422, pointer).detail!, detail, JSON.stringify(attributes));
    }
    const foreign = await createPool(ctx, await ctx.organization());
    const e = assertError(await ctx.patch(url, t, wsBody({ 'execution-mode': 'agent', 'agent-pool-id': foreign.id })), 422, '/data/attributes/agent-pool-id');
    assert.equal(e.detail, 'Agent pool not found');
    assertError(await createWs(ctx, org, { 'execution-mode': 'agent', 'agent-pool-id': 'apool-0000000000000000' }), 422, '/data/attributes/agent-pool-id');
    const after = (await ctx.get(url, t)).body.data;
    assert.equal(after.attributes['execution-mode'], 'remote');
    assert.equal(after.attributes['setting-overwrites']['execution-mode'], false);
  });

  it('runs a workspace on a pool that is not organization-scoped only when the pool allows it (422 otherwise, nothing changed)', async () => {
    const { org, pool: orgDefault } = await agentOrg(ctx);
    const t = org.owner.token;
    const made = await ctx.post(`/api/v2/organizations/${org.name}/agent-pools`, t, {
      data: { type: 'agent-pools', attributes: { name: unique('pool'), 'organization-scoped': false } },
    });
    assertStatus(made, 201);
    const scoped = made.body.data.id as string;
    const refusal = 'Agent pool workspace does not have access to use this agent pool';
    const poolOf = async (id: string) => (await ctx.get(`/api/v2/workspaces/${id}`, t)).body.data.relationships['agent-pool'].data?.id ?? null;

    // A workspace being created is on no pool's list.
    const name = unique('ws');
    const created = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, t, wsBody({ name, 'execution-mode': 'agent', 'agent-pool-id': scoped }));
    assert.equal(assertError(created, 422, '/data/attributes/agent-pool-id').detail, refusal);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}/workspaces/${name}`, t), 404);

    const ws = (await createWs(ctx, org, { 'execution-mode': 'remote' })).body.data.id as string;
    const toScoped = wsBody({ 'execution-mode': 'agent', 'agent-pool-id': scoped });
    assert.equal(assertError(await ctx.patch(`/api/v2/workspaces/${ws}`, t, toScoped), 422, '/data/attributes/agent-pool-id').detail, refusal);
    assert.equal((await ctx.get(`/api/v2/workspaces/${ws}`, t)).body.data.attributes['execution-mode'], 'remote');

    // Allowed, it may; the other workspaces still may not.
    const allow = (ids: string[]) =>
      ctx.patch(`/api/v2/agent-pools/${scoped}`, t, {
        data: { type: 'agent-pools', relationships: { 'allowed-workspaces': { data: ids.map((id) => ({ type: 'workspaces', id })) } } },
      });
    assertStatus(await allow([ws]), 200);
    assertStatus(await ctx.patch(`/api/v2/workspaces/${ws}`, t, toScoped), 200);
    assert.equal(await poolOf(ws), scoped);
    const other = (await createWs(ctx, org, { 'execution-mode': 'remote' })).body.data.id as string;
    assertError(await ctx.patch(`/api/v2/workspaces/${other}`, t, toScoped), 422, '/data/attributes/agent-pool-id');

    // Taken on from the organization's default rather than named: refused where the body took it.
    const follower = (await createWs(ctx, org, {})).body.data.id as string;
    const orgUrl = `/api/v2/organizations/${org.name}`;
    assertStatus(await ctx.patch(orgUrl, t, orgBody({ 'default-execution-mode': 'agent' }, poolRel(scoped))), 200);
    const own = wsBody({ 'setting-overwrites': { 'execution-mode': true, 'agent-pool': true } });
    assert.equal(assertError(await ctx.patch(`/api/v2/workspaces/${follower}`, t, own), 422, '/data/attributes/setting-overwrites').detail, refusal);
    assertStatus(await ctx.patch(orgUrl, t, orgBody({ 'default-execution-mode': 'agent' }, poolRel(orgDefault.id))), 200);
    assertStatus(await ctx.patch(`/api/v2/workspaces/${follower}`, t, own), 200);
    assert.equal(await poolOf(follower), orgDefault.id);

    // No longer allowed: the workspace keeps running where it is and may change other settings,
    // but may not name the pool again.
    assertStatus(await allow([]), 200);
    assertStatus(await ctx.patch(`/api/v2/workspaces/${ws}`, t, wsBody({ description: 'still here' })), 200);
    assert.equal(await poolOf(ws), scoped);
    assertError(await ctx.patch(`/api/v2/workspaces/${ws}`, t, toScoped), 422, '/data/attributes/agent-pool-id');
    // An organization-scoped pool serves every workspace, new ones too.
    const fresh = await ctx.post(
      `/api/v2/organizations/${org.name}/workspaces`,
      t,
      wsBody({ name: unique('ws'), 'execution-mode': 'agent', 'agent-pool-id': orgDefault.id }),
    );
    assertStatus(fresh, 201);
    assert.equal(fresh.body.data.relationships['agent-pool'].data.id, orgDefault.id);
  });

  it(
    'checks the pool inside the write: a pool narrowed at the same moment refuses the workspace once it commits',
    { skip: ctx.dialect === 'sqlite' && 'SQLite runs one writer at a time: the check and the write are one transaction' },
    async () => {
      const org = await ctx.organization();
      const t = org.owner.token;
      const pool = await createPool(ctx, org);
      const ws = (await createWs(ctx, org, { 'execution-mode': 'remote' })).body.data.id as string;
      const blocked = async () => {
        for (let i = 0; i < 100; i++) {
          const r = await sql<{
            n: number;
          }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.database.db);
          if (r.rows[0]!.n > 0) return true;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return false;
      };
      let pending!: ReturnType<typeof ctx.patch>;
      // What a pool update does (agent-pools/service.ts): lock the row, then narrow the pool. The
      // workspace's move onto it, sent meanwhile, must wait for that and then be refused.
      await ctx.database.transaction(async (trx) => {
        await sql`select id from agent_pools where id = ${pool.id} for update`.execute(trx);
        await sql`update agent_pools set organization_scoped = false where id = ${pool.id}`.execute(trx);
        pending = ctx.patch(`/api/v2/workspaces/${ws}`, t, wsBody({ 'execution-mode': 'agent', 'agent-pool-id': pool.id }));
        assert.ok(await blocked(), 'the workspace update waits for the pool update');
      });
      const res = await pending;
      assert.equal(assertError(res, 422, '/data/attributes/agent-pool-id').detail, 'Agent pool workspace does not have access to use this agent pool');
      const after = (await ctx.get(`/api/v2/workspaces/${ws}`, t)).body.data;
      assert.equal(after.attributes['execution-mode'], 'remote');
      assert.equal(after.relationships['agent-pool'].data?.id ?? null, null);
    },
  );
});

// Organization settings (TFE's attributes beyond name and e-mail), the list's search and order,
// the name length that keeps every organization addressable, and deleting an organization
// whatever it holds.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createAgentToken, createPool, registerAgent } from './helpers/agents.ts';
import { createParameter, createPolicySet, workspaceRefs } from './helpers/policy-sets.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';

const orgBody = (name: string, extra: Record<string, unknown> = {}) => ({
  data: { type: 'organizations', attributes: { name, email: `${name}@example.test`, ...extra } },
});
const patchBody = (attributes?: Record<string, unknown>) => ({ data: { type: 'organizations', ...(attributes ? { attributes } : {}) } });

const DEFAULTS = {
  'session-timeout': 20160,
  'session-remember': 20160,
  'collaborator-auth-policy': 'password',
  'cost-estimation-enabled': false,
  'send-passing-statuses-for-untriggered-speculative-plans': false,
  'assessments-enforced': false,
  'allow-force-delete-workspaces': false,
  'aggregated-commit-status-enabled': false,
  'speculative-plan-management-enabled': true,
  'owners-team-saml-role-id': null,
};

const CHANGED = {
  'session-timeout': 3600,
  'session-remember': 60,
  'collaborator-auth-policy': 'two_factor_mandatory',
  'cost-estimation-enabled': true,
  'send-passing-statuses-for-untriggered-speculative-plans': true,
  'assessments-enforced': true,
  'allow-force-delete-workspaces': true,
  'aggregated-commit-status-enabled': true,
  'speculative-plan-management-enabled': false,
  'owners-team-saml-role-id': 'saml-owners',
};

const settingsOf = (resource: any) => Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, resource.attributes[k]]));

async function create(ctx: TestContext, token: string, extra: Record<string, unknown> = {}) {
  const name = unique('set');
  const res = await ctx.post('/api/v2/organizations', token, orgBody(name, extra));
  assertStatus(res, 201);
  return res.body.data;
}

suite('organization settings', (ctx) => {
  it("starts with TFE's defaults and serves the same document from create, show, list and update", async () => {
    const user = await ctx.user();
    const created = await create(ctx, user.token);
    assert.deepEqual(settingsOf(created), DEFAULTS);
    assert.equal(created.attributes['two-factor-conformant'], true);
    assert.equal(created.attributes['saml-enabled'], false);
    const shown = await ctx.get(`/api/v2/organizations/${created.id}`, user.token);
    assert.deepEqual(shown.body.data, created);
    const listed = await ctx.get('/api/v2/organizations', user.token);
    assert.deepEqual(listed.body.data, [created]);
    const updated = await ctx.patch(`/api/v2/organizations/${created.id}`, user.token, patchBody());
    assertStatus(updated, 200);
    assert.deepEqual(updated.body.data, created);
  });

  it('stores the settings sent on create, and changes only those sent on update', async () => {
    const user = await ctx.user();
    const created = await create(ctx, user.token, CHANGED);
    assert.deepEqual(settingsOf(created), CHANGED);
    assert.equal(created.attributes['two-factor-conformant'], false, 'nobody can have two factors on Hangar');

    const org = await create(ctx, user.token);
    const url = `/api/v2/organizations/${org.id}`;
    const one = await ctx.patch(url, user.token, patchBody({ 'session-timeout': 3600, 'allow-force-delete-workspaces': true }));
    assertStatus(one, 200);
    assert.deepEqual(settingsOf(one.body.data), { ...DEFAULTS, 'session-timeout': 3600, 'allow-force-delete-workspaces': true });
    const two = await ctx.patch(url, user.token, patchBody({ 'allow-force-delete-workspaces': false, 'owners-team-saml-role-id': 'r1' }));
    assert.deepEqual(settingsOf(two.body.data), { ...DEFAULTS, 'session-timeout': 3600, 'owners-team-saml-role-id': 'r1' });
    // null clears the one setting that may be empty.
    const three = await ctx.patch(url, user.token, patchBody({ 'owners-team-saml-role-id': null }));
    assert.deepEqual(settingsOf(three.body.data), { ...DEFAULTS, 'session-timeout': 3600 });
    const shown = await ctx.get(url, user.token);
    assert.deepEqual(shown.body.data, three.body.data);

    // A rename with settings keeps everything attached (go-tfe's "with valid options").
    const renamed = unique('renamed');
    const moved = await ctx.patch(url, user.token, patchBody({ name: renamed, email: `${renamed}@tfe.local`, 'session-remember': 3600 }));
    assertStatus(moved, 200);
    assert.equal(moved.body.data.attributes['session-remember'], 3600);
    assert.equal(moved.body.data.attributes['session-timeout'], 3600);
    assert.deepEqual((await ctx.get(`/api/v2/organizations/${renamed}`, user.token)).body.data, moved.body.data);
  });

  it('answers values of the wrong type or out of range with 422 at each attribute, and changes nothing', async () => {
    const user = await ctx.user();
    const org = await create(ctx, user.token);
    const url = `/api/v2/organizations/${org.id}`;
    const bad = {
      'session-timeout': 0,
      'session-remember': 20161,
      'collaborator-auth-policy': 'sms',
      'cost-estimation-enabled': 'yes',
      'send-passing-statuses-for-untriggered-speculative-plans': 1,
      'assessments-enforced': null,
      'allow-force-delete-workspaces': 'true',
      'aggregated-commit-status-enabled': [],
      'speculative-plan-management-enabled': {},
      'owners-team-saml-role-id': 5,
    };
    const res = await ctx.patch(url, user.token, patchBody(bad));
    assertError(res, 422);
    const pointers = res.body.errors.map((e: any) => e.source.pointer).sort();
    assert.deepEqual(
      pointers,
      Object.keys(bad)
        .map((k) => `/data/attributes/${k}`)
        .sort(),
    );
    for (const [attribute, value] of [
      ['session-timeout', 1.5],
      ['session-timeout', '60'],
      ['session-remember', -1],
    ] as const) {
      assertError(await ctx.patch(url, user.token, patchBody({ [attribute]: value })), 422, `/data/attributes/${attribute}`);
    }
    const created = await ctx.post('/api/v2/organizations', user.token, orgBody(unique('bad'), { 'session-timeout': 20161 }));
    assertError(created, 422, '/data/attributes/session-timeout');
    assert.deepEqual((await ctx.get(url, user.token)).body.data, org);
    // The limits themselves are fine.
    const edges = await ctx.patch(url, user.token, patchBody({ 'session-timeout': 1, 'session-remember': 20160 }));
    assertStatus(edges, 200);
  });

  it("checks the e-mail address after the caller's right to change the organization", async () => {
    const user = await ctx.user();
    const outsider = await ctx.user();
    const org = await create(ctx, user.token);
    const url = `/api/v2/organizations/${org.id}`;
    assertError(await ctx.patch(url, user.token, patchBody({ email: 'not an address' })), 422, '/data/attributes/email');
    assertError(await ctx.post('/api/v2/organizations', user.token, orgBody(unique('x'), { email: 'nope' })), 422, '/data/attributes/email');
    assertError(await ctx.patch(url, outsider.token, patchBody({ email: 'not an address' })), 404);
    const ok = await ctx.patch(url, user.token, patchBody({ email: 'ops@localhost' }));
    assertStatus(ok, 200);
    assert.equal(ok.body.data.attributes.email, 'ops@localhost');
  });

  it('lets only owners change settings: members 403, outsiders 404, no token 401, wrong media type 415', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org, { 'manage-projects': true, 'manage-workspaces': true });
    const outsider = await ctx.organization();
    const url = `/api/v2/organizations/${org.name}`;
    const body = patchBody({ 'allow-force-delete-workspaces': true });
    assertError(await ctx.patch(url, member.token, body), 403);
    assertError(await ctx.patch(url, outsider.owner.token, body), 404);
    assertError(await ctx.patch(url, null, body), 401);
    assertError(await ctx.request('PATCH', url, { token: org.owner.token, body, contentType: 'application/json' }), 415);
    assert.equal((await ctx.get(url, member.token)).body.data.attributes['allow-force-delete-workspaces'], false);
  });
});

suite('organization list: search and order', (ctx) => {
  it('searches q in the name or e-mail address, q[name] and q[email] in one each, in any case', async () => {
    const admin = await ctx.user({ siteAdmin: true });
    const word = unique('zq').toLowerCase();
    const a = await ctx.post('/api/v2/organizations', admin.token, {
      data: { type: 'organizations', attributes: { name: `${word}-alpha`, email: 'alpha@example.test' } },
    });
    const b = await ctx.post('/api/v2/organizations', admin.token, {
      data: { type: 'organizations', attributes: { name: unique('beta'), email: `${word}@example.test` } },
    });
    const names = async (query: string) => {
      const res = await ctx.get(`/api/v2/organizations?${query}`, admin.token);
      assertStatus(res, 200);
      assert.equal(res.body.meta.pagination['total-count'], res.body.data.length);
      return res.body.data.map((o: any) => o.id).sort();
    };
    assert.deepEqual(await names(`q=${word.toUpperCase()}`), [a.body.data.id, b.body.data.id].sort());
    assert.deepEqual(await names(`q%5Bname%5D=${word}`), [a.body.data.id]);
    assert.deepEqual(await names(`q%5Bemail%5D=${word}`), [b.body.data.id]);
    assert.deepEqual(await names(`q=${word}&q%5Bemail%5D=alpha`), [a.body.data.id]);
    assert.deepEqual(await names(`q=${word}-nomatch`), []);
    // % and _ are themselves, not wildcards.
    assert.deepEqual(await names('q=%25'), []);
    // An empty q is no filter.
    assert.ok((await names('q=')).length >= 2);
  });

  it('lists newest first, so a new organization is on the first page however many there are', async () => {
    const admin = await ctx.user({ siteAdmin: true });
    for (let i = 0; i < 3; i++) await create(ctx, admin.token);
    const newest = await create(ctx, admin.token);
    const list = await ctx.get('/api/v2/organizations?page%5Bsize%5D=2', admin.token);
    assertStatus(list, 200);
    assert.equal(list.body.data[0].id, newest.id);
    const all = await ctx.get('/api/v2/organizations?page%5Bsize%5D=100', admin.token);
    const created = all.body.data.map((o: any) => o.attributes['created-at']);
    assert.deepEqual(created, [...created].sort().reverse());
    assert.ok(list.body.meta.pagination['total-count'] >= 4);
    assert.equal(list.body.data.length, 2);
  });

  it('still shows each caller only its own organizations, searched or not', async () => {
    const a = await ctx.organization();
    const b = await ctx.organization();
    const res = await ctx.get(`/api/v2/organizations?q=${b.name}`, a.owner.token);
    assert.deepEqual(res.body.data, []);
    assert.equal(res.body.meta.pagination['total-count'], 0);
    assertError(await ctx.get('/api/v2/organizations?page%5Bsize%5D=0', a.owner.token), 400);
  });
});

suite('organization names and URLs', (ctx) => {
  it('accepts names of up to 90 characters, each usable in every URL, and refuses longer ones (422)', async () => {
    const user = await ctx.user();
    const longest = `${unique('n')}-`.padEnd(90, 'x');
    const created = await ctx.post('/api/v2/organizations', user.token, orgBody(longest));
    assertStatus(created, 201);
    for (const path of ['', '/entitlement-set', '/projects', '/teams', '/workspaces', '/policy-sets', '/agent-pools']) {
      assertStatus(await ctx.get(`/api/v2/organizations/${longest}${path}`, user.token), 200);
    }
    const tooLong = `${longest}y`;
    const e = assertError(await ctx.post('/api/v2/organizations', user.token, orgBody(tooLong)), 422, '/data/attributes/name');
    assert.equal(e.detail, 'Name is too long (maximum is 90 characters)');
    assertError(await ctx.patch(`/api/v2/organizations/${longest}`, user.token, patchBody({ name: tooLong })), 422, '/data/attributes/name');
    assertStatus(await ctx.delete(`/api/v2/organizations/${longest}`, user.token), 204);
  });

  it('answers a path parameter longer than any name with 414, as a JSON:API error', async () => {
    const user = await ctx.user();
    const res = await ctx.get(`/api/v2/organizations/${'a'.repeat(91)}`, user.token);
    const e = assertError(res, 414);
    assert.equal(e.title, 'uri too long');
    assertStatus(await ctx.get(`/api/v2/organizations/${'a'.repeat(90)}`, user.token), 404);
  });
});

suite('deleting an organization', (ctx) => {
  /** Every column of every table that holds one of `ids`, as `table.column`. */
  async function rowsNaming(ids: readonly string[]): Promise<string[]> {
    const own = ctx.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.database.db)).rows[0]!.s : undefined;
    const tables = (await ctx.database.db.introspection.getTables()).filter((t) => (own === undefined || t.schema === own) && !t.name.startsWith('kysely_'));
    const found: string[] = [];
    for (const table of tables) {
      for (const column of table.columns.filter((c) => /char|text/i.test(c.dataType))) {
        const hit = await (ctx.database.db as any).selectFrom(table.name).select(column.name).where(column.name, 'in', ids).executeTakeFirst();
        if (hit) found.push(`${table.name}.${column.name}`);
      }
    }
    return found;
  }

  it('deletes it whatever it holds, leaving no row that names it, and nobody else loses anything', async () => {
    const org = await ctx.organization();
    const owner = org.owner.token;
    const member = await ctx.member(org, { 'manage-workspaces': true });
    const project = await createProject(ctx, org);
    const workspace = await createWorkspace(ctx, org, project.id);
    await grant(ctx, org, member.teamId, project.id, 'admin');
    const policySet = await createPolicySet(ctx, org);
    await createParameter(ctx, owner, policySet.id, { key: 'k', value: 'v' });
    await createParameter(ctx, owner, policySet.id, { key: 's', value: 'secret', sensitive: true });
    assertStatus(await ctx.post(`/api/v2/policy-sets/${policySet.id}/relationships/workspaces`, owner, workspaceRefs(workspace.id)), 204);
    const pool = await createPool(ctx, org);
    assertStatus(
      await ctx.patch(`/api/v2/agent-pools/${pool.id}`, owner, {
        data: {
          type: 'agent-pools',
          attributes: { 'organization-scoped': false },
          relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces', id: workspace.id }] } },
        },
      }),
      200,
    );
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, owner, { data: { type: '' } });
    assertStatus(orgToken, 201);
    const orgSecret = orgToken.body.data.attributes.token;
    assertStatus(await ctx.post(`/api/v2/organizations/${org.name}/authentication-token?token=audit-trails`, owner, { data: { type: '' } }), 201);
    // Things the organization token made are recorded as made by its service account.
    const agentToken = await createAgentToken(ctx, pool.id, orgSecret);
    await registerAgent(ctx, agentToken.secret);
    await createProject(ctx, org, {}, orgSecret);
    const details = await ctx.get(`/api/v2/organizations/${org.name}`, owner);
    const serviceUser = (await ctx.get('/api/v2/account/details', orgSecret)).body.data.id;
    const ids = [details.body.data.attributes['external-id'], serviceUser, org.name];

    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, owner), 204);
    assert.deepEqual(await rowsNaming(ids), []);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, owner), 404);
    assertError(await ctx.get('/api/v2/account/details', orgSecret), 401);
    const agentCall = await ctx.request('POST', '/api/agent/status', { token: agentToken.secret, body: { status: 'idle' }, contentType: 'application/json' });
    assert.equal(agentCall.status, 401);
    // The people stay, with their tokens.
    assertStatus(await ctx.get('/api/v2/account/details', owner), 200);
    assertStatus(await ctx.get('/api/v2/account/details', member.token), 200);
  });
});

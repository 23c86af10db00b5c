// Notification configurations: /workspaces/:id/notification-configurations and
// /notification-configurations/:id (create, list, show, update, delete, verify), their rules and
// permissions, the write-only token, and delivery: the statuses of a real run (the server's own
// runner, real terraform) reach a local receiver through the outbox, signed with the token.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Keyring, keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, parseEncryptionKeys, readOrCreateKeyFile } from '../src/crypto/keys.ts';
import { createServices } from '../src/services.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, memberWithAccess } from './helpers/projects.ts';
import { startSuiteRunner, uploadConfiguration } from './helpers/runner.ts';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const TOKEN = 'nc-token-very-secret-4f9a1c';

const path = (workspaceId: string) => `/api/v2/workspaces/${workspaceId}/notification-configurations`;
const one = (id: string) => `/api/v2/notification-configurations/${id}`;
const body = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type: 'notification-configurations', attributes, ...(relationships ? { relationships } : {}) },
});

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver: records every request; answers `status` (changeable) with a body. */
async function receiver(): Promise<{ url: string; received: Received[]; status: number; server: Server }> {
  const state = { url: '', received: [] as Received[], status: 200, server: null as unknown as Server };
  state.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(state.status, { 'content-type': 'text/plain', 'x-receiver': 'test' });
      res.end(state.status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/hook`;
  return state;
}

async function create(ctx: TestContext, token: string, workspaceId: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) {
  const res = await ctx.post(path(workspaceId), token, body(attributes, relationships));
  assertStatus(res, 201);
  return res.body.data;
}

const sign = (token: string, text: string) => createHmac('sha512', token).update(text).digest('hex');

suite('notification configurations', (ctx) => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  before(async () => {
    hook = await receiver();
  });
  after(() => new Promise<void>((resolve) => hook.server.close(() => resolve())));

  it('creates, lists (unpaginated unless asked), shows, updates and deletes; the token is never shown', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const first = await create(ctx, t, w.id, {
      name: 'hooks',
      'destination-type': 'generic',
      enabled: false,
      url: hook.url,
      token: TOKEN,
      triggers: ['run:created', 'run:errored'],
    });
    assert.match(first.id, /^nc-[0-9A-Za-z]{16}$/);
    assert.equal(first.type, 'notification-configurations');
    assert.equal(first.attributes.name, 'hooks');
    assert.equal(first.attributes['destination-type'], 'generic');
    assert.equal(first.attributes.enabled, false);
    assert.equal(first.attributes.url, hook.url);
    assert.deepEqual(first.attributes.triggers, ['run:created', 'run:errored']);
    assert.deepEqual(first.attributes['delivery-responses'], []);
    assert.equal('token' in first.attributes, false);
    assert.equal(first.relationships.subscribable.data.id, w.id);
    assert.equal(first.relationships.subscribable.data.type, 'workspaces');
    assert.deepEqual(first.relationships.users.data, []);
    assert.equal(first.links.self, `/api/v2/notification-configurations/${first.id}`);
    const second = await create(ctx, t, w.id, { name: 'slack', 'destination-type': 'slack', enabled: true, url: hook.url });

    // go-tfe: without page parameters there is no pagination (it reads current page 0, total 0).
    const all = await ctx.get(path(w.id), t);
    assertStatus(all, 200);
    assert.deepEqual(all.body.data, [first, second]);
    assert.equal(all.body.meta, undefined);
    const far = await ctx.get(`${path(w.id)}?page[number]=999&page[size]=100`, t);
    assert.deepEqual(far.body.data, []);
    assert.equal(far.body.meta.pagination['current-page'], 999);
    assert.equal(far.body.meta.pagination['total-count'], 2);

    assert.deepEqual((await ctx.get(one(first.id), t)).body.data, first);
    const updated = await ctx.patch(one(first.id), t, body({ name: 'renamed', enabled: true, triggers: ['run:completed'], token: 'another-secret' }));
    assertStatus(updated, 200);
    assert.equal(updated.body.data.attributes.name, 'renamed');
    assert.equal(updated.body.data.attributes.enabled, true);
    assert.deepEqual(updated.body.data.attributes.triggers, ['run:completed']);
    assert.equal(updated.body.data.attributes.url, hook.url);
    assert.equal('token' in updated.body.data.attributes, false);
    // An empty update changes nothing but the time.
    assertStatus(await ctx.patch(one(first.id), t, { data: { type: 'notification-configurations' } }), 200);

    assertStatus(await ctx.delete(one(first.id), t), 204);
    assertError(await ctx.get(one(first.id), t), 404);
    assertError(await ctx.delete(one(first.id), t), 404);
    assertError(await ctx.get('/api/v2/notification-configurations/nonexisting', t), 404);
    assert.deepEqual(
      (await ctx.get(path(w.id), t)).body.data.map((c: any) => c.id),
      [second.id],
    );

    // Nothing in the answers, the database's clear columns, or the log holds the token.
    const rows = await ctx.database.db.selectFrom('notification_configurations').selectAll().execute();
    assert.ok(!JSON.stringify(rows).includes(TOKEN));
    assert.ok(!ctx.logs.includes(TOKEN), 'the token reached the log');
  });

  it('email configurations: users of the organization (replaced on every update, as TFE), addresses; nothing is sent', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const a = await ctx.member(org);
    const b = await ctx.member(org);
    const stranger = await ctx.user();
    const users = (...ids: string[]) => ({ users: { data: ids.map((id) => ({ type: 'users', id })) } });
    const mail = await create(ctx, t, w.id, { name: 'mail', 'destination-type': 'email', enabled: true, 'email-addresses': ['ops@example.test'] }, users(a.id));
    assert.deepEqual(mail.relationships.users.data, [{ id: a.id, type: 'users' }]);
    assert.equal(mail.attributes.url, null);
    assert.deepEqual(mail.attributes['email-addresses'], ['ops@example.test']);
    assertError(
      await ctx.post(path(w.id), t, body({ name: 'x', 'destination-type': 'email' }, users(stranger.id))),
      422,
      '/data/relationships/users/data/0/id',
    );
    assertError(
      await ctx.post(path(w.id), t, body({ name: 'x', 'destination-type': 'email', 'email-addresses': ['nope'] })),
      422,
      '/data/attributes/email-addresses/0',
    );

    const both = await ctx.patch(one(mail.id), t, body({ enabled: true }, users(a.id, b.id)));
    assertStatus(both, 200);
    assert.deepEqual(both.body.data.relationships.users.data.map((u: any) => u.id).sort(), [a.id, b.id].sort());
    const none = await ctx.patch(one(mail.id), t, body({ name: 'newName' }));
    assert.deepEqual(none.body.data.relationships.users.data, []);

    const verified = await ctx.post(`${one(mail.id)}/actions/verify`, t, {});
    assertStatus(verified, 200);
    const [response] = verified.body.data.attributes['delivery-responses'];
    assert.equal(response.successful, 'false');
    assert.match(response.body, /no mail server/);
  });

  it('verify sends a signed generic payload now and records the response', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const c = await create(ctx, t, w.id, { name: 'verify-me', 'destination-type': 'generic', enabled: false, url: hook.url, token: TOKEN });
    hook.received.length = 0;
    const res = await ctx.post(`${one(c.id)}/actions/verify`, t, {});
    assertStatus(res, 200);
    assert.equal(hook.received.length, 1);
    const got = hook.received[0]!;
    assert.equal(got.path, '/hook');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-tfe-notification-signature'], sign(TOKEN, got.body));
    const payload = JSON.parse(got.body);
    assert.equal(payload.payload_version, 1);
    assert.equal(payload.notification_configuration_id, c.id);
    assert.equal(payload.workspace_name, w.attributes.name);
    assert.equal(payload.organization_name, org.name);
    assert.equal(payload.notifications[0].trigger, 'verification');
    const [response] = res.body.data.attributes['delivery-responses'];
    assert.equal(response.successful, 'true');
    assert.equal(response.code, '200');
    assert.equal(response.body, 'ok');
    assert.equal(response.url, hook.url);
    assert.deepEqual(response.headers['x-receiver'], ['test']);
    assert.match(response['sent-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(!res.raw.includes(TOKEN) && !res.raw.includes(got.headers['x-tfe-notification-signature'] as string));

    // A receiver that refuses: recorded as unsuccessful, with its status. Without a token, no signature.
    const plain = await create(ctx, t, w.id, { name: 'plain', 'destination-type': 'generic', enabled: false, url: hook.url });
    hook.status = 500;
    try {
      const refused = await ctx.post(`${one(plain.id)}/actions/verify`, t, {});
      assert.equal(refused.body.data.attributes['delivery-responses'][0].successful, 'false');
      assert.equal(refused.body.data.attributes['delivery-responses'][0].code, '500');
      assert.equal(hook.received.at(-1)!.headers['x-tfe-notification-signature'], undefined);
    } finally {
      hook.status = 200;
    }
    // Nobody listening: unsuccessful, no code, and no detail of the request.
    const closed = await create(ctx, t, w.id, { name: 'closed', 'destination-type': 'generic', enabled: false, url: 'http://127.0.0.1:9/x' });
    const failed = (await ctx.post(`${one(closed.id)}/actions/verify`, t, {})).body.data.attributes['delivery-responses'][0];
    assert.equal(failed.successful, 'false');
    assert.equal(failed.code, '');
    assert.match(failed.body, /^The request failed/);
  });

  it('answers 422 with a pointer for every bad body', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const base = { name: 'n', 'destination-type': 'generic', enabled: false, url: hook.url, token: TOKEN };
    const bad = async (attributes: Record<string, unknown>, pointer: string) => assertError(await ctx.post(path(w.id), t, body(attributes)), 422, pointer);
    await bad({ ...base, name: undefined }, '/data/attributes/name');
    await bad({ ...base, name: ' ' }, '/data/attributes/name');
    await bad({ ...base, url: undefined }, '/data/attributes/url');
    await bad({ ...base, 'destination-type': 'slack', url: undefined }, '/data/attributes/url');
    await bad({ ...base, 'destination-type': 'microsoft-teams', url: null }, '/data/attributes/url');
    await bad({ ...base, url: 'ftp://example.test' }, '/data/attributes/url');
    await bad({ ...base, 'destination-type': 'pigeon' }, '/data/attributes/destination-type');
    await bad({ ...base, 'destination-type': undefined }, '/data/attributes/destination-type');
    await bad({ ...base, triggers: ['run:created', 'the beacons of gondor are lit'] }, '/data/attributes/triggers/1');
    await bad({ ...base, enabled: 'yes' }, '/data/attributes/enabled');
    await bad({ ...base, triggers: 'run:created' }, '/data/attributes/triggers');
    assertError(await ctx.post(path(w.id), t, { data: { type: 'workspaces', attributes: base } }), 422, '/data/type');
    const c = await create(ctx, t, w.id, base);
    assertError(await ctx.patch(one(c.id), t, body({ triggers: ['fly you fools!'] })), 422, '/data/attributes/triggers/0');
    assertError(await ctx.patch(one(c.id), t, body({ url: null })), 422, '/data/attributes/url');
    assertError(await ctx.patch(one(c.id), t, body({ name: '' })), 422, '/data/attributes/name');
    // Every trigger go-tfe knows is accepted.
    const every = await create(ctx, t, w.id, {
      ...base,
      triggers: [
        'run:created',
        'run:planning',
        'run:needs_attention',
        'run:applying',
        'run:completed',
        'run:errored',
        'assessment:drifted',
        'assessment:failed',
        'assessment:check_failure',
        'workspace:auto_destroy_reminder',
        'workspace:auto_destroy_run_results',
        'change_request:created',
      ],
    });
    assert.equal(every.attributes.triggers.length, 12);
    // 415 for another content type.
    const wrong = await ctx.request('POST', path(w.id), { token: t, rawBody: JSON.stringify(body(base)), contentType: 'text/plain' });
    assertError(wrong, 415);
    // At most 20 per workspace.
    for (let i = 0; i < 16; i++) await create(ctx, t, w.id, base);
    // Five creates at once for the last two places: two are made, however they interleave.
    const racing = await Promise.all(Array.from({ length: 5 }, () => ctx.post(path(w.id), t, body(base))));
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 201, 422, 422, 422]);
    assertError(await ctx.post(path(w.id), t, body(base)), 422, '/data');
    assert.equal((await ctx.get(path(w.id), t)).body.data.length, 20);
    // Refused bodies carried the token: it is in no log line.
    assert.ok(!ctx.logs.includes(TOKEN), 'the token reached the log');
  });

  it('answers 401 without a token, 404 to another organization, 403 to readers who may not manage; the token never leaks', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const p = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, p.id);
    const c = await create(ctx, t, w.id, { name: 'n', 'destination-type': 'generic', enabled: false, url: hook.url, token: TOKEN });
    const attrs = { name: 'x', 'destination-type': 'generic', url: hook.url };
    for (const [method, url] of [
      ['GET', path(w.id)],
      ['POST', path(w.id)],
      ['GET', one(c.id)],
      ['PATCH', one(c.id)],
      ['DELETE', one(c.id)],
      ['POST', `${one(c.id)}/actions/verify`],
    ] as const) {
      assertError(await ctx.request(method, url, { body: method === 'GET' || method === 'DELETE' ? undefined : body(attrs) }), 401);
    }
    const other = await ctx.organization();
    for (const token of [other.owner.token]) {
      assertError(await ctx.get(path(w.id), token), 404);
      assertError(await ctx.post(path(w.id), token, body(attrs)), 404);
      assertError(await ctx.get(one(c.id), token), 404);
      assertError(await ctx.patch(one(c.id), token, body({ name: 'stolen' })), 404);
      assertError(await ctx.delete(one(c.id), token), 404);
      assertError(await ctx.post(`${one(c.id)}/actions/verify`, token, {}), 404);
    }
    // A member who may read the workspace sees its configurations but manages nothing.
    const reader = await memberWithAccess(ctx, org, [[p.id, 'write']]);
    assertStatus(await ctx.get(path(w.id), reader.token), 200);
    assertStatus(await ctx.get(one(c.id), reader.token), 200);
    assertError(await ctx.post(path(w.id), reader.token, body(attrs)), 403);
    assertError(await ctx.patch(one(c.id), reader.token, body({ name: 'x' })), 403);
    assertError(await ctx.delete(one(c.id), reader.token), 403);
    assertError(await ctx.post(`${one(c.id)}/actions/verify`, reader.token, {}), 403);
    // A member of another project's team does not see it at all.
    const outsider = await memberWithAccess(ctx, org, []);
    assertError(await ctx.get(one(c.id), outsider.token), 404);
    // A project admin manages it.
    const admin = await memberWithAccess(ctx, org, [[p.id, 'admin']]);
    assertStatus(await ctx.patch(one(c.id), admin.token, body({ name: 'by-admin' })), 200);
    assert.ok(!ctx.logs.includes(TOKEN), 'the token reached the log');
  });

  it(
    'a real run notifies each subscribed configuration of its statuses, signed, through the outbox',
    { skip: !hasTerraform && 'terraform is not installed' },
    async () => {
      startSuiteRunner(ctx, { concurrency: 1 });
      const deliverer = ctx.services.notificationConfigurations.startDeliverer({ baseUrl: 'https://hangar.example.test', pollMs: 100 });
      try {
        const org = await ctx.organization();
        const t = org.owner.token;
        const w = await createWorkspace(ctx, org);
        await uploadConfiguration(ctx, t, w.id, { 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' });
        const all = ['run:created', 'run:planning', 'run:needs_attention', 'run:applying', 'run:completed', 'run:errored'];
        const c = await create(ctx, t, w.id, { name: 'all', 'destination-type': 'generic', enabled: true, url: hook.url, token: TOKEN, triggers: all });
        // Disabled, or not subscribed to these: nothing.
        await create(ctx, t, w.id, { name: 'off', 'destination-type': 'generic', enabled: false, url: `${hook.url}/off`, triggers: all });
        await create(ctx, t, w.id, { name: 'drift', 'destination-type': 'generic', enabled: true, url: `${hook.url}/drift`, triggers: ['assessment:drifted'] });
        hook.received.length = 0;

        const run = await ctx.post('/api/v2/runs', t, {
          data: {
            type: 'runs',
            attributes: { 'auto-apply': true, message: 'notify me' },
            relationships: { workspace: { data: { type: 'workspaces', id: w.id } } },
          },
        });
        assertStatus(run, 201);
        const runId = run.body.data.id;
        const until = Date.now() + 90_000;
        const triggers = () => hook.received.map((r) => JSON.parse(r.body).notifications[0].trigger);
        while (!triggers().includes('run:completed')) {
          assert.ok(Date.now() < until, `no run:completed; got ${triggers().join(', ')}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        // An auto-applied run never waits for attention.
        assert.deepEqual([...triggers()].sort(), ['run:applying', 'run:completed', 'run:created', 'run:planning']);
        for (const r of hook.received) {
          assert.equal(r.path, '/hook');
          assert.equal(r.headers['x-tfe-notification-signature'], sign(TOKEN, r.body));
          const payload = JSON.parse(r.body);
          assert.equal(payload.notification_configuration_id, c.id);
          assert.equal(payload.run_id, runId);
          assert.equal(payload.run_message, 'notify me');
          assert.equal(payload.run_created_by, org.owner.username);
          assert.equal(payload.workspace_id, w.id);
          assert.equal(payload.organization_name, org.name);
          assert.equal(payload.run_url, `https://hangar.example.test/app/${org.name}/workspaces/${w.attributes.name}/runs/${runId}`);
        }
        const completed = JSON.parse(hook.received.find((r) => JSON.parse(r.body).notifications[0].trigger === 'run:completed')!.body);
        assert.equal(completed.notifications[0].run_status, 'applied');
        assert.equal(completed.notifications[0].message, 'Run Completed');
        // The receiver answered the last one a moment before its outcome is recorded.
        while ((await ctx.services.notificationConfigurations.pending()) > 0) {
          assert.ok(Date.now() < until, 'notifications still waiting in the outbox');
          await new Promise((r) => setTimeout(r, 50));
        }
        const shown = await ctx.get(one(c.id), t);
        assert.equal(shown.body.data.attributes['delivery-responses'].length, 4);
        assert.ok(shown.body.data.attributes['delivery-responses'].every((r: any) => r.successful === 'true'));
        assert.equal(await ctx.services.notificationConfigurations.pending(), 0);
      } finally {
        await deliverer.stop();
      }
    },
  );

  it('retries a failing destination with backoff, then records the failure; one claim per row across deliverers', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    await uploadConfiguration(ctx, t, w.id, { 'main.tf': 'resource "terraform_data" "a" {}\n' });
    const c = await create(ctx, t, w.id, { name: 'flaky', 'destination-type': 'generic', enabled: true, url: hook.url, triggers: ['run:created'] });
    hook.received.length = 0;
    hook.status = 503;
    const svc = ctx.services.notificationConfigurations;
    try {
      const run = await ctx.post('/api/v2/runs', t, {
        data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: w.id } } } },
      });
      assertStatus(run, 201);
      assert.equal(await svc.pending(), 1);
      // Two deliverers at once: the row is sent once.
      const [x, y] = await Promise.all([svc.deliverDue('http://h'), svc.deliverDue('http://h')]);
      assert.equal(x + y, 1);
      assert.equal(hook.received.length, 1);
      // Not due again yet (backoff): nothing is sent.
      assert.equal(await svc.deliverDue('http://h'), 0);
      // Make it due at once, three more times: then it is given up and recorded.
      for (let attempt = 2; attempt <= 4; attempt++) {
        await ctx.database.db.updateTable('notification_deliveries').set({ next_attempt_at: '2000-01-01T00:00:00.000Z' }).execute();
        assert.equal(await svc.deliverDue('http://h'), 1);
      }
      assert.equal(hook.received.length, 4);
      assert.equal(await svc.pending(), 0);
      const [response] = (await ctx.get(one(c.id), t)).body.data.attributes['delivery-responses'];
      assert.equal(response.successful, 'false');
      assert.equal(response.code, '503');
    } finally {
      hook.status = 200;
    }
  });

  it("a team's configurations: read by whoever sees the team, managed by whoever manages teams, gone with the team", async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const team = await ctx.post(`/api/v2/organizations/${org.name}/teams`, t, {
      data: { type: 'teams', attributes: { name: 'notified', visibility: 'organization' } },
    });
    assertStatus(team, 200);
    const teamId = team.body.data.id;
    const teamPath = `/api/v2/teams/${teamId}/notification-configurations`;
    const created = await ctx.post(
      teamPath,
      t,
      body({ name: 'cr', 'destination-type': 'generic', enabled: false, url: hook.url, triggers: ['change_request:created'] }),
    );
    assertStatus(created, 201);
    const c = created.body.data;
    assert.deepEqual(c.relationships.subscribable.data, { id: teamId, type: 'teams' });
    assert.deepEqual((await ctx.get(teamPath, t)).body.data, [c]);
    assertError(await ctx.post(teamPath, t, body({ name: 'x', 'destination-type': 'slack' })), 422, '/data/attributes/url');
    // A plain member sees the (visible) team and its configurations, and manages neither.
    const member = await ctx.member(org);
    assertStatus(await ctx.get(teamPath, member.token), 200);
    assertStatus(await ctx.get(one(c.id), member.token), 200);
    assertError(await ctx.post(teamPath, member.token, body({ name: 'x', 'destination-type': 'email' })), 403);
    assertError(await ctx.patch(one(c.id), member.token, body({ name: 'x' })), 403);
    assertError(await ctx.post(`${one(c.id)}/actions/verify`, member.token, {}), 403);
    const other = await ctx.organization();
    assertError(await ctx.get(teamPath, other.owner.token), 404);
    assertError(await ctx.get(one(c.id), other.owner.token), 404);
    // Verify reaches the receiver for a team's configuration too (no workspace in the payload).
    hook.received.length = 0;
    assertStatus(await ctx.post(`${one(c.id)}/actions/verify`, t, {}), 200);
    assert.equal(JSON.parse(hook.received[0]!.body).workspace_id, null);
    assertStatus(await ctx.delete(`/api/v2/teams/${teamId}`, t), 204);
    assertError(await ctx.get(one(c.id), t), 404);
  });

  it('`hangar rotate-key` re-seals tokens under the first key; a token no key opens is reported, and nothing is sent', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const c = await create(ctx, t, w.id, { name: 'rotating', 'destination-type': 'generic', enabled: false, url: hook.url, token: TOKEN });
    const old = ctx.config.encryptionKeys ? parseEncryptionKeys(ctx.config.encryptionKeys) : [readOrCreateKeyFile(join(ctx.config.dataDir, KEY_FILE))];
    const fresh = randomBytes(32);
    const rotating = createServices(ctx.database, { keyring: new Keyring([fresh, ...old]) }).notificationConfigurations;
    assert.ok((await rotating.rotateEncryption({ batchSize: 1 })) >= 1);
    assert.equal(await rotating.rotateEncryption(), 0);
    const row = await ctx.database.db.selectFrom('notification_configurations').select('encrypted_token').where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.ok(row.encrypted_token!.startsWith(`v1:${keyIdOf(fresh)}:`));
    assert.equal(new Keyring([fresh]).decrypt(row.encrypted_token!, c.id), TOKEN);
    // The app still holds only the old key: it cannot open the token, and says so instead of sending unsigned.
    hook.received.length = 0;
    const res = await ctx.post(`${one(c.id)}/actions/verify`, t, {});
    assertStatus(res, 200);
    const [failed] = res.body.data.attributes['delivery-responses'];
    assert.equal(failed.successful, 'false');
    assert.match(failed.body, /cannot be decrypted/);
    assert.equal(hook.received.length, 0);
  });

  it('a deleted workspace takes its configurations with it', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    const c = await create(ctx, t, w.id, { name: 'gone', 'destination-type': 'generic', enabled: true, url: hook.url, triggers: ['run:created'] });
    assertStatus(await ctx.delete(`/api/v2/workspaces/${w.id}`, t), 204);
    assertError(await ctx.get(one(c.id), t), 404);
    const left = await ctx.database.db.selectFrom('notification_configurations').select('id').where('id', '=', c.id).execute();
    assert.deepEqual(left, []);
  });
});

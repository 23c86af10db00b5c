import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, memberWithAccess } from './helpers/projects.ts';
import { settledStatements } from './helpers/settled.ts';
import { createStateVersion, lock, md5, put, stateFile, unlock, versionBody } from './helpers/state.ts';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createServices } from '../src/services.ts';
import { Keyring, keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, openKeyring, parseEncryptionKeys, readOrCreateKeyFile } from '../src/crypto/keys.ts';
import { issueUploadCredential } from '../src/crypto/upload-credentials.ts';

suite('state versions', (ctx) => {
  const create = (wsId: string, token: string | null, body: unknown) => ctx.post(`/api/v2/workspaces/${wsId}/state-versions`, token, body);

  it('creates a version inline when the caller holds the lock, and serves it, its bytes and its outputs', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const state = stateFile({ resources: 2 });

    // Not locked, then locked by someone else: 409.
    assertError(await create(w.id, t, versionBody(state, 1)), 409);
    await lock(ctx, w.id, t);
    const res = await create(w.id, t, versionBody(state, 1, { lineage: '8094ef40-1dbd-95cd-1f60-bb25d84d883b' }));
    assertStatus(res, 201);
    const sv = res.body.data;
    assert.match(sv.id, /^sv-[0-9A-Za-z]{16}$/);
    assert.equal(sv.attributes.status, 'finalized');
    assert.equal(sv.attributes.serial, 1);
    assert.equal(sv.attributes.size, state.length);
    assert.equal(sv.attributes['state-version'], 4);
    assert.equal(sv.attributes['terraform-version'], '1.11.4');
    assert.equal(sv.attributes['resources-processed'], true);
    assert.equal(sv.attributes['billable-rum-count'], 2);
    assert.deepEqual(sv.attributes.resources[0], {
      name: 'b0',
      type: 'aws_s3_bucket',
      count: 1,
      module: 'root',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
    });
    assert.deepEqual(sv.attributes.providers, { 'provider["registry.terraform.io/hashicorp/aws"]': { aws_s3_bucket: 2 } });
    assert.equal(sv.attributes['hosted-state-upload-url'], null);
    assert.match(sv.attributes['hosted-state-download-url'], new RegExp(`^http://[^/]+/api/v2/state-versions/${sv.id}/download$`));
    assert.equal(sv.relationships.outputs.data.length, 3);
    await unlock(ctx, w.id, t);

    const shown = await ctx.get(`/api/v2/state-versions/${sv.id}`, t);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, sv);
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, t)).body.data.id, sv.id);

    // The bytes, exactly as sent.
    const download = await ctx.app.inject({
      method: 'GET',
      url: new URL(sv.attributes['hosted-state-download-url']).pathname,
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(download.statusCode, 200);
    assert.equal(md5(download.rawPayload), md5(state));
    assert.equal((await ctx.get(new URL(sv.attributes['hosted-state-download-url']).pathname, null)).status, 401);

    // Outputs: sensitive values null in the current-outputs list, shown one by one.
    const current = await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version-outputs`, t);
    assertStatus(current, 200);
    const byName = Object.fromEntries(current.body.data.map((o: any) => [o.attributes.name, o]));
    assert.equal(byName.greeting.attributes.value, 'hello');
    assert.equal(byName.greeting.attributes.type, 'string');
    assert.deepEqual(byName.zones.attributes.value, ['a', 'b']);
    assert.equal(byName.zones.attributes.type, 'array');
    assert.deepEqual(byName.zones.attributes['detailed-type'], ['list', 'string']);
    assert.equal(byName.password.attributes.sensitive, true);
    assert.equal(byName.password.attributes.value, null);
    assert.ok(!current.raw.includes('hunter2'));
    const secret = await ctx.get(`/api/v2/state-version-outputs/${byName.password.id}`, t);
    assert.equal(secret.body.data.attributes.value, 'hunter2-secret-value');

    // include=outputs, on the version and on the workspace.
    const withOutputs = await ctx.get(`/api/v2/state-versions/${sv.id}?include=outputs`, t);
    assert.equal(withOutputs.body.included.length, 3);
    assert.ok(!withOutputs.raw.includes('hunter2'));
    const ws = await ctx.get(`/api/v2/organizations/${org.name}/workspaces/${w.attributes.name}?include=outputs`, t);
    assert.equal(ws.body.data.relationships.outputs.data.length, 3);
    assert.deepEqual(
      ws.body.included.map((o: any) => o.type),
      ['workspace-outputs', 'workspace-outputs', 'workspace-outputs'],
    );
    assert.ok(!ws.raw.includes('hunter2'));
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}?include=bogus`, t), 400);
    assertError(await ctx.get(`/api/v2/state-versions/${sv.id}?include=bogus`, t), 400);
  });

  it("lists a workspace's versions newest first, by organization and workspace name", async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const a = await createStateVersion(ctx, w.id, t, stateFile({ serial: 1 }), 1);
    const b = await createStateVersion(ctx, w.id, t, stateFile({ serial: 2 }), 2);
    const url = `/api/v2/state-versions?filter[workspace][name]=${w.attributes.name}&filter[organization][name]=${org.name}`;
    const list = await ctx.get(url, t);
    assertStatus(list, 200);
    assert.deepEqual(
      list.body.data.map((v: any) => v.id),
      [b.id, a.id],
    );
    assert.equal(list.body.meta.pagination['total-count'], 2);
    const past = await ctx.get(`${url}&page[number]=999&page[size]=100`, t);
    assert.deepEqual(past.body.data, []);
    assert.equal(past.body.meta.pagination['total-count'], 2);
    assertError(await ctx.get(`/api/v2/state-versions?filter[organization][name]=${org.name}`, t), 400);
    assertError(await ctx.get(`/api/v2/state-versions?filter[workspace][name]=${w.attributes.name}`, t), 400);
    const outsider = await ctx.organization();
    assertError(await ctx.get(url, outsider.owner.token), 404);
    assertError(await ctx.get(`/api/v2/workspaces/${(await createWorkspace(ctx, org)).id}/current-state-version`, t), 404);
  });

  it("shows a workspace's resource-count from its current state: every managed instance, no data source", async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const count = async () => {
      const shown = await ctx.get(`/api/v2/workspaces/${w.id}`, t);
      assertStatus(shown, 200);
      const listed = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?search[name]=${w.attributes.name}`, t);
      assertStatus(listed, 200);
      const inList = listed.body.data.find((x: any) => x.id === w.id);
      assert.equal(inList.attributes['resource-count'], shown.body.data.attributes['resource-count'], 'the list and the show agree');
      return shown.body.data.attributes['resource-count'];
    };
    assert.equal(await count(), 0, 'no state yet');
    const state = JSON.parse(stateFile({ serial: 1, resources: 2 }).toString());
    // A resource with three instances (count = 3), and a data source, which manages nothing.
    state.resources.push({
      ...state.resources[0],
      name: 'many',
      instances: [0, 1, 2].map((i) => ({ index_key: i, schema_version: 0, attributes: { id: `m-${i}` } })),
    });
    state.resources.push({
      mode: 'data',
      type: 'aws_region',
      name: 'here',
      provider: state.resources[0].provider,
      instances: [{ schema_version: 0, attributes: {} }],
    });
    await createStateVersion(ctx, w.id, t, Buffer.from(JSON.stringify(state)), 1);
    assert.equal(await count(), 5);
    // Safe delete reads the same count: a workspace managing resources is refused.
    const safeDelete = () => ctx.request('POST', `/api/v2/workspaces/${w.id}/actions/safe-delete`, { token: t, contentType: 'application/vnd.api+json' });
    assertError(await safeDelete(), 409);
    await createStateVersion(ctx, w.id, t, stateFile({ serial: 2, resources: 0 }), 2);
    assert.equal(await count(), 0, 'the newest version counts');
    assertStatus(await safeDelete(), 204);
  });

  it('reads a page of versions, their outputs and the count in one statement; a page past the end in two', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const made = [];
    for (let serial = 1; serial <= 3; serial++) made.push(await createStateVersion(ctx, w.id, t, stateFile({ serial }), serial));
    // A pending version: no outputs yet, no download URL.
    await lock(ctx, w.id, t);
    const pending = await ctx.post(`/api/v2/workspaces/${w.id}/state-versions`, t, versionBody(null, 4));
    assertStatus(pending, 201);
    await unlock(ctx, w.id, t);
    const url = `/api/v2/state-versions?filter[workspace][name]=${w.attributes.name}&filter[organization][name]=${org.name}&page[size]=3`;
    await ctx.get(url, t); // the caller's caches, and the page's compiled query
    const { result, statements } = await ctx.statementsOf(() => ctx.get(url, t));
    assertStatus(result, 200);
    const mine = statements.filter((text) => text.includes('state_version'));
    assert.equal(mine.length, 1, mine.join('\n'));
    assert.equal(result.body.meta.pagination['total-count'], 4);
    assert.deepEqual(
      result.body.data.map((v: any) => v.id),
      [pending.body.data.id, made[2]!.id, made[1]!.id],
    );
    // Each listed version as it is shown on its own (outputs in their order); never a value.
    for (const v of result.body.data) {
      assert.deepEqual(v, (await ctx.get(`/api/v2/state-versions/${v.id}`, t)).body.data);
      assert.doesNotMatch(JSON.stringify(v), /hunter2|"value"|bucket-0/);
    }
    assert.equal(result.body.data[1].relationships.outputs.data.length, 3);
    assert.deepEqual(result.body.data[0].relationships.outputs.data, []);

    const past = await ctx.statementsOf(() => ctx.get(`${url}&page[number]=9`, t));
    assert.deepEqual(past.result.body.data, []);
    assert.equal(past.result.body.meta.pagination['total-count'], 4);
    assert.equal(past.statements.filter((text) => text.includes('state_version')).length, 2);
  });

  it('uploads through single-use signed URLs that need no token; the version is pending until the state arrives', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const state = stateFile();
    const json = Buffer.from('{"format_version":"1.0"}');
    await lock(ctx, w.id, t);
    const res = await create(w.id, t, {
      data: { type: 'state-versions', attributes: { serial: 1, md5: md5(state), lineage: 'l-1', 'json-state-outputs': 'e30=' } },
    });
    assertStatus(res, 201);
    const sv = res.body.data;
    assert.equal(sv.attributes.status, 'pending');
    assert.equal(sv.attributes['hosted-state-download-url'], null);
    const stateUrl: string = sv.attributes['hosted-state-upload-url'];
    const jsonUrl: string = sv.attributes['hosted-json-state-upload-url'];
    assert.match(stateUrl, new RegExp(`^http://.+/state-versions/${sv.id}/upload/state\\?credential=\\d+\\.[A-Za-z0-9_-]{43}$`));
    // Not current while pending, and the upload URLs are never shown again.
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, t), 404);
    assert.equal((await ctx.get(`/api/v2/state-versions/${sv.id}`, t)).body.data.attributes['hosted-state-upload-url'], null);

    // A forged, re-aimed or expired credential is a 404, as an unknown object is to TFE's
    // archivist, and bytes that do not match the md5 change nothing.
    const [expires, signature] = new URL(stateUrl).searchParams.get('credential')!.split('.') as [string, string];
    const withCredential = (url: string, credential: string) => url.replace(/credential=.*$/, `credential=${credential}`);
    const keyring = await openKeyring(ctx.config, ctx.database);
    // The first character of the signature changed (to A, or to B when it already was an A).
    const refused = [
      withCredential(stateUrl, `${expires}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`),
      stateUrl.replace('/upload/state?', '/upload/json-state?'),
      withCredential(stateUrl, `${Number(expires) + 3_600_000}.${signature}`),
      withCredential(stateUrl, ''),
      stateUrl.replace(/\?.*$/, ''),
      // Signed by Hangar for this file, but 10 minutes and a second ago; and for a configuration upload.
      withCredential(stateUrl, issueUploadCredential(keyring, 'state-upload', `${sv.id}:state`, 10 * 60_000, Date.now() - 10 * 60_000 - 1_000)),
      withCredential(stateUrl, issueUploadCredential(keyring, 'configuration-upload', `${sv.id}:state`, 60_000)),
    ];
    for (const url of refused) {
      const res = await put(ctx, url, state);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body.errors, [{ status: '404', title: 'not found' }]);
    }
    assert.equal((await put(ctx, stateUrl, Buffer.from('{"version":4}'))).status, 422);

    assert.equal((await put(ctx, jsonUrl, json)).status, 204);
    assert.equal((await put(ctx, stateUrl, state)).status, 204);
    const from = ctx.logs.length;
    assert.equal((await put(ctx, stateUrl, state)).status, 409);
    assert.equal((await put(ctx, jsonUrl, json)).status, 409);
    // The request log shows where, never the credential.
    const logged = ctx.logs
      .slice(from)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed');
    assert.deepEqual(
      logged.map((l) => l.url),
      [`/api/v2/state-versions/${sv.id}/upload/state?credential=[REDACTED]`, `/api/v2/state-versions/${sv.id}/upload/json-state?credential=[REDACTED]`],
    );
    assert.ok(!ctx.logs.includes(signature));
    const done = await ctx.get(`/api/v2/state-versions/${sv.id}`, t);
    assert.equal(done.body.data.attributes.status, 'finalized');
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, t)).body.data.id, sv.id);
    const jsonDownload = await ctx.app.inject({
      method: 'GET',
      url: new URL(done.body.data.attributes['hosted-json-state-download-url']).pathname,
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(jsonDownload.body, json.toString());
    await unlock(ctx, w.id, t);
  });

  it('checks serial and lineage against the current version as TFE does, unless forced', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const s5 = stateFile({ serial: 5 });
    await lock(ctx, w.id, t);
    assertStatus(await create(w.id, t, versionBody(s5, 5, { lineage: 'one' })), 201);
    // The same serial and content again is accepted (go-tfe does this); going back is not.
    assertStatus(await create(w.id, t, versionBody(s5, 5, { lineage: 'one' })), 201);
    assert.match(assertError(await create(w.id, t, versionBody(stateFile({ serial: 4 }), 4, { lineage: 'one' })), 409).detail!, /serial/);
    assert.match(assertError(await create(w.id, t, versionBody(stateFile({ serial: 5, resources: 3 }), 5, { lineage: 'one' })), 409).detail!, /serial 5/);
    assert.match(assertError(await create(w.id, t, versionBody(stateFile({ serial: 6 }), 6, { lineage: 'two' })), 409).detail!, /lineage/);
    const forced = await create(w.id, t, versionBody(stateFile({ serial: 1 }), 1, { lineage: 'two', force: true }));
    assertStatus(forced, 201);
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, t)).body.data.id, forced.body.data.id);
    await unlock(ctx, w.id, t);
  });

  it('lets exactly one of two racing uploads of the same serial win; the other gets a conflict', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    await lock(ctx, w.id, t);
    const results = await Promise.all([
      create(w.id, t, versionBody(stateFile({ resources: 1 }), 3)),
      create(w.id, t, versionBody(stateFile({ resources: 2 }), 3)),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409]);
    const list = await ctx.get(`/api/v2/state-versions?filter[workspace][name]=${w.attributes.name}&filter[organization][name]=${org.name}`, t);
    assert.equal(list.body.data.length, 1);
    await unlock(ctx, w.id, t);
  });

  it('refuses bad bodies with 422 at the attribute, and states over the cap', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    await lock(ctx, w.id, t);
    const state = stateFile();
    assertError(await create(w.id, t, { data: { type: 'state-versions', attributes: { md5: md5(state) } } }), 422, '/data/attributes/serial');
    assertError(await create(w.id, t, { data: { type: 'state-versions', attributes: { serial: 1 } } }), 422, '/data/attributes/md5');
    assertError(await create(w.id, t, versionBody(state, -1)), 422, '/data/attributes/serial');
    assertError(await create(w.id, t, versionBody(state, 1, { md5: 'nothex' })), 422, '/data/attributes/md5');
    assertError(await create(w.id, t, versionBody(state, 1, { md5: md5(Buffer.from('other')) })), 422, '/data/attributes/md5');
    assertError(await create(w.id, t, versionBody(state, 1, { state: 'not base64!' })), 422, '/data/attributes/state');
    const notState = Buffer.from('[1,2]');
    assertError(await create(w.id, t, versionBody(notState, 1)), 422, '/data/attributes/state');
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    assertError(await create(w.id, t, versionBody(huge, 1)), 422, '/data/attributes/state');
    assertError(
      await ctx.request('POST', `/api/v2/workspaces/${w.id}/state-versions`, { token: t, body: versionBody(state, 1), contentType: 'application/json' }),
      415,
    );
    assertError(await create('ws-AAAAAAAAAAAAAAAA', t, versionBody(state, 1)), 404);
    assertError(await create(w.id, null, versionBody(state, 1)), 401);
    // Nothing was stored.
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, t), 404);
    // An upload over the cap.
    const pending = await create(w.id, t, versionBody(null, 1, { md5: md5(huge) }));
    assert.equal((await put(ctx, pending.body.data.attributes['hosted-state-upload-url'], huge)).status, 413);
    await unlock(ctx, w.id, t);
  });

  it('stores exactly the bytes an upload URL is given, whatever their content type', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    await lock(ctx, w.id, t);
    const types = [
      'application/json',
      'text/plain',
      'application/vnd.api+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      null,
    ];
    for (const [i, type] of types.entries()) {
      const state = stateFile({ serial: i + 1 });
      const json = Buffer.from(JSON.stringify({ format_version: '1.0', serial: i + 1 }));
      const res = await create(w.id, t, versionBody(null, i + 1, { md5: md5(state), lineage: '8094ef40-1dbd-95cd-1f60-bb25d84d883b' }));
      assertStatus(res, 201);
      const sv = res.body.data;
      // An empty body keeps nothing: refused, and the URL still works.
      assert.equal((await put(ctx, sv.attributes['hosted-json-state-upload-url'], Buffer.alloc(0), type)).status, 422, `empty json-state as ${type}`);
      assert.equal((await put(ctx, sv.attributes['hosted-json-state-upload-url'], json, type)).status, 204, `json-state as ${type}`);
      assert.equal((await put(ctx, sv.attributes['hosted-state-upload-url'], state, type)).status, 204, `state as ${type}`);
      assert.deepEqual(Buffer.from((await ctx.get(`/api/v2/state-versions/${sv.id}/json-download`, t)).raw), json, `json-state as ${type}`);
      assert.deepEqual(Buffer.from((await ctx.get(`/api/v2/state-versions/${sv.id}/download`, t)).raw), state, `state as ${type}`);
    }
    await unlock(ctx, w.id, t);
  });

  it('finalizes a pending version only while its creator holds the lock it held then, and may still write', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const creator = await memberWithAccess(ctx, org, [[project.id, 'write']]);
    const other = await memberWithAccess(ctx, org, [[project.id, 'write']]);
    const state = stateFile({ serial: 1 });
    const pending = async () => {
      await lock(ctx, w.id, creator.token);
      const res = await create(w.id, creator.token, versionBody(null, 1, { md5: md5(state), lineage: '8094ef40-1dbd-95cd-1f60-bb25d84d883b' }));
      assertStatus(res, 201);
      return res.body.data;
    };
    const statusOf = async (id: string) => (await ctx.get(`/api/v2/state-versions/${id}`, org.owner.token)).body.data.attributes.status;

    // The creator unlocked: refused, still pending, and the URL refuses again after a new lock by the creator.
    const a = await pending();
    await unlock(ctx, w.id, creator.token);
    assertError(await put(ctx, a.attributes['hosted-state-upload-url'], state), 409);
    assert.equal(await statusOf(a.id), 'pending');
    await lock(ctx, w.id, creator.token);
    assertError(await put(ctx, a.attributes['hosted-state-upload-url'], state), 409);
    await unlock(ctx, w.id, creator.token);

    // Someone else locked: refused, and the lock holder's own write of that serial succeeds.
    const b = await pending();
    await unlock(ctx, w.id, creator.token);
    await lock(ctx, w.id, other.token);
    assertError(await put(ctx, b.attributes['hosted-state-upload-url'], state), 409);
    assert.equal(await statusOf(b.id), 'pending');
    assertStatus(await create(w.id, other.token, versionBody(state, 1)), 201);
    await unlock(ctx, w.id, other.token);

    // The creator lost access while holding the lock: refused.
    const next = stateFile({ serial: 2 });
    await lock(ctx, w.id, creator.token);
    const c = await create(w.id, creator.token, versionBody(null, 2, { md5: md5(next) }));
    assertStatus(c, 201);
    const removed = await ctx.request('DELETE', `/api/v2/teams/${creator.teamId}/relationships/users`, {
      token: org.owner.token,
      body: { data: [{ type: 'users', id: creator.username }] },
    });
    assertStatus(removed, 204);
    assertError(await put(ctx, c.body.data.attributes['hosted-state-upload-url'], next), 403);
    assert.equal(await statusOf(c.body.data.id), 'pending');
    assert.equal((await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, org.owner.token)).body.data.attributes.serial, 1);
  });

  it('answers permissions as TFE: read reads state but may not write it; outsiders 404', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const sv = await createStateVersion(ctx, w.id, org.owner.token);
    const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    assertStatus(await ctx.get(`/api/v2/state-versions/${sv.id}`, reader.token), 200);
    assertStatus(await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version-outputs`, reader.token), 200);
    assertError(await create(w.id, reader.token, versionBody(stateFile(), 2)), 403);
    const writer = await memberWithAccess(ctx, org, [[project.id, 'write']]);
    await lock(ctx, w.id, writer.token);
    assertStatus(await create(w.id, writer.token, versionBody(stateFile({ serial: 2 }), 2)), 201);
    await unlock(ctx, w.id, writer.token);
    const member = await ctx.member(org);
    assertError(await ctx.get(`/api/v2/state-versions/${sv.id}`, member.token), 404);
    const outsider = await ctx.organization();
    assertError(await ctx.get(`/api/v2/state-versions/${sv.id}`, outsider.owner.token), 404);
    const outputId = sv.relationships.outputs.data[0].id;
    assertError(await ctx.get(`/api/v2/state-version-outputs/${outputId}`, outsider.owner.token), 404);
    assertError(await ctx.get(`/api/v2/state-versions/sv-AAAAAAAAAAAAAAAA`, org.owner.token), 404);
    assertError(await ctx.get(`/api/v2/state-version-outputs/wsout-AAAAAAAAAAAAAAAA`, org.owner.token), 404);
  });

  it('keeps state and output values sealed at rest, and says state-storage in the entitlements', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    await createStateVersion(ctx, w.id, org.owner.token);
    const blobs = await ctx.database.db.selectFrom('blobs').select(['key_id', 'body']).where('family', '=', 'state-versions').execute();
    const outputs = await ctx.database.db.selectFrom('state_version_outputs').select('sealed_value').execute();
    assert.ok(blobs.length > 0 && outputs.length > 0);
    for (const b of blobs) {
      assert.match(b.key_id!, /^[0-9a-f]{16}$/);
      const raw = Buffer.from(b.body).toString('latin1');
      assert.ok(!raw.includes('hunter2') && !raw.includes('aws_s3_bucket') && !raw.includes('hello'));
    }
    for (const text of outputs.map((o) => o.sealed_value)) {
      assert.match(text, /^v1:[0-9a-f]{16}:/);
      assert.ok(!text.includes('hunter2') && !text.includes('aws_s3_bucket') && !text.includes('hello'));
    }
    assert.ok(!ctx.logs.includes('hunter2'));
    const entitlements = await ctx.get(`/api/v2/organizations/${org.name}/entitlement-set`, org.owner.token);
    assert.equal(entitlements.body.data.attributes['state-storage'], true);
  });

  // Last: it leaves every value sealed with a key the running app does not hold.
  it('is resealed by rotate-key with the first key, and reads back byte for byte', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const state = stateFile({ serial: 9 });
    const sv = await createStateVersion(ctx, w.id, org.owner.token, state, 9);
    const old = ctx.config.encryptionKeys ? parseEncryptionKeys(ctx.config.encryptionKeys) : [readOrCreateKeyFile(path.join(ctx.config.dataDir, KEY_FILE))];
    const fresh = randomBytes(32);
    const rotating = createServices(ctx.database, { keyring: new Keyring([fresh, ...old]) });
    const reencrypted = (await rotating.stateVersions.rotateEncryption()) + (await rotating.blobs.reseal());
    assert.ok(reencrypted >= 4);
    const blobs = await ctx.database.db.selectFrom('blobs').selectAll().where('family', '=', 'state-versions').execute();
    const outputs = await ctx.database.db.selectFrom('state_version_outputs').select('sealed_value').execute();
    for (const b of blobs) assert.equal(b.key_id, keyIdOf(fresh));
    for (const text of outputs.map((o) => o.sealed_value)) assert.ok(text.startsWith(`v1:${keyIdOf(fresh)}:`));
    const after = createServices(ctx.database, { keyring: new Keyring([fresh]) });
    assert.equal(md5((await after.blobs.get({ family: 'state-versions', owner: sv.id, name: 'state' }))!), md5(state));
    assert.equal((await after.stateVersions.rotateEncryption()) + (await after.blobs.reseal()), 0);
  });

  it('finds the workspace of a list with its project in one statement: a page is two in all, for the owner and for a member on a team alike (its workspace grants are cached until they change)', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    const t = org.owner.token;
    const made = await createStateVersion(ctx, w.id, t, stateFile({ serial: 1 }), 1);
    const member = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    const url = (name: string) => `/api/v2/state-versions?filter[workspace][name]=${name}&filter[organization][name]=${org.name}`;
    for (const [token, expected] of [
      [t, 2],
      [member.token, 2],
    ] as const) {
      await ctx.get(url(w.attributes.name), token); // the caller's caches, and the compiled statements
      const { result, statements } = await settledStatements(ctx, () => ctx.get(url(w.attributes.name), token), expected);
      assertStatus(result, 200);
      assert.deepEqual(
        result.body.data.map((v: any) => v.id),
        [made.id],
      );
      assert.equal(statements.length, expected, statements.join('\n'));
      assert.match(statements[0]!, /from "workspaces"/, 'the workspace');
      assert.match(statements[0]!, /from "projects"/, 'and its project');
      assert.equal(statements.filter((text) => /from "projects"/.test(text)).length, 1, 'the project is not read again');
      assert.equal(statements.filter((text) => /"team_workspaces"/.test(text)).length, 0, 'the workspace grants are cached');
      assert.match(statements.at(-1)!, /"state_versions"/, 'the page');
    }
    // The page, sent as ready text (serialize.ts), is typed as every other answer.
    const shown = await ctx.get(`/api/v2/state-versions/${made.id}`, t);
    assert.equal((await ctx.get(url(w.attributes.name), t)).headers['content-type'], shown.headers['content-type']);
    assert.match(String(shown.headers['content-type']), /^application\/vnd\.api\+json/);
    // Named in another case, the workspace is found all the same; another organization's member is not let in.
    assert.equal((await ctx.get(url(w.attributes.name.toUpperCase()), t)).body.data[0].id, made.id);
    assertError(await ctx.get(url(w.attributes.name), (await ctx.organization()).owner.token), 404);
  });
});

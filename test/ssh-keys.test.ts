// SSH keys: /organizations/:name/ssh-keys and /ssh-keys/:id (create, list, show, rename or
// replace the value, delete), assigning one to a workspace (PATCH
// /workspaces/:id/relationships/ssh-key, as go-tfe's AssignSSHKey and UnassignSSHKey send it),
// deleting a key unassigning it, the permissions, and the value never leaving Hangar except to
// the job of a workspace it is assigned to.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { keyIdsInUse } from '../src/crypto/sealed.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite, type TestContext } from './helpers/harness.ts';
import { createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';

// Shaped like a private key (never a usable one): what the value rules and the log checks see.
const KEY_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW';
const PRIVATE_KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_BODY}\nQyNTUxOQAAACBTaGFuZ2FyLXRlc3Qta2V5LW5vdC1yZWFsLWF0LWFsbA==\n-----END OPENSSH PRIVATE KEY-----\n`;

const keysPath = (org: string) => `/api/v2/organizations/${org}/ssh-keys`;
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'ssh-keys', attributes } });
const assignPath = (workspaceId: string) => `/api/v2/workspaces/${workspaceId}/relationships/ssh-key`;
// Exactly what go-tfe sends: type workspaces, the key's id as an attribute (null to unassign).
const assignBody = (id: string | null) => ({ data: { type: 'workspaces', attributes: { id } } });

async function createKey(ctx: TestContext, org: Org, name = `key-${Math.random().toString(36).slice(2)}`, value = PRIVATE_KEY): Promise<any> {
  const res = await ctx.post(keysPath(org.name), org.owner.token, body({ name, value }));
  assertStatus(res, 201);
  return res.body.data;
}

suite('ssh keys', (ctx) => {
  it('creates, lists (paged, in creation order), shows, renames, replaces the value and deletes', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const created = await ctx.post(keysPath(org.name), t, body({ name: 'deploy key', value: PRIVATE_KEY }));
    assertStatus(created, 201);
    const k = created.body.data;
    assert.match(k.id, /^sshkey-[0-9A-Za-z]{16}$/);
    assert.equal(k.type, 'ssh-keys');
    assert.equal(k.attributes.name, 'deploy key');
    assert.equal(k.attributes.value, undefined);
    assert.match(k.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(k.relationships.organization.data.id, org.name);
    assert.equal(k.links.self, `/api/v2/ssh-keys/${k.id}`);
    assert.ok(!created.raw.includes(KEY_BODY), 'the value was echoed');

    const second = await createKey(ctx, org, 'second');
    const listed = await ctx.get(keysPath(org.name), t);
    assertStatus(listed, 200);
    assert.deepEqual(listed.body.data, [k, second]);
    assert.equal(listed.body.meta.pagination['total-count'], 2);
    const paged = await ctx.get(`${keysPath(org.name)}?page[size]=1&page[number]=2`, t);
    assert.deepEqual(
      paged.body.data.map((x: any) => x.id),
      [second.id],
    );
    assert.equal(paged.body.meta.pagination['total-pages'], 2);
    const far = await ctx.get(`${keysPath(org.name)}?page[number]=999&page[size]=100`, t);
    assert.deepEqual(far.body.data, []);
    assert.equal(far.body.meta.pagination['current-page'], 999);

    const shown = await ctx.get(`/api/v2/ssh-keys/${k.id}`, t);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body.data, k);

    // go-tfe's update: the name only.
    const renamed = await ctx.patch(`/api/v2/ssh-keys/${k.id}`, t, { data: { type: 'ssh-keys', id: k.id, attributes: { name: 'updated-key-name' } } });
    assertStatus(renamed, 200);
    assert.equal(renamed.body.data.id, k.id);
    assert.equal(renamed.body.data.attributes.name, 'updated-key-name');
    // A new value (a rotated key) keeps the name; the runner gets the new one.
    const rotated = `${PRIVATE_KEY.replace(KEY_BODY, 'AAAArotatedAAAArotatedAAAArotatedAAAA')}`;
    const replaced = await ctx.patch(`/api/v2/ssh-keys/${k.id}`, t, body({ value: rotated }));
    assertStatus(replaced, 200);
    assert.equal(replaced.body.data.attributes.name, 'updated-key-name');
    const w = await createWorkspace(ctx, org);
    assertStatus(await ctx.patch(assignPath(w.id), t, assignBody(k.id)), 200);
    assert.equal(await ctx.services.sshKeys.forRun(w.id), rotated);

    assertStatus(await ctx.delete(`/api/v2/ssh-keys/${k.id}`, t), 204);
    assertError(await ctx.get(`/api/v2/ssh-keys/${k.id}`, t), 404);
    assertError(await ctx.delete(`/api/v2/ssh-keys/${k.id}`, t), 404);
    assertError(await ctx.get('/api/v2/ssh-keys/nonexisting', t), 404);
    assert.deepEqual(
      (await ctx.get(keysPath(org.name), t)).body.data.map((x: any) => x.id),
      [second.id],
    );
  });

  it('assigns a key to a workspace and unassigns it, as go-tfe sends both; deleting a key unassigns it', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const w = await createWorkspace(ctx, org);
    // No key: the relationship is there, and null (go-tfe reads SSHKey as nil).
    assert.deepEqual(w.relationships['ssh-key'], { data: null });
    const k = await createKey(ctx, org);

    const assigned = await ctx.patch(assignPath(w.id), t, assignBody(k.id));
    assertStatus(assigned, 200);
    assert.equal(assigned.body.data.id, w.id);
    assert.equal(assigned.body.data.type, 'workspaces');
    assert.deepEqual(assigned.body.data.relationships['ssh-key'].data, { id: k.id, type: 'ssh-keys' });
    assert.deepEqual((await ctx.get(`/api/v2/workspaces/${w.id}`, t)).body.data.relationships['ssh-key'].data, { id: k.id, type: 'ssh-keys' });
    assert.equal(await ctx.services.sshKeys.forRun(w.id), PRIVATE_KEY);

    const unassigned = await ctx.patch(assignPath(w.id), t, assignBody(null));
    assertStatus(unassigned, 200);
    assert.deepEqual(unassigned.body.data.relationships['ssh-key'], { data: null });
    assert.equal(await ctx.services.sshKeys.forRun(w.id), null);

    // TFE: deleting a key unassigns it from every workspace (the workspaces stay).
    const other = await createWorkspace(ctx, org);
    assertStatus(await ctx.patch(assignPath(w.id), t, assignBody(k.id)), 200);
    assertStatus(await ctx.patch(assignPath(other.id), t, assignBody(k.id)), 200);
    assertStatus(await ctx.delete(`/api/v2/ssh-keys/${k.id}`, t), 204);
    for (const id of [w.id, other.id]) {
      const shown = await ctx.get(`/api/v2/workspaces/${id}`, t);
      assertStatus(shown, 200);
      assert.deepEqual(shown.body.data.relationships['ssh-key'], { data: null });
      assert.equal(await ctx.services.sshKeys.forRun(id), null);
    }
  });

  it('answers bad bodies with 422 at their pointers, unknown ids with 404 and other media types with 415', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    assertError(await ctx.post(keysPath(org.name), t, body({ value: PRIVATE_KEY })), 422, '/data/attributes/name');
    assertError(await ctx.post(keysPath(org.name), t, body({ name: 'x' })), 422, '/data/attributes/value');
    assertError(await ctx.post(keysPath(org.name), t, { data: { type: 'ssh-keys' } }), 422, '/data/attributes/name');
    assertError(await ctx.post(keysPath(org.name), t, body({ name: '  ', value: PRIVATE_KEY })), 422, '/data/attributes/name');
    assertError(await ctx.post(keysPath(org.name), t, body({ name: 'x', value: ' \n' })), 422, '/data/attributes/value');
    assertError(await ctx.post(keysPath(org.name), t, body({ name: 'x', value: 42 })), 422, '/data/attributes/value');
    assertError(await ctx.post(keysPath(org.name), t, body({ name: 'x', value: 'x'.repeat(64 * 1024 + 1) })), 422, '/data/attributes/value');
    // A public key could never authenticate: the usual mistake, refused with a word on why.
    const pub = await ctx.post(keysPath(org.name), t, body({ name: 'x', value: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeFakeFake me@host' }));
    assert.match(assertError(pub, 422, '/data/attributes/value').detail!, /public key/);
    // go-tfe's own tests send random UUIDs as values: any other text is taken, as TFE takes it.
    assertStatus(await ctx.post(keysPath(org.name), t, body({ name: 'uuid', value: '0b8a3a7e-1f6e-4a55-9f4c-3d2b1a0c9e8f' })), 201);

    const k = await createKey(ctx, org);
    assertError(await ctx.patch(`/api/v2/ssh-keys/${k.id}`, t, body({ name: '' })), 422, '/data/attributes/name');
    assertError(await ctx.patch(`/api/v2/ssh-keys/${k.id}`, t, body({ value: '' })), 422, '/data/attributes/value');
    assertError(await ctx.patch('/api/v2/ssh-keys/sshkey-0000000000000000', t, body({ name: 'x' })), 404);
    assertError(await ctx.get(keysPath('no-such-org'), t), 404);

    const w = await createWorkspace(ctx, org);
    assertError(await ctx.patch(assignPath(w.id), t, { data: { type: 'workspaces', attributes: {} } }), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath(w.id), t, { data: { type: 'workspaces' } }), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath(w.id), t, assignBody('sshkey-0000000000000000')), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath(w.id), t, assignBody('nonexisting')), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath(w.id), t, { data: { type: 'workspaces', attributes: { id: 7 } } }), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath('ws-0000000000000000'), t, assignBody(k.id)), 404);
    // Another organization's key is not found in this one's, even for a caller who sees both.
    const other = await ctx.organization();
    const foreign = await createKey(ctx, other);
    const site = await ctx.user({ siteAdmin: true });
    assertError(await ctx.patch(assignPath(w.id), site.token, assignBody(foreign.id)), 422, '/data/attributes/id');
    assertError(await ctx.patch(assignPath(w.id), t, assignBody(foreign.id)), 422, '/data/attributes/id');
    assert.deepEqual((await ctx.get(`/api/v2/workspaces/${w.id}`, t)).body.data.relationships['ssh-key'], { data: null });

    const json = { token: t, body: body({ name: 'x', value: PRIVATE_KEY }), contentType: 'text/plain' };
    assertError(await ctx.request('POST', keysPath(org.name), json), 415);
    assertError(await ctx.request('PATCH', `/api/v2/ssh-keys/${k.id}`, json), 415);
    assertError(await ctx.request('PATCH', assignPath(w.id), { token: t, body: assignBody(k.id), contentType: 'text/plain' }), 415);
  });

  it('needs a token (401); hides keys from other organizations (404); managing takes manage-vcs-settings, reading also workspace admin', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const k = await createKey(ctx, org);
    const w = await createWorkspace(ctx, org);
    const key = `/api/v2/ssh-keys/${k.id}`;

    for (const [method, url] of [
      ['GET', keysPath(org.name)],
      ['POST', keysPath(org.name)],
      ['GET', key],
      ['PATCH', key],
      ['DELETE', key],
      ['PATCH', assignPath(w.id)],
    ] as const) {
      assertError(await ctx.request(method, url, { body: method === 'GET' || method === 'DELETE' ? undefined : body({ name: 'x', value: PRIVATE_KEY }) }), 401);
    }

    const outsider = (await ctx.organization()).owner.token;
    assertError(await ctx.get(keysPath(org.name), outsider), 404);
    assertError(await ctx.post(keysPath(org.name), outsider, body({ name: 'x', value: PRIVATE_KEY })), 404);
    assertError(await ctx.get(key, outsider), 404);
    assertError(await ctx.patch(key, outsider, body({ name: 'mine' })), 404);
    assertError(await ctx.delete(key, outsider), 404);
    assertError(await ctx.patch(assignPath(w.id), outsider, assignBody(k.id)), 404);

    // A member with no permission sees the organization, so is refused (403) rather than hidden.
    const member = await ctx.member(org);
    assertError(await ctx.get(keysPath(org.name), member.token), 403);
    assertError(await ctx.get(key, member.token), 403);
    assertError(await ctx.post(keysPath(org.name), member.token, body({ name: 'x', value: PRIVATE_KEY })), 403);
    assertError(await ctx.delete(key, member.token), 403);

    // Workspace admins across the organization read keys (to pick one) but do not manage them.
    const admins = await ctx.member(org, { 'manage-workspaces': true });
    assertStatus(await ctx.get(keysPath(org.name), admins.token), 200);
    assertStatus(await ctx.get(key, admins.token), 200);
    assertError(await ctx.post(keysPath(org.name), admins.token, body({ name: 'x', value: PRIVATE_KEY })), 403);
    assertError(await ctx.patch(key, admins.token, body({ name: 'theirs' })), 403);
    assertStatus(await ctx.patch(assignPath(w.id), admins.token, assignBody(k.id)), 200);

    // TFE's "manage VCS settings" manages them, and nothing more: assigning is a workspace setting.
    const vcs = await ctx.member(org, { 'manage-vcs-settings': true });
    const made = await ctx.post(keysPath(org.name), vcs.token, body({ name: 'vcs', value: PRIVATE_KEY }));
    assertStatus(made, 201);
    assertStatus(await ctx.patch(`/api/v2/ssh-keys/${made.body.data.id}`, vcs.token, body({ name: 'vcs2' })), 200);
    assertError(await ctx.patch(assignPath(w.id), vcs.token, assignBody(made.body.data.id)), 404);
    assertStatus(await ctx.delete(`/api/v2/ssh-keys/${made.body.data.id}`, vcs.token), 204);

    // Assigning needs the workspace's settings: a project reader is refused.
    const reader = await memberWithAccess(ctx, org, [[org.defaultProjectId, 'read']]);
    assertError(await ctx.patch(assignPath(w.id), reader.token, assignBody(k.id)), 403);

    // TFE refuses organization tokens on every SSH key endpoint.
    const orgToken = await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, t, { data: { type: 'authentication-tokens' } });
    assertStatus(orgToken, 201);
    const ot = orgToken.body.data.attributes.token;
    assertError(await ctx.get(keysPath(org.name), ot), 403);
    assertError(await ctx.post(keysPath(org.name), ot, body({ name: 'x', value: PRIVATE_KEY })), 403);
  });

  it('never shows, logs or stores the value in clear text', async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const secretLine = 'AAAAsecretLineThatMustNeverAppearAnywhereAAAA';
    const value = `-----BEGIN OPENSSH PRIVATE KEY-----\n${secretLine}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const made = await ctx.post(keysPath(org.name), t, body({ name: 'hidden', value }));
    assertStatus(made, 201);
    const id = made.body.data.id;
    const w = await createWorkspace(ctx, org);
    const answers = [
      made,
      await ctx.get(keysPath(org.name), t),
      await ctx.get(`/api/v2/ssh-keys/${id}`, t),
      await ctx.patch(`/api/v2/ssh-keys/${id}`, t, body({ name: 'renamed' })),
      await ctx.patch(`/api/v2/ssh-keys/${id}`, t, body({ value, name: '' })),
      await ctx.patch(assignPath(w.id), t, assignBody(id)),
      await ctx.get(`/api/v2/workspaces/${w.id}`, t),
    ];
    for (const res of answers) assert.ok(!res.raw.includes(secretLine), `echoed: ${res.raw.slice(0, 200)}`);
    assert.ok(!ctx.logs.includes(secretLine), 'the value reached the server log');
    const row = await ctx.database.db.selectFrom('ssh_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(secretLine), 'stored in clear text');
    // Sealed with the keyring, and the start-up check knows the key that sealed it.
    assert.match(row.encrypted_value, /^v1:[0-9a-f]{16}:/);
    assert.ok((await keyIdsInUse(ctx.database.db)).includes(row.encrypted_value.slice(3, 19)));
    assert.equal(await ctx.services.sshKeys.forRun(w.id), value);
  });

  it('goes with its organization', async () => {
    const org = await ctx.organization();
    const k = await createKey(ctx, org);
    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    const left = await ctx.database.db.selectFrom('ssh_keys').select('id').where('id', '=', k.id).execute();
    assert.deepEqual(left, []);
  });
});

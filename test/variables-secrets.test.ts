// Sensitive variables (a workspace's and a variable set's): sealed at rest, never returned,
// logged or echoed, still given to runs in clear text, and never half-updated by concurrent writes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DecryptionError, Keyring, keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, parseEncryptionKeys, readOrCreateKeyFile } from '../src/crypto/keys.ts';
import { createServices } from '../src/services.ts';
import { keyIdsInUse } from '../src/crypto/sealed.ts';
import { randomBase62 } from '../src/ids.ts';
import { suite, type Response, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createWorkspace } from './helpers/projects.ts';
import { workspaceRefs } from './helpers/policy-sets.ts';
import { createSet, createSetVariable, createVariable, varBody, varUpdate } from './helpers/variables.ts';

const secret = () => `S3cr3t-${randomBase62(24)}`;

/** Every row of every table, as text: the secret must not appear anywhere in the database. */
async function databaseDump(ctx: TestContext): Promise<string> {
  const tables =
    ctx.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(ctx.database.db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(ctx.database.db);
  let dump = '';
  for (const { name } of tables.rows) dump += JSON.stringify((await sql`select * from ${sql.table(name)}`.execute(ctx.database.db)).rows);
  assert.match(dump, /var-/); // the dump really holds the variable rows
  return dump;
}

/** SQLite only: the database files themselves, write-ahead log included. */
function databaseFiles(ctx: TestContext): Buffer {
  if (ctx.dialect !== 'sqlite') return Buffer.alloc(0);
  const file = ctx.config.databaseUrl.slice('sqlite:'.length);
  return Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
}

function assertNowhere(ctx: TestContext, value: string, responses: Response[], dump: string) {
  for (const res of responses) assert.ok(!res.raw.includes(value), `response ${res.status} contains the secret: ${res.raw}`);
  assert.ok(!dump.includes(value), 'the database holds the secret in clear text');
  assert.ok(!databaseFiles(ctx).includes(value), 'a database file holds the secret in clear text');
  assert.ok(!ctx.logs.includes(value), 'a log line contains the secret');
}

suite('variables: sensitive values', (ctx) => {
  const row = (id: string) => ctx.database.db.selectFrom('variables').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const forRun = (workspaceId: string) => ctx.services.variables.forRun(workspaceId);

  it('stores a sensitive value only as ciphertext and answers value null everywhere, all-vars and set variables included', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const own = secret();
    const inSet = secret();
    const created = await ctx.post(`/api/v2/workspaces/${ws.id}/vars`, t, varBody({ key: 'api_key', value: own, sensitive: true }));
    assertStatus(created, 201);
    const v = created.body.data;
    assert.equal(v.attributes.value, null);
    const set = await createSet(ctx, org);
    const setVar = await ctx.post(`/api/v2/varsets/${set.id}/relationships/vars`, t, varBody({ key: 'TOKEN', value: inSet, category: 'env', sensitive: true }));
    assertStatus(setVar, 201);
    assertStatus(await ctx.post(`/api/v2/varsets/${set.id}/relationships/workspaces`, t, workspaceRefs(ws.id)), 204);
    const one = `/api/v2/workspaces/${ws.id}/vars/${v.id}`;
    const responses = [
      created,
      setVar,
      await ctx.get(one, t),
      await ctx.get(`/api/v2/workspaces/${ws.id}/vars`, t),
      await ctx.get(`/api/v2/workspaces/${ws.id}/vars?page[size]=5`, t),
      await ctx.get(`/api/v2/workspaces/${ws.id}/all-vars`, t),
      await ctx.get(`/api/v2/varsets/${set.id}/relationships/vars`, t),
      await ctx.get(`/api/v2/varsets/${set.id}/relationships/vars/${setVar.body.data.id}`, t),
      await ctx.patch(one, t, varUpdate({ key: 'api_key_renamed' })),
      await ctx.patch(one, t, varUpdate({ sensitive: true })),
    ];
    for (const res of responses) assert.ok(res.status === 200 || res.status === 201, res.raw);
    for (const res of responses) {
      const items = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
      for (const item of items) if (item.attributes.sensitive) assert.equal(item.attributes.value, null);
    }
    assert.equal(responses[8]!.body.data.attributes.key, 'api_key_renamed');
    const stored = await row(v.id);
    assert.equal(stored.value, null);
    assert.match(stored.encrypted_value ?? '', /^v1:[0-9a-f]{16}:[A-Za-z0-9+/]+=*$/);
    const dump = await databaseDump(ctx);
    assertNowhere(ctx, own, responses, dump);
    assertNowhere(ctx, inSet, responses, dump);
    // The start-up check knows the key sealed them.
    assert.ok((await keyIdsInUse(ctx.database.db)).includes(stored.encrypted_value!.slice(3, 19)));

    // A run gets both in clear text.
    const run = await forRun(ws.id);
    assert.equal(run.find((x) => x.key === 'api_key_renamed')!.value, own);
    assert.equal(run.find((x) => x.key === 'TOKEN')!.value, inSet);
  });

  it('never echoes a sensitive value in an error response or a log line', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const reader = await ctx.member(org, { 'read-workspaces': true });
    const outsider = await ctx.user();
    const original = secret();
    const attempt = secret();
    const t = org.owner.token;
    const v = await createVariable(ctx, t, ws.id, { key: 'token', value: original, sensitive: true });
    const one = `/api/v2/workspaces/${ws.id}/vars/${v.id}`;
    const vars = `/api/v2/workspaces/${ws.id}/vars`;
    const failures = [
      [422, await ctx.patch(one, t, varUpdate({ value: attempt, sensitive: false }))],
      [422, await ctx.patch(one, t, varUpdate({ value: attempt, category: 'policy-set' }))],
      [422, await ctx.patch(one, t, varUpdate({ value: attempt, description: 'd'.repeat(600) }))],
      [422, await ctx.post(vars, t, varBody({ key: 'token', value: attempt, sensitive: true }))],
      [422, await ctx.post(vars, t, varBody({ key: '', value: attempt, sensitive: true }))],
      [422, await ctx.post(vars, t, varBody({ key: 'x', value: attempt, sensitive: 'yes' }))],
      [403, await ctx.patch(one, reader.token, varUpdate({ value: attempt }))],
      [404, await ctx.patch(one, outsider.token, varUpdate({ value: attempt }))],
      [401, await ctx.patch(one, null, varUpdate({ value: attempt }))],
      [415, await ctx.request('PATCH', one, { token: t, body: varUpdate({ value: attempt }), contentType: 'application/json' })],
      [400, await ctx.request('PATCH', one, { token: t, rawBody: `{"data":{"attributes":{"value":"${attempt}"` })],
    ] as const;
    for (const [status, res] of failures) assertError(res, status);
    assert.ok(assertError(failures[0][1], 422, '/data/attributes/sensitive').detail);
    const reads = [await ctx.get(one, t), await ctx.get(one, reader.token), await ctx.get(vars, reader.token)];
    assertNowhere(ctx, original, [...failures.map(([, r]) => r), ...reads], await databaseDump(ctx));
    for (const res of [...failures.map(([, r]) => r), ...reads]) assert.ok(!res.raw.includes(attempt));
    assert.ok(!ctx.logs.includes(attempt));
    // None of the failed attempts changed anything.
    const [after] = await forRun(ws.id);
    assert.deepEqual([after!.value, after!.sensitive], [original, true]);
  });

  it('keeps a sensitive variable sensitive, seals the current value when one becomes sensitive, and lets a PATCH replace it', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const plain = secret();
    const v = await createVariable(ctx, t, ws.id, { key: 'was_plain', value: plain });
    assert.equal(v.attributes.value, plain);
    const one = `/api/v2/workspaces/${ws.id}/vars/${v.id}`;
    const made = await ctx.patch(one, t, varUpdate({ sensitive: true }));
    assertStatus(made, 200);
    assert.equal(made.body.data.attributes.value, null);
    assert.equal((await row(v.id)).value, null);
    assert.ok(!(await databaseDump(ctx)).includes(plain));
    assert.ok(!databaseFiles(ctx).includes(plain), 'the replaced clear text lingers in a database file');
    assert.equal((await forRun(ws.id))[0]!.value, plain);

    const next = secret();
    const before = (await row(v.id)).encrypted_value;
    assertError(await ctx.patch(one, t, varUpdate({ sensitive: false })), 422, '/data/attributes/sensitive');
    assert.equal((await row(v.id)).encrypted_value, before);
    assertStatus(await ctx.patch(one, t, varUpdate({ value: next })), 200);
    assert.notEqual((await row(v.id)).encrypted_value, before);
    assert.equal((await forRun(ws.id))[0]!.value, next);
  });

  it('binds each ciphertext to its variable', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const a = secret();
    const b = secret();
    const s1 = await createVariable(ctx, org.owner.token, ws.id, { key: 's1', value: a, sensitive: true });
    const s2 = await createVariable(ctx, org.owner.token, ws.id, { key: 's2', value: b, sensitive: true });
    const sealed = (await row(s1.id)).encrypted_value;
    await ctx.database.db.updateTable('variables').set({ encrypted_value: sealed }).where('id', '=', s2.id).execute();
    await assert.rejects(forRun(ws.id), (e: unknown) => {
      assert.ok(e instanceof DecryptionError);
      assert.ok(e.message.includes(s2.id) && !e.message.includes(a) && !e.message.includes(b));
      return true;
    });
    // The API, which never decrypts, keeps working.
    assertStatus(await ctx.get(`/api/v2/workspaces/${ws.id}/vars`, org.owner.token), 200);
    // Later tests rotate every sealed value: the tampered row goes.
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}/vars/${s2.id}`, org.owner.token), 204);
  });

  it('never leaves a variable half-updated under concurrent PATCHes; one of several equal creates wins', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const v = await createVariable(ctx, t, ws.id, { key: 'k', value: secret(), sensitive: true });
    const one = `/api/v2/workspaces/${ws.id}/vars/${v.id}`;
    const writes = Array.from({ length: 12 }, (_, i) => ({ key: `key_${i}`, value: `value_${i}_${randomBase62(8)}` }));
    for (const res of await Promise.all(writes.map((w) => ctx.patch(one, t, varUpdate(w))))) assertStatus(res, 200);
    const [final] = await forRun(ws.id);
    assert.equal(final!.value, writes.find((w) => w.key === final!.key)!.value, 'key and value come from different requests');

    const set = await createSet(ctx, org);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => ctx.post(`/api/v2/varsets/${set.id}/relationships/vars`, t, varBody({ key: 'same', value: secret(), sensitive: true }))),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    for (const res of results.filter((r) => r.status !== 201)) assert.equal(assertError(res, 422, '/data/attributes/key').detail, 'Key has already been taken');
    await createSetVariable(ctx, t, set.id, { key: 'other' });
  });

  it('re-seals every sensitive variable under the first key (`hangar rotate-key`), after which the old key may go', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const set = await createSet(ctx, org, { global: true });
    const values = [secret(), secret(), secret()];
    await createVariable(ctx, org.owner.token, ws.id, { key: 'a', value: values[0], sensitive: true });
    await createVariable(ctx, org.owner.token, ws.id, { key: 'b', value: values[1], sensitive: true });
    await createSetVariable(ctx, org.owner.token, set.id, { key: 'c', value: values[2], sensitive: true });
    const old = ctx.config.encryptionKeys ? parseEncryptionKeys(ctx.config.encryptionKeys) : [readOrCreateKeyFile(path.join(ctx.config.dataDir, KEY_FILE))];
    const fresh = randomBytes(32);
    const rotating = createServices(ctx.database, { keyring: new Keyring([fresh, ...old]) }).variables;
    assert.ok((await rotating.rotateEncryption({ batchSize: 2 })) >= 3);
    assert.equal(await rotating.rotateEncryption({ batchSize: 2 }), 0);
    const mine = await ctx.database.db.selectFrom('variables').select('encrypted_value').where('workspace_id', '=', ws.id).execute();
    for (const r of mine) assert.ok(r.encrypted_value!.startsWith(`v1:${keyIdOf(fresh)}:`));
    const run = await createServices(ctx.database, { keyring: new Keyring([fresh]) }).variables.forRun(ws.id);
    assert.deepEqual(run.map((v) => v.value).sort(), [...values].sort());
  });
});

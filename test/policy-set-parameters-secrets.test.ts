// Sensitive values: encrypted at rest, never returned, logged or echoed; still available to the
// policy-check runtime; and never half-updated by concurrent writes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { sql } from 'kysely';
import { DecryptionError } from '../src/crypto/keyring.ts';
import { ApiError } from '../src/jsonapi/errors.ts';
import { randomBase62 } from '../src/ids.ts';
import { suite, type Response, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createParameter, createPolicySet, parameterBody, parameterUpdate } from './helpers/policy-sets.ts';

const secret = () => `S3cr3t-${randomBase62(24)}`;

/** Every row of every table, as text: the secret must not appear anywhere in the database. */
async function databaseDump(ctx: TestContext): Promise<string> {
  const tables =
    ctx.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(ctx.database.db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(ctx.database.db);
  let dump = '';
  for (const { name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(ctx.database.db);
    dump += JSON.stringify(rows.rows);
  }
  assert.match(dump, /policy_set_parameters|var-/); // the dump really holds the parameter rows
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

suite('policy set parameters: sensitive values', (ctx) => {
  const paramsOf = (setId: string) => `/api/v2/policy-sets/${setId}/parameters`;
  const runtime = (setId: string) => ctx.services.policySetParameters.runtimeParameters(setId);
  const row = (id: string) => ctx.database.db.selectFrom('policy_set_parameters').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('stores a sensitive value only as ciphertext and returns value null in every response', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const value = secret();
    const t = org.owner.token;
    const created = await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'api_key', value, sensitive: true }));
    assertStatus(created, 201);
    const p = created.body.data;
    assert.equal(p.attributes.value, null);
    assert.equal(p.attributes.sensitive, true);
    const one = `${paramsOf(set.id)}/${p.id}`;
    const responses = [
      created,
      await ctx.get(one, t),
      await ctx.get(paramsOf(set.id), t),
      await ctx.get(`${paramsOf(set.id)}?page[size]=5`, t),
      await ctx.patch(one, t, parameterUpdate(p.id, { key: 'api_key_renamed' })),
      await ctx.patch(one, t, parameterUpdate(p.id, { sensitive: true })),
    ];
    for (const res of responses) assert.ok(res.status === 200 || res.status === 201, res.raw);
    assert.equal(responses[1]!.body.data.attributes.value, null);
    assert.equal(responses[2]!.body.data[0].attributes.value, null);
    assert.equal(responses[3]!.body.data[0].attributes.value, null);
    assert.equal(responses[4]!.body.data.attributes.value, null);
    assert.equal(responses[4]!.body.data.attributes.key, 'api_key_renamed');

    const stored = await row(p.id);
    assert.equal(stored.value, null);
    assert.match(stored.encrypted_value ?? '', /^v1:[0-9a-f]{16}:[A-Za-z0-9+/]+=*$/);
    assertNowhere(ctx, value, responses, await databaseDump(ctx));

    // The runtime still gets the real value.
    assert.deepEqual(await runtime(set.id), [{ id: p.id, key: 'api_key_renamed', value, sensitive: true, category: 'policy-set' }]);
  });

  it('never echoes a sensitive value in an error response or a log line', async () => {
    const org = await ctx.organization();
    const reader = await ctx.member(org, {});
    const outsider = await ctx.user();
    const set = await createPolicySet(ctx, org);
    const original = secret();
    const attempt = secret();
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'token', value: original, sensitive: true });
    const one = `${paramsOf(set.id)}/${p.id}`;
    const t = org.owner.token;
    const failures = [
      [422, await ctx.patch(one, t, parameterUpdate(p.id, { value: attempt, sensitive: false }))],
      [422, await ctx.patch(one, t, parameterUpdate('var-0000000000000000', { value: attempt }))],
      [422, await ctx.patch(one, t, parameterUpdate(p.id, { value: attempt, category: 'env' }))],
      [422, await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'token', value: attempt, sensitive: true }))],
      [422, await ctx.post(paramsOf(set.id), t, parameterBody({ key: '', value: attempt, sensitive: true }))],
      [422, await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'x', value: attempt, sensitive: 'yes' }))],
      [403, await ctx.patch(one, reader.token, parameterUpdate(p.id, { value: attempt }))],
      [404, await ctx.patch(one, outsider.token, parameterUpdate(p.id, { value: attempt }))],
      [401, await ctx.patch(one, null, parameterUpdate(p.id, { value: attempt }))],
      [415, await ctx.request('PATCH', one, { token: t, body: parameterUpdate(p.id, { value: attempt }), contentType: 'application/json' })],
      [400, await ctx.request('PATCH', one, { token: t, rawBody: `{"data":{"attributes":{"value":"${attempt}"` })],
    ] as const;
    for (const [status, res] of failures) assertError(res, status);
    const sensitive = assertError(failures[0][1], 422, '/data/attributes/sensitive');
    assert.ok(sensitive.detail);
    const reads = [await ctx.get(one, t), await ctx.get(one, reader.token), await ctx.get(paramsOf(set.id), reader.token)];
    assertNowhere(ctx, original, [...failures.map(([, r]) => r), ...reads], await databaseDump(ctx));
    for (const res of [...failures.map(([, r]) => r), ...reads]) assert.ok(!res.raw.includes(attempt));
    assert.ok(!ctx.logs.includes(attempt));
    // None of the failed attempts changed anything.
    const [after] = await runtime(set.id);
    assert.equal(after!.value, original);
    assert.equal(after!.sensitive, true);
  });

  it('keeps a sensitive parameter sensitive, and lets a PATCH replace its value', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const first = secret();
    const second = secret();
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'pw', value: first, sensitive: true });
    const one = `${paramsOf(set.id)}/${p.id}`;
    const before = (await row(p.id)).encrypted_value;

    assertError(await ctx.patch(one, org.owner.token, parameterUpdate(p.id, { sensitive: false })), 422, '/data/attributes/sensitive');
    assert.equal((await ctx.get(one, org.owner.token)).body.data.attributes.sensitive, true);
    assert.equal((await row(p.id)).encrypted_value, before);

    const replaced = await ctx.patch(one, org.owner.token, parameterUpdate(p.id, { value: second }));
    assertStatus(replaced, 200);
    assert.equal(replaced.body.data.attributes.value, null);
    assert.equal(replaced.body.data.attributes.sensitive, true);
    assert.notEqual((await row(p.id)).encrypted_value, before);
    assert.equal((await runtime(set.id))[0]!.value, second);
    assertNowhere(ctx, second, [replaced], await databaseDump(ctx));
  });

  it('encrypts the current value when a parameter becomes sensitive', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const value = secret();
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'was_plain', value });
    assert.equal(p.attributes.value, value);
    const res = await ctx.patch(`${paramsOf(set.id)}/${p.id}`, org.owner.token, parameterUpdate(p.id, { sensitive: true }));
    assertStatus(res, 200);
    assert.equal(res.body.data.attributes.value, null);
    const stored = await row(p.id);
    assert.equal(stored.value, null);
    assert.ok(stored.encrypted_value && !stored.encrypted_value.includes(value));
    assert.ok(!(await databaseDump(ctx)).includes(value));
    assert.equal((await runtime(set.id))[0]!.value, value);
  });

  it('gives the runtime every parameter of a set with real values, and binds each ciphertext to its parameter', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const other = await createPolicySet(ctx, org);
    const a = secret();
    const b = secret();
    const plain = await createParameter(ctx, org.owner.token, set.id, { key: 'region', value: 'eu' });
    const s1 = await createParameter(ctx, org.owner.token, set.id, { key: 's1', value: a, sensitive: true });
    const s2 = await createParameter(ctx, org.owner.token, set.id, { key: 's2', value: b, sensitive: true });
    await createParameter(ctx, org.owner.token, other.id, { key: 'elsewhere', value: 'no' });
    assert.deepEqual(await runtime(set.id), [
      { id: plain.id, key: 'region', value: 'eu', sensitive: false, category: 'policy-set' },
      { id: s1.id, key: 's1', value: a, sensitive: true, category: 'policy-set' },
      { id: s2.id, key: 's2', value: b, sensitive: true, category: 'policy-set' },
    ]);
    assert.deepEqual(await runtime((await createPolicySet(ctx, org)).id), []);
    await assert.rejects(runtime('polset-0000000000000000'), (e: unknown) => e instanceof ApiError && e.status === 404);

    // A ciphertext copied onto another parameter's row does not open there.
    const sealed = (await row(s1.id)).encrypted_value;
    await ctx.database.db.updateTable('policy_set_parameters').set({ encrypted_value: sealed }).where('id', '=', s2.id).execute();
    await assert.rejects(runtime(set.id), (e: unknown) => {
      assert.ok(e instanceof DecryptionError);
      assert.ok(e.message.includes(s2.id) && !e.message.includes(a) && !e.message.includes(b));
      return true;
    });
    // And the API, which never decrypts, keeps working.
    assertStatus(await ctx.get(paramsOf(set.id), org.owner.token), 200);
  });

  it('never leaves a parameter half-updated under concurrent PATCHes', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'k', value: secret(), sensitive: true });
    const one = `${paramsOf(set.id)}/${p.id}`;
    const writes = Array.from({ length: 16 }, (_, i) => ({ key: `key_${i}`, value: `value_${i}_${randomBase62(8)}` }));
    const results = await Promise.all(writes.map((w) => ctx.patch(one, org.owner.token, parameterUpdate(p.id, w))));
    for (const res of results) assertStatus(res, 200);
    const [final] = await runtime(set.id);
    const winner = writes.find((w) => w.key === final!.key);
    assert.ok(winner, `unexpected key ${final!.key}`);
    assert.equal(final!.value, winner.value, 'key and value come from different requests');

    // Becoming sensitive while another request writes a value and a third renames.
    const q = await createParameter(ctx, org.owner.token, set.id, { key: 'plain', value: 'old' });
    const url = `${paramsOf(set.id)}/${q.id}`;
    const late = secret();
    const raced = await Promise.all([
      ctx.patch(url, org.owner.token, parameterUpdate(q.id, { sensitive: true })),
      ctx.patch(url, org.owner.token, parameterUpdate(q.id, { value: late })),
      ctx.patch(url, org.owner.token, parameterUpdate(q.id, { key: 'renamed' })),
    ]);
    for (const res of raced) assertStatus(res, 200);
    const stored = await row(q.id);
    assert.equal(Boolean(stored.sensitive), true);
    assert.equal(stored.key, 'renamed');
    assert.equal(stored.value, null);
    const after = (await runtime(set.id)).find((x) => x.id === q.id)!;
    assert.equal(after.value, late);
    assert.ok(!(await databaseDump(ctx)).includes(late));
  });

  it('lets exactly one of several concurrent creates with the same key win', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'same', value: secret(), sensitive: true }))),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    for (const res of results.filter((r) => r.status !== 201)) {
      assert.equal(assertError(res, 422, '/data/attributes/key').detail, 'Key has already been taken');
    }
    assert.equal((await ctx.get(paramsOf(set.id), org.owner.token)).body.data.length, 1);
  });
});

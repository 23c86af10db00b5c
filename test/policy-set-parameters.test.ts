import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { settledStatements } from './helpers/settled.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createParameter, createPolicySet, parameterBody, parameterUpdate } from './helpers/policy-sets.ts';
import { newId } from '../src/ids.ts';
import { insertParameter } from '../src/policy-set-parameters/store.ts';
import { now } from '../src/time.ts';

/** The documented bounds: values of 256 KiB, 100 parameters per set. */
const MAX_VALUE = 256 * 1024;
const MAX_PARAMETERS = 100;

const VAR_ID = /^var-[0-9A-Za-z]{16}$/;

suite('policy set parameters', (ctx) => {
  const paramsOf = (setId: string) => `/api/v2/policy-sets/${setId}/parameters`;

  it('creates a parameter with the seed document shape; create, show, list and update agree', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    // Attributes Hangar does not model (hcl, description) are ignored.
    const res = await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'allowed_regions', value: 'eu-west-1', hcl: false }));
    assertStatus(res, 201);
    const p = res.body.data;
    assert.match(p.id, VAR_ID);
    assert.deepEqual(res.body, {
      data: {
        id: p.id,
        type: 'vars',
        attributes: { key: 'allowed_regions', value: 'eu-west-1', category: 'policy-set', sensitive: false },
        relationships: {
          configurable: { data: { id: set.id, type: 'policy-sets' }, links: { related: `/api/v2/policy-sets/${set.id}` } },
        },
        links: { self: `/api/v2/policy-sets/${set.id}/parameters/${p.id}` },
      },
    });
    const shown = await ctx.get(`${paramsOf(set.id)}/${p.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.deepEqual(shown.body, res.body);
    const list = await ctx.get(paramsOf(set.id), org.owner.token);
    assert.deepEqual(list.body, { data: [p] });
    const updated = await ctx.patch(`${paramsOf(set.id)}/${p.id}`, org.owner.token, parameterUpdate(p.id, {}));
    assertStatus(updated, 200);
    assert.deepEqual(updated.body, res.body);
  });

  it('defaults value to "" and sensitive to false', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'empty' });
    assert.equal(p.attributes.value, '');
    assert.equal(p.attributes.sensitive, false);
  });

  it('lists everything with only data, or a page with the envelope when asked', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const keys = ['a', 'b', 'c'];
    for (const key of keys) await createParameter(ctx, org.owner.token, set.id, { key, value: key.toUpperCase() });
    const all = await ctx.get(paramsOf(set.id), org.owner.token);
    assertStatus(all, 200);
    assert.deepEqual(Object.keys(all.body), ['data']);
    assert.deepEqual(
      all.body.data.map((p: any) => p.attributes.key),
      keys,
    );

    const page = await ctx.get(`${paramsOf(set.id)}?page[size]=2`, org.owner.token);
    assertStatus(page, 200);
    assert.equal(page.body.data.length, 2);
    assert.equal(page.body.meta.pagination['total-count'], 3);
    assert.equal(page.body.meta.pagination['next-page'], 2);
    const second = await ctx.get(`${paramsOf(set.id)}?page%5Bnumber%5D=2&page%5Bsize%5D=2`, org.owner.token);
    assert.deepEqual(
      second.body.data.map((p: any) => p.attributes.key),
      ['c'],
    );
    const onlyNumber = await ctx.get(`${paramsOf(set.id)}?page[number]=1`, org.owner.token);
    assert.equal(onlyNumber.body.meta.pagination['page-size'], 20);
    assertError(await ctx.get(`${paramsOf(set.id)}?page[size]=-1`, org.owner.token), 400);
    assertError(await ctx.get(`${paramsOf(set.id)}?page[number]=x`, org.owner.token), 400);
    const empty = await createPolicySet(ctx, org);
    assert.deepEqual((await ctx.get(paramsOf(empty.id), org.owner.token)).body, { data: [] });
  });

  it('a page is one statement for the page and its count (the set is cached); past the end, one more; a sensitive value is never read', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    for (const key of ['a', 'b', 'c']) await createParameter(ctx, org.owner.token, set.id, { key, value: `${key}-clear`, sensitive: key === 'b' });
    const get = (qs: string) => ctx.get(`${paramsOf(set.id)}${qs}`, org.owner.token);
    const settled = async (qs: string, expected: number) => {
      const found = await settledStatements(ctx, () => get(qs), expected);
      assertStatus(found.result, 200);
      assert.equal(found.statements.length, expected, found.statements.join('\n'));
      return found;
    };
    const first = await settled('?page[size]=2', 1);
    assert.match(first.statements[0]!, /from "policy_set_parameters"/);
    assert.doesNotMatch(first.statements[0]!, /encrypted_value/, 'a list never reads the ciphertexts');
    assert.deepEqual(
      first.result.body.data.map((p: any) => [p.attributes.key, p.attributes.value]),
      [
        ['a', 'a-clear'],
        ['b', null],
      ],
    );
    assert.equal(first.result.body.meta.pagination['total-count'], 3);
    const second = await settled('?page[size]=2&page[number]=2', 1);
    assert.deepEqual([second.result.body.data.length, second.result.body.meta.pagination['total-count']], [1, 3]);
    const whole = await settled('', 1);
    assert.deepEqual(Object.keys(whole.result.body), ['data']);
    assert.equal(whole.result.body.data.length, 3);
    const past = await settled('?page[size]=2&page[number]=9', 2);
    assert.deepEqual([past.result.body.data.length, past.result.body.meta.pagination['total-count']], [0, 3]);
    // What is kept is the statement, never its answer.
    await createParameter(ctx, org.owner.token, set.id, { key: 'd' });
    assert.equal((await get('?page[size]=2')).body.meta.pagination['total-count'], 4);
    const empty = await createPolicySet(ctx, org);
    assert.deepEqual((await ctx.get(`${paramsOf(empty.id)}?page[size]=2`, org.owner.token)).body.meta.pagination['total-count'], 0);
  });

  it('the set is cached until a set changes (db/changes.ts): renamed, deleted, or its organization deleted, it is seen at once', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    await createParameter(ctx, org.owner.token, set.id, { key: 'a', value: 'x' });
    const list = () => ctx.get(paramsOf(set.id), org.owner.token);
    const show = () => ctx.get(`/api/v2/policy-sets/${set.id}`, org.owner.token);
    assertStatus(await list(), 200);
    assertStatus(await show(), 200);
    const cached = await settledStatements(ctx, list, 1);
    assert.equal(cached.statements.length, 1, cached.statements.join('\n'));
    // Renamed: the set's own show (which reads the same cached row) has the new name at once.
    const renamed = await ctx.patch(`/api/v2/policy-sets/${set.id}`, org.owner.token, { data: { type: 'policy-sets', attributes: { name: 'renamed-set' } } });
    assertStatus(renamed, 200);
    assert.equal((await show()).body.data.attributes.name, 'renamed-set');
    assertStatus(await list(), 200);
    // Deleted: its parameters are not found at once.
    assertStatus(await ctx.delete(`/api/v2/policy-sets/${set.id}`, org.owner.token), 204);
    assertError(await list(), 404);
    assertError(await show(), 404);
    // Its organization deleted (the set goes by cascade): not found at once.
    const other = await createPolicySet(ctx, org);
    const otherList = () => ctx.get(paramsOf(other.id), org.owner.token);
    assertStatus(await otherList(), 200);
    assertStatus(await otherList(), 200);
    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    assertError(await otherList(), 404);
    assert.equal(await ctx.database.db.selectFrom('policy_sets').select('id').where('id', '=', other.id).executeTakeFirst(), undefined);
  });

  it('validates create bodies: key required and unique (case-sensitively), category must be policy-set', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const url = paramsOf(set.id);
    const t = org.owner.token;
    await createParameter(ctx, t, set.id, { key: 'region', value: 'x' });

    const dup = assertError(await ctx.post(url, t, parameterBody({ key: 'region', value: 'y' })), 422, '/data/attributes/key');
    assert.equal(dup.detail, 'Key has already been taken');
    assertStatus(await ctx.post(url, t, parameterBody({ key: 'REGION', value: 'y' })), 201);
    // Another set may use the same key.
    const other = await createPolicySet(ctx, org);
    assertStatus(await ctx.post(paramsOf(other.id), t, parameterBody({ key: 'region' })), 201);

    assertError(await ctx.post(url, t, parameterBody({ value: 'v' })), 422, '/data/attributes/key');
    assertError(await ctx.post(url, t, parameterBody({ key: '' })), 422, '/data/attributes/key');
    assertError(await ctx.post(url, t, parameterBody({ key: '   ' })), 422, '/data/attributes/key');
    assertError(await ctx.post(url, t, parameterBody({ key: 5 })), 422, '/data/attributes/key');
    const cat = assertError(await ctx.post(url, t, parameterBody({ key: 'c1', category: 'terraform' })), 422, '/data/attributes/category');
    assert.equal(cat.detail, 'Category must be "policy-set"');
    assertError(await ctx.post(url, t, { data: { type: 'vars', attributes: { key: 'c2' } } }), 422, '/data/attributes/category');
    assertError(await ctx.post(url, t, parameterBody({ key: 's', sensitive: 'true' })), 422, '/data/attributes/sensitive');
    assertError(await ctx.post(url, t, parameterBody({ key: 'v', value: 42 })), 422, '/data/attributes/value');
    assertError(await ctx.post(url, t, { data: { type: 'variables', attributes: { key: 'k', category: 'policy-set' } } }), 422, '/data/type');
    assertError(await ctx.request('POST', url, { token: t, body: parameterBody({ key: 'ct' }), contentType: 'application/json' }), 415);
    assertError(await ctx.request('POST', url, { token: t, rawBody: '{"data": ' }), 400);
    assertError(await ctx.post(paramsOf('polset-0000000000000000'), t, parameterBody({ key: 'k' })), 404);

    const keys = (await ctx.get(url, t)).body.data.map((p: any) => p.attributes.key);
    assert.deepEqual(keys, ['region', 'REGION']);
  });

  it('updates any subset of attributes; omitted ones stay', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'k', value: 'v1' });
    const url = `${paramsOf(set.id)}/${p.id}`;
    const t = org.owner.token;

    const value = await ctx.patch(url, t, parameterUpdate(p.id, { value: 'v2' }));
    assertStatus(value, 200);
    assert.deepEqual(value.body.data.attributes, { key: 'k', value: 'v2', category: 'policy-set', sensitive: false });
    const key = await ctx.patch(url, t, parameterUpdate(p.id, { key: 'k2', category: 'policy-set' }));
    assert.deepEqual(key.body.data.attributes, { key: 'k2', value: 'v2', category: 'policy-set', sensitive: false });
    assert.deepEqual((await ctx.get(url, t)).body, key.body);
  });

  it('updates with the bodies go-tfe sends: no id, and no attributes at all for no change', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const created = await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'k', value: 'v' }));
    const url = `${paramsOf(set.id)}/${created.body.data.id}`;
    const unchanged = await ctx.patch(url, org.owner.token, { data: { type: 'vars' } });
    assertStatus(unchanged, 200);
    assert.deepEqual(unchanged.body, created.body);
    const renamed = await ctx.patch(url, org.owner.token, { data: { type: 'vars', attributes: { key: 'newname', value: 'newvalue' } } });
    assertStatus(renamed, 200);
    assert.deepEqual(renamed.body.data.attributes, { key: 'newname', value: 'newvalue', category: 'policy-set', sensitive: false });
    const sensitive = await ctx.patch(url, org.owner.token, { data: { type: 'vars', attributes: { sensitive: true } } });
    assert.deepEqual(sensitive.body.data.attributes, { key: 'newname', value: null, category: 'policy-set', sensitive: true });
  });

  it('refuses bad updates: id mismatch, bad category, taken or blank key', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'one', value: '1' });
    await createParameter(ctx, org.owner.token, set.id, { key: 'two', value: '2' });
    const url = `${paramsOf(set.id)}/${p.id}`;
    const t = org.owner.token;

    assertError(await ctx.patch(url, t, parameterUpdate('var-0000000000000000', { value: 'x' })), 422, '/data/id');
    assertError(await ctx.patch(url, t, { data: { type: 'vars', id: 42, attributes: { value: 'x' } } }), 422, '/data/id');
    assertError(await ctx.patch(url, t, parameterUpdate(p.id, { category: 'env' })), 422, '/data/attributes/category');
    const taken = assertError(await ctx.patch(url, t, parameterUpdate(p.id, { key: 'two' })), 422, '/data/attributes/key');
    assert.equal(taken.detail, 'Key has already been taken');
    assertError(await ctx.patch(url, t, parameterUpdate(p.id, { key: '' })), 422, '/data/attributes/key');
    assertError(await ctx.request('PATCH', url, { token: t, body: parameterUpdate(p.id, {}), contentType: 'text/plain' }), 415);
    assertError(await ctx.patch(`${paramsOf(set.id)}/var-0000000000000000`, t, parameterUpdate('var-0000000000000000', {})), 404);
    // Nothing changed.
    assert.deepEqual((await ctx.get(url, t)).body.data.attributes, { key: 'one', value: '1', category: 'policy-set', sensitive: false });
  });

  it('answers 404 for unknown ids and for a parameter of another policy set', async () => {
    const org = await ctx.organization();
    const a = await createPolicySet(ctx, org);
    const b = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, a.id, { key: 'k', value: 'v' });
    const t = org.owner.token;
    const wrongSet = `${paramsOf(b.id)}/${p.id}`;
    assertError(await ctx.get(wrongSet, t), 404);
    assertError(await ctx.patch(wrongSet, t, parameterUpdate(p.id, { value: 'hijacked' })), 404);
    assertError(await ctx.delete(wrongSet, t), 404);
    assertError(await ctx.get(`${paramsOf(a.id)}/var-0000000000000000`, t), 404);
    assertError(await ctx.get(`${paramsOf('polset-0000000000000000')}/${p.id}`, t), 404);
    assertError(await ctx.get(paramsOf('polset-0000000000000000'), t), 404);
    assert.equal((await ctx.get(`${paramsOf(a.id)}/${p.id}`, t)).body.data.attributes.value, 'v');
  });

  it('deletes a parameter: 204 without a body, then 404', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'k', value: 'v' });
    const keep = await createParameter(ctx, org.owner.token, set.id, { key: 'keep', value: 'v' });
    const url = `${paramsOf(set.id)}/${p.id}`;
    const res = await ctx.delete(url, org.owner.token);
    assertStatus(res, 204);
    assert.equal(res.raw, '');
    assertError(await ctx.get(url, org.owner.token), 404);
    assertError(await ctx.delete(url, org.owner.token), 404);
    assert.deepEqual(
      (await ctx.get(paramsOf(set.id), org.owner.token)).body.data.map((x: any) => x.id),
      [keep.id],
    );
    // The key is free again.
    assertStatus(await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'k' })), 201);
  });

  it('lets members read, and only owners, the organization token and manage-policies teams write', async () => {
    const org = await ctx.organization();
    const reader = await ctx.member(org, { 'read-workspaces': true });
    const manager = await ctx.member(org, { 'manage-policies': true });
    const outsider = await ctx.user();
    const foreign = await ctx.organization();
    const orgToken = (
      await ctx.post(`/api/v2/organizations/${org.name}/authentication-token`, org.owner.token, {
        data: { type: 'authentication-token' },
      })
    ).body.data.attributes.token as string;
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'k', value: 'v' });
    const list = paramsOf(set.id);
    const one = `${list}/${p.id}`;
    const update = parameterUpdate(p.id, { value: 'changed' });

    assertStatus(await ctx.get(list, reader.token), 200);
    assertStatus(await ctx.get(one, reader.token), 200);
    assertError(await ctx.post(list, reader.token, parameterBody({ key: 'r' })), 403);
    assertError(await ctx.patch(one, reader.token, update), 403);
    assertError(await ctx.delete(one, reader.token), 403);

    for (const token of [outsider.token, foreign.owner.token]) {
      assertError(await ctx.get(list, token), 404);
      assertError(await ctx.get(one, token), 404);
      assertError(await ctx.post(list, token, parameterBody({ key: 'o' })), 404);
      assertError(await ctx.patch(one, token, update), 404);
      assertError(await ctx.delete(one, token), 404);
    }
    for (const [method, path] of [
      ['GET', list],
      ['POST', list],
      ['GET', one],
      ['PATCH', one],
      ['DELETE', one],
    ]) {
      assertError(await ctx.request(method!, path!, { token: null, body: update }), 401);
    }
    assert.equal((await ctx.get(one, org.owner.token)).body.data.attributes.value, 'v');

    assertStatus(await ctx.patch(one, manager.token, update), 200);
    assertStatus(await ctx.post(list, manager.token, parameterBody({ key: 'm' })), 201);
    const byToken = await ctx.post(list, orgToken, parameterBody({ key: 't', value: 'x' }));
    assertStatus(byToken, 201);
    assertStatus(await ctx.delete(`${list}/${byToken.body.data.id}`, orgToken), 204);
    assertStatus(await ctx.delete(one, manager.token), 204);
  });

  describe('bounds: no member of manage-policies can make a parameter list unbounded', () => {
    /** Rows straight into the database: fast set-up, and the way a set filled before the caps looks. */
    async function seed(setId: string, count: number, value: string, from = 0) {
      for (let i = from; i < from + count; i++) {
        const at = now();
        const parameter = {
          id: newId('var'),
          policySetId: setId,
          key: `seeded-${i}`,
          category: 'policy-set' as const,
          sensitive: false,
          value: null,
          createdAt: at,
          updatedAt: at,
        };
        await insertParameter(ctx.database.db, parameter, { value, encryptedValue: null });
      }
    }

    it('caps each value at 256 KiB of UTF-8, on create and update, sensitive or not', async () => {
      const org = await ctx.organization();
      const set = await createPolicySet(ctx, org);
      const t = org.owner.token;
      assertStatus(await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'full', value: 'x'.repeat(MAX_VALUE) })), 201);
      const big = assertError(
        await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'big', value: 'x'.repeat(MAX_VALUE + 1) })),
        422,
        '/data/attributes/value',
      );
      assert.equal(big.detail, 'Value is too long (maximum is 256 KiB)');
      // Bytes, not characters: 'é' is two.
      assertError(await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'wide', value: 'é'.repeat(MAX_VALUE / 2 + 1) })), 422, '/data/attributes/value');
      assertError(
        await ctx.post(paramsOf(set.id), t, parameterBody({ key: 'secret', value: 'x'.repeat(MAX_VALUE + 1), sensitive: true })),
        422,
        '/data/attributes/value',
      );
      const p = await createParameter(ctx, t, set.id, { key: 'small', value: 'v' });
      assertError(
        await ctx.patch(`${paramsOf(set.id)}/${p.id}`, t, parameterUpdate(p.id, { value: 'x'.repeat(MAX_VALUE + 1) })),
        422,
        '/data/attributes/value',
      );
      const keys = (await ctx.get(paramsOf(set.id), t)).body.data.map((x: any) => x.attributes.key);
      assert.deepEqual(keys, ['full', 'small']);
      assert.equal((await ctx.get(`${paramsOf(set.id)}/${p.id}`, t)).body.data.attributes.value, 'v');
    });

    it('caps a policy set at 100 parameters (409), even under concurrent creates', async () => {
      const org = await ctx.organization();
      const set = await createPolicySet(ctx, org);
      await seed(set.id, MAX_PARAMETERS - 2, 'v');
      const results = await Promise.all([1, 2, 3, 4].map((i) => ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: `racer-${i}`, value: 'v' }))));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 201, 409, 409]);
      const refused = results.find((r) => r.status === 409)!;
      assertError(refused, 409);
      assert.equal(refused.body.errors[0].detail, 'A policy set holds at most 100 parameters');
      const list = await ctx.get(paramsOf(set.id), org.owner.token);
      assert.equal(list.body.data.length, MAX_PARAMETERS);
      // Another set is not affected, and deleting one makes room.
      assertStatus(await ctx.post(paramsOf((await createPolicySet(ctx, org)).id), org.owner.token, parameterBody({ key: 'k' })), 201);
      assertStatus(await ctx.delete(`${paramsOf(set.id)}/${list.body.data[0].id}`, org.owner.token), 204);
      assertStatus(await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'room', value: 'v' })), 201);
    });

    it('keeps every list within its bound: the whole list of a full set, and a set filled before the caps as pages', async () => {
      const org = await ctx.organization();
      const set = await createPolicySet(ctx, org);
      await seed(set.id, MAX_PARAMETERS - 1, 'x'.repeat(MAX_VALUE));
      assertStatus(await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'last', value: 'x'.repeat(MAX_VALUE) })), 201);
      assertError(await ctx.post(paramsOf(set.id), org.owner.token, parameterBody({ key: 'one-more', value: 'x'.repeat(MAX_VALUE) })), 409);
      const whole = await ctx.get(paramsOf(set.id), org.owner.token);
      assertStatus(whole, 200);
      assert.equal(whole.body.data.length, MAX_PARAMETERS);
      assert.equal(whole.body.meta, undefined);
      const bound = MAX_PARAMETERS * (MAX_VALUE + 1024);
      assert.ok(whole.raw.length <= bound, `${whole.raw.length} bytes is over ${bound}`);

      // More rows than the cap (only possible for sets filled before it): the first 100, with
      // pagination that says there is more.
      await seed(set.id, 5, 'small', MAX_PARAMETERS);
      const first = await ctx.get(paramsOf(set.id), org.owner.token);
      assert.equal(first.body.data.length, MAX_PARAMETERS);
      assert.equal(first.body.meta.pagination['total-count'], MAX_PARAMETERS + 5);
      assert.ok(first.raw.length <= bound);
      const rest = await ctx.get(first.body.links.next.replace(/^https?:\/\/[^/]+/, ''), org.owner.token);
      assert.equal(rest.body.data.length, 5);
    });
  });
});

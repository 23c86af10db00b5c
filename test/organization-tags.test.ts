// An organization's tags (go-tfe's OrganizationTags): the list with workspace counts, deleting
// tags from every workspace, and adding a tag to workspaces by its id.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';

const flat = (...names: string[]) => ({ data: names.map((name) => ({ type: 'tags', attributes: { name } })) });
const tagRefs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'tags', id })) });
const workspaceRefs = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'workspaces', id })) });

suite('organization tags', (ctx) => {
  let org: Org;
  let other: Org;
  const tagsUrl = (o: Org, query = '') => `/api/v2/organizations/${o.name}/tags${query}`;
  const addUrl = (tagId: string) => `/api/v2/tags/${tagId}/relationships/workspaces`;
  const flatUrl = (workspaceId: string) => `/api/v2/workspaces/${workspaceId}/relationships/tags`;

  const tag = async (workspaceId: string, ...names: string[]) => assertStatus(await ctx.post(flatUrl(workspaceId), org.owner.token, flat(...names)), 204);
  /** The workspace's flat tags, by name. */
  const namesOn = async (workspaceId: string) => {
    const res = await ctx.get(flatUrl(workspaceId), org.owner.token);
    assertStatus(res, 200);
    return res.body.data.map((t: any) => t.attributes.name).sort();
  };
  /** name → the organization's tag resource, for every tag of `o`. */
  const listed = async (o: Org = org, token = o.owner.token) => {
    const res = await ctx.get(tagsUrl(o, '?page%5Bsize%5D=100'), token);
    assertStatus(res, 200);
    return new Map<string, any>(res.body.data.map((t: any) => [t.attributes.name, t]));
  };
  const idOf = async (name: string, o: Org = org) => {
    const found = (await listed(o)).get(name);
    assert.ok(found, `tag ${name} is listed`);
    return found.id as string;
  };

  it('lists the tags with how many workspaces carry each, by name, with the organization', async () => {
    org = await ctx.organization();
    other = await ctx.organization();
    const w1 = await createWorkspace(ctx, org);
    const w2 = await createWorkspace(ctx, org);
    await tag(w1.id, 'beta', 'alpha', 'gamma');
    await tag(w2.id, 'beta');
    // A key with a value is a flat tag too (its key), and counts.
    assertStatus(
      await ctx.patch(`/api/v2/workspaces/${w2.id}/tag-bindings`, org.owner.token, {
        data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'prod' } }],
      }),
      200,
    );
    // Another organization's tag of the same name is not this one's.
    const elsewhere = await createWorkspace(ctx, other);
    assertStatus(await ctx.post(flatUrl(elsewhere.id), other.owner.token, flat('beta')), 204);

    const res = await ctx.get(tagsUrl(org), org.owner.token);
    assertStatus(res, 200);
    assert.deepEqual(
      res.body.data.map((t: any) => [t.attributes.name, t.attributes['instance-count']]),
      [
        ['alpha', 1],
        ['beta', 2],
        ['env', 1],
        ['gamma', 1],
      ],
    );
    for (const t of res.body.data) {
      assert.equal(t.type, 'tags');
      assert.match(t.id, /^tag-/);
      assert.match(t.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(t.relationships.organization.data, { id: org.name, type: 'organizations' });
    }
    assert.equal(res.body.meta.pagination['total-count'], 4);
    // The ids are those the workspace's flat tag list names.
    const onW2 = await ctx.get(flatUrl(w2.id), org.owner.token);
    assert.deepEqual(onW2.body.data.map((t: any) => t.id).sort(), [(await listed()).get('beta').id, (await listed()).get('env').id].sort());
    assert.equal((await listed(other)).get('beta')['attributes']['instance-count'], 1);
    assert.notEqual((await listed(other)).get('beta').id, (await listed()).get('beta').id);
  });

  it('pages, searches by name (q) and leaves out the tags of a workspace (filter[exclude][taggable][id])', async () => {
    const page = await ctx.get(tagsUrl(org, '?page%5Bsize%5D=3&page%5Bnumber%5D=2'), org.owner.token);
    assertStatus(page, 200);
    assert.deepEqual(
      page.body.data.map((t: any) => t.attributes.name),
      ['gamma'],
    );
    assert.equal(page.body.meta.pagination['total-pages'], 2);
    assert.equal(page.body.meta.pagination['current-page'], 2);

    const searched = await ctx.get(tagsUrl(org, '?q=MM'), org.owner.token);
    assert.deepEqual(
      searched.body.data.map((t: any) => t.attributes.name),
      ['gamma'],
      'a case-insensitive substring of the name',
    );
    assert.equal(searched.body.meta.pagination['total-count'], 1);
    // LIKE's wildcards are themselves.
    assert.deepEqual((await ctx.get(tagsUrl(org, '?q=%25'), org.owner.token)).body.data, []);

    const w = await createWorkspace(ctx, org);
    await tag(w.id, 'alpha', 'env');
    const excluded = await ctx.get(tagsUrl(org, `?filter%5Bexclude%5D%5Btaggable%5D%5Bid%5D=${w.id}`), org.owner.token);
    assertStatus(excluded, 200);
    assert.deepEqual(
      excluded.body.data.map((t: any) => t.attributes.name),
      ['beta', 'gamma'],
    );
    assert.equal(excluded.body.meta.pagination['total-count'], 2);
    // An id naming no workspace (go-tfe's own test sends a tag id) excludes nothing.
    const alphaId = await idOf('alpha');
    const byTagId = await ctx.get(tagsUrl(org, `?filter%5Bexclude%5D%5Btaggable%5D%5Bid%5D=${alphaId}`), org.owner.token);
    assert.equal(byTagId.body.data.length, 4);
  });

  it('excludes nothing for a workspace the caller cannot see, or of another organization', async () => {
    const hidden = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, hidden.id);
    await tag(w.id, 'alpha');
    const member = await ctx.member(org);
    const query = `?filter%5Bexclude%5D%5Btaggable%5D%5Bid%5D=${w.id}`;
    const asMember = await ctx.get(tagsUrl(org, query), member.token);
    assertStatus(asMember, 200);
    assert.ok(
      asMember.body.data.some((t: any) => t.attributes.name === 'alpha'),
      'the hidden workspace does not filter',
    );
    const asOwner = await ctx.get(tagsUrl(org, query), org.owner.token);
    assert.ok(!asOwner.body.data.some((t: any) => t.attributes.name === 'alpha'), 'the owner sees the workspace, so it filters');
    const foreign = await createWorkspace(ctx, other);
    assertStatus(await ctx.post(flatUrl(foreign.id), other.owner.token, flat('alpha')), 204);
    assert.equal((await ctx.get(tagsUrl(org, `?filter%5Bexclude%5D%5Btaggable%5D%5Bid%5D=${foreign.id}`), org.owner.token)).body.data.length, 4);
  });

  it('keeps a tag no workspace carries any more, counted 0', async () => {
    const o = await ctx.organization();
    const w = await createWorkspace(ctx, o);
    assertStatus(await ctx.post(flatUrl(w.id), o.owner.token, flat('gone')), 204);
    assertStatus(await ctx.delete(flatUrl(w.id), o.owner.token, flat('gone')), 204);
    assert.equal((await listed(o)).get('gone')['attributes']['instance-count'], 0);
  });

  it('lists a page with the same number of queries whatever its size', async () => {
    const o = await ctx.organization();
    for (let i = 0; i < 4; i++) {
      const w = await createWorkspace(ctx, o);
      assertStatus(await ctx.post(flatUrl(w.id), o.owner.token, flat(...Array.from({ length: 5 }, (_, j) => `t${i}-${j}`), 'shared')), 204);
    }
    const one = await ctx.countQueries(() => ctx.get(tagsUrl(o, '?page%5Bsize%5D=1'), o.owner.token));
    const many = await ctx.countQueries(() => ctx.get(tagsUrl(o, '?page%5Bsize%5D=21'), o.owner.token));
    assertStatus(one.result, 200);
    assert.equal(one.result.body.data.length, 1);
    assert.equal(many.result.body.data.length, 21);
    assert.equal(many.queries, one.queries);
    assert.equal((await listed(o)).get('shared')['attributes']['instance-count'], 4);
  });

  it('refuses list callers outside the organization (404) and without a token (401); 400 for a bad page', async () => {
    assertError(await ctx.get(tagsUrl(org), other.owner.token), 404);
    assertError(await ctx.get(tagsUrl(org), null), 401);
    assertError(await ctx.get(`/api/v2/organizations/${unique('nope')}/tags`, org.owner.token), 404);
    assertError(await ctx.get(tagsUrl(org, '?page%5Bsize%5D=x'), org.owner.token), 400);
    const member = await ctx.member(org);
    assertStatus(await ctx.get(tagsUrl(org), member.token), 200);
  });

  it('deletes tags from every workspace of the organization, and forgets their ids', async () => {
    const o = await ctx.organization();
    const w1 = await createWorkspace(ctx, o);
    const w2 = await createWorkspace(ctx, o);
    for (const w of [w1, w2]) assertStatus(await ctx.post(flatUrl(w.id), o.owner.token, flat('drop', 'keep', 'also')), 204);
    const foreign = await createWorkspace(ctx, other);
    assertStatus(await ctx.post(flatUrl(foreign.id), other.owner.token, flat('drop')), 204);
    const before = await listed(o);
    const res = await ctx.delete(tagsUrl(o), o.owner.token, tagRefs(before.get('drop').id, before.get('also').id));
    assertStatus(res, 204);
    assert.equal(res.raw, '');
    const after = await listed(o);
    assert.deepEqual([...after.keys()], ['keep']);
    assert.equal(after.get('keep').id, before.get('keep').id);
    for (const w of [w1, w2]) {
      const names = (await ctx.get(flatUrl(w.id), o.owner.token)).body.data.map((t: any) => t.attributes.name);
      assert.deepEqual(names, ['keep']);
    }
    // Another organization's tag of the same name stays.
    assert.equal((await listed(other)).get('drop')['attributes']['instance-count'], 1);
    // The name used again is a new tag.
    assertStatus(await ctx.post(flatUrl(w1.id), o.owner.token, flat('drop')), 204);
    assert.notEqual((await listed(o)).get('drop').id, before.get('drop').id);
  });

  it('deletes nothing when one id is not a tag of the organization (422 at its id)', async () => {
    const w = await createWorkspace(ctx, org);
    await tag(w.id, 'delta');
    const delta = await idOf('delta');
    const foreign = await idOf('beta', other);
    const unknown = await ctx.delete(tagsUrl(org), org.owner.token, tagRefs(delta, 'tag-doesnotexist00'));
    assertError(unknown, 422, '/data/1/id');
    assertError(await ctx.delete(tagsUrl(org), org.owner.token, tagRefs(foreign)), 422, '/data/0/id');
    assert.ok((await namesOn(w.id)).includes('delta'));
    assert.ok((await listed()).has('delta'));
    assert.ok((await listed(other)).has('beta'));
  });

  it('answers bad delete bodies with 422 at the member, a wrong content type with 415', async () => {
    const delta = await idOf('delta');
    assertError(await ctx.delete(tagsUrl(org), org.owner.token, { data: [] }), 422, '/data');
    assertError(await ctx.delete(tagsUrl(org), org.owner.token, { data: [{ type: 'workspaces', id: delta }] }), 422, '/data/0/type');
    assertError(await ctx.delete(tagsUrl(org), org.owner.token, { data: [{ type: 'tags' }] }), 422, '/data/0/id');
    assertError(await ctx.delete(tagsUrl(org), org.owner.token, { data: { type: 'tags', id: delta } }), 422, '/data');
    assertError(await ctx.request('DELETE', tagsUrl(org), { token: org.owner.token, body: tagRefs(delta), contentType: 'application/json' }), 415);
    assert.ok((await listed()).has('delta'));
  });

  it('refuses delete callers outside the organization (404), without a token (401), and who may not manage every holder (403)', async () => {
    const delta = await idOf('delta');
    assertError(await ctx.delete(tagsUrl(org), other.owner.token, tagRefs(delta)), 404);
    assertError(await ctx.delete(tagsUrl(org), null, tagRefs(delta)), 401);
    const member = await ctx.member(org);
    const refused = assertError(await ctx.delete(tagsUrl(org), member.token, tagRefs(delta)), 403);
    assert.doesNotMatch(refused.detail ?? '', /ws-/, 'names no workspace the caller may not see');

    // Admin of one project, but the tag is on a workspace of another too: nothing changes.
    const mine = await createProject(ctx, org);
    const theirs = await createProject(ctx, org);
    const admin = await memberWithAccess(ctx, org, [
      [mine.id, 'admin'],
      [theirs.id, 'read'],
    ]);
    const inMine = await createWorkspace(ctx, org, mine.id);
    const inTheirs = await createWorkspace(ctx, org, theirs.id);
    await tag(inMine.id, 'split');
    await tag(inTheirs.id, 'split');
    const split = await idOf('split');
    assertError(await ctx.delete(tagsUrl(org), admin.token, tagRefs(split)), 403);
    assert.deepEqual(await namesOn(inMine.id), ['split']);
    assert.deepEqual(await namesOn(inTheirs.id), ['split']);
    // Once the tag is only on its own project's workspace, the admin may delete it.
    assertStatus(await ctx.delete(flatUrl(inTheirs.id), org.owner.token, flat('split')), 204);
    assertStatus(await ctx.delete(tagsUrl(org), admin.token, tagRefs(split)), 204);
    assert.deepEqual(await namesOn(inMine.id), []);
    assert.ok(!(await listed()).has('split'));
  });

  it('adds a tag to workspaces by its id; a workspace binding the key keeps its value', async () => {
    const source = await createWorkspace(ctx, org);
    await tag(source.id, 'shared-tag');
    const id = await idOf('shared-tag');
    const a = await createWorkspace(ctx, org);
    const b = await createWorkspace(ctx, org);
    assertStatus(
      await ctx.patch(`/api/v2/workspaces/${b.id}/tag-bindings`, org.owner.token, {
        data: [{ type: 'tag-bindings', attributes: { key: 'shared-tag', value: 'v1' } }],
      }),
      200,
    );
    const res = await ctx.post(addUrl(id), org.owner.token, workspaceRefs(a.id, b.id, a.id));
    assertStatus(res, 204);
    assert.equal(res.raw, '');
    const onA = await ctx.get(flatUrl(a.id), org.owner.token);
    assert.deepEqual(
      onA.body.data.map((t: any) => [t.id, t.attributes.name]),
      [[id, 'shared-tag']],
    );
    const bindingsOfB = await ctx.get(`/api/v2/workspaces/${b.id}/tag-bindings`, org.owner.token);
    assert.deepEqual(
      bindingsOfB.body.data.map((t: any) => [t.attributes.key, t.attributes.value]),
      [['shared-tag', 'v1']],
    );
    assert.equal((await listed()).get('shared-tag')['attributes']['instance-count'], 3);
    // Again: no change.
    assertStatus(await ctx.post(addUrl(id), org.owner.token, workspaceRefs(a.id)), 204);
    assert.deepEqual(await namesOn(a.id), ['shared-tag']);
  });

  it('adds to no workspace when one is unknown, of another organization or full (422 at its place)', async () => {
    const id = await idOf('shared-tag');
    const fresh = await createWorkspace(ctx, org);
    const foreign = await createWorkspace(ctx, other);
    assertError(await ctx.post(addUrl(id), org.owner.token, workspaceRefs(fresh.id, 'ws-doesnotexist000')), 422, '/data/1/id');
    assertError(await ctx.post(addUrl(id), org.owner.token, workspaceRefs(fresh.id, foreign.id)), 422, '/data/1/id');
    const full = await createWorkspace(ctx, org);
    await tag(full.id, ...Array.from({ length: 10 }, (_, i) => `f${i}`));
    assertError(await ctx.post(addUrl(id), org.owner.token, workspaceRefs(fresh.id, full.id)), 422, '/data/1');
    assertError(await ctx.post(addUrl(id), org.owner.token, workspaceRefs(fresh.id, fresh.id, full.id)), 422, '/data/2');
    assert.deepEqual(await namesOn(fresh.id), []);
    assert.equal((await namesOn(full.id)).length, 10);
  });

  it('answers an unknown tag with 404, bad add bodies with 422 at the member, a wrong content type with 415', async () => {
    const id = await idOf('shared-tag');
    const w = await createWorkspace(ctx, org);
    assertError(await ctx.post(addUrl('tag-doesnotexist00'), org.owner.token, workspaceRefs(w.id)), 404);
    assertError(await ctx.post(addUrl('nonsense'), org.owner.token, workspaceRefs(w.id)), 404);
    assertError(await ctx.post(addUrl(id), org.owner.token, { data: [] }), 422, '/data');
    assertError(await ctx.post(addUrl(id), org.owner.token, { data: [{ type: 'tags', id: w.id }] }), 422, '/data/0/type');
    assertError(await ctx.post(addUrl(id), org.owner.token, { data: [{ type: 'workspaces', id: 7 }] }), 422, '/data/0/id');
    assertError(await ctx.request('POST', addUrl(id), { token: org.owner.token, body: workspaceRefs(w.id), contentType: 'application/json' }), 415);
    assert.deepEqual(await namesOn(w.id), []);
  });

  it("refuses add callers outside the tag's organization (404), without a token (401), and who may not manage every workspace", async () => {
    const id = await idOf('shared-tag');
    const w = await createWorkspace(ctx, org);
    assertError(await ctx.post(addUrl(id), other.owner.token, workspaceRefs(w.id)), 404);
    // Not even with a workspace of its own organization.
    const foreign = await createWorkspace(ctx, other);
    assertError(await ctx.post(addUrl(id), other.owner.token, workspaceRefs(foreign.id)), 404);
    assertError(await ctx.post(addUrl(id), null, workspaceRefs(w.id)), 401);
    // A member who cannot see the workspace is told it is not found, as for one that does not exist.
    const member = await ctx.member(org);
    assertError(await ctx.post(addUrl(id), member.token, workspaceRefs(w.id)), 422, '/data/0/id');

    const mine = await createProject(ctx, org);
    const readOnly = await createProject(ctx, org);
    const admin = await memberWithAccess(ctx, org, [
      [mine.id, 'admin'],
      [readOnly.id, 'read'],
    ]);
    const inMine = await createWorkspace(ctx, org, mine.id);
    const inReadOnly = await createWorkspace(ctx, org, readOnly.id);
    const refused = assertError(await ctx.post(addUrl(id), admin.token, workspaceRefs(inMine.id, inReadOnly.id)), 403);
    assert.match(refused.detail ?? '', new RegExp(inReadOnly.id));
    assert.doesNotMatch(refused.detail ?? '', new RegExp(inMine.id));
    assert.deepEqual(await namesOn(inMine.id), [], 'all or nothing');
    assertStatus(await ctx.post(addUrl(id), admin.token, workspaceRefs(inMine.id)), 204);
    assert.deepEqual(await namesOn(inMine.id), ['shared-tag']);
    // Neither a tag id nor a workspace id is echoed as a secret would be: errors carry no token.
    assert.doesNotMatch(refused.detail ?? '', /atlasv1/);
  });
});

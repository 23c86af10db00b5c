import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, memberWithAccess, type Org } from './helpers/projects.ts';

type Pair = [key: string, value?: string];
const bindings = (...pairs: Pair[]) => pairs.map(([key, value]) => ({ type: 'tag-bindings', attributes: value === undefined ? { key } : { key, value } }));
const body = (...pairs: Pair[]) => ({ data: bindings(...pairs) });
const pairsOf = (res: { body: any }) => res.body.data.map((b: any) => [b.attributes.key, b.attributes.value]);
const names = (res: { body: any }) => res.body.data.map((w: any) => w.attributes.name).sort();
const flat = (...names: string[]) => ({ data: names.map((name) => ({ type: 'tags', attributes: { name } })) });

suite('tags', (ctx) => {
  let org: Org;
  const wsUrl = (id: string, rest = '') => `/api/v2/workspaces/${id}${rest}`;
  const prjUrl = (id: string, rest = '') => `/api/v2/projects/${id}${rest}`;
  const createWs = async (attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}, projectId?: string) => {
    const res = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: {
        type: 'workspaces',
        attributes: { name: unique('ws'), ...attributes },
        relationships: { ...relationships, ...(projectId ? { project: { data: { type: 'projects', id: projectId } } } : {}) },
      },
    });
    assertStatus(res, 201);
    return res.body.data;
  };

  it('creates a workspace with tag bindings, flat tags and tag names; key-only tags have the value ""', async () => {
    org = await ctx.organization();
    const w = await createWs({ 'tag-names': ['legacy'] }, { 'tag-bindings': { data: bindings(['env', 'prod'], ['team']) }, tags: flat('old') });
    assert.deepEqual(w.attributes['tag-names'], ['env', 'team', 'legacy', 'old']);
    assert.equal(w.relationships['tag-bindings'].links.related, `/api/v2/workspaces/${w.id}/tag-bindings`);
    assert.equal(w.relationships['effective-tag-bindings'].links.related, `/api/v2/workspaces/${w.id}/effective-tag-bindings`);
    const listed = await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token);
    assertStatus(listed, 200);
    assert.deepEqual(pairsOf(listed), [
      ['env', 'prod'],
      ['team', ''],
      ['legacy', ''],
      ['old', ''],
    ]);
    assert.ok(listed.body.data.every((b: any) => b.type === 'tag-bindings' && b.id.startsWith('tb-')));
    const read = await ctx.get(`/api/v2/organizations/${org.name}/workspaces/${w.attributes.name}`, org.owner.token);
    assert.deepEqual(read.body.data.attributes['tag-names'], ['env', 'team', 'legacy', 'old']);
  });

  it('adds and changes bindings with PATCH …/tag-bindings, replaces them with relationships.tag-bindings, [] clears', async () => {
    const w = await createWs({}, { 'tag-bindings': { data: bindings(['a', '1'], ['b', '2']) } });
    const added = await ctx.patch(wsUrl(w.id, '/tag-bindings'), org.owner.token, body(['b', '3'], ['c']));
    assertStatus(added, 200);
    assert.deepEqual(
      pairsOf(added),
      [
        ['a', '1'],
        ['b', '3'],
        ['c', ''],
      ],
      'existing keys keep their place, new ones follow',
    );
    const replaced = await ctx.patch(wsUrl(w.id), org.owner.token, {
      data: { type: 'workspaces', relationships: { 'tag-bindings': { data: bindings(['z', '9']) } } },
    });
    assertStatus(replaced, 200);
    assert.deepEqual(replaced.body.data.attributes['tag-names'], ['z']);
    const cleared = await ctx.patch(wsUrl(w.id), org.owner.token, { data: { type: 'workspaces', relationships: { 'tag-bindings': { data: [] } } } });
    assertStatus(cleared, 200);
    assert.deepEqual(pairsOf(await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)), []);
    // An update that does not mention tags leaves them alone.
    await ctx.patch(wsUrl(w.id, '/tag-bindings'), org.owner.token, body(['keep', 'me']));
    await ctx.patch(wsUrl(w.id), org.owner.token, { data: { type: 'workspaces', attributes: { description: 'x' } } });
    assert.deepEqual(pairsOf(await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)), [['keep', 'me']]);
    // tag-names on update keeps the keys named (with their values) and adds the others key-only.
    const renamed = await ctx.patch(wsUrl(w.id), org.owner.token, { data: { type: 'workspaces', attributes: { 'tag-names': ['keep', 'new'] } } });
    assert.deepEqual(renamed.body.data.attributes['tag-names'], ['keep', 'new']);
    assert.deepEqual(pairsOf(await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)), [
      ['keep', 'me'],
      ['new', ''],
    ]);
  });

  it("inherits its project's bindings, its own key winning, with links.inherited-from; include=effective_tag_bindings", async () => {
    const p = await createProject(ctx, org);
    assertStatus(await ctx.patch(prjUrl(p.id, '/tag-bindings'), org.owner.token, body(['env', 'prod'], ['cost', 'c1'])), 200);
    const w = await createWs({}, { 'tag-bindings': { data: bindings(['env', 'dev'], ['own']) } }, p.id);
    const effective = await ctx.get(wsUrl(w.id, '/effective-tag-bindings'), org.owner.token);
    assertStatus(effective, 200);
    assert.deepEqual(pairsOf(effective), [
      ['env', 'dev'],
      ['own', ''],
      ['cost', 'c1'],
    ]);
    assert.deepEqual(
      effective.body.data.map((b: any) => b.links?.['inherited-from'] ?? null),
      [null, null, { id: p.id, type: 'projects' }],
    );
    assert.ok(effective.body.data.every((b: any) => b.type === 'effective-tag-bindings'));
    // Its own bindings do not include the inherited one.
    assert.deepEqual(pairsOf(await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)), [
      ['env', 'dev'],
      ['own', ''],
    ]);

    const shown = await ctx.get(wsUrl(w.id, '?include=effective_tag_bindings'), org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.relationships['effective-tag-bindings'].data.length, 3);
    assert.deepEqual(
      shown.body.included.map((b: any) => b.attributes.key),
      ['env', 'own', 'cost'],
    );
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/workspaces?filter[project][id]=${p.id}&include=effective_tag_bindings`, org.owner.token);
    assert.equal(listed.body.data.length, 1);
    assert.deepEqual(
      listed.body.included.map((b: any) => b.attributes.key),
      ['env', 'own', 'cost'],
    );
    const plain = await ctx.get(wsUrl(w.id), org.owner.token);
    assert.equal(plain.body.included, undefined);
    assert.equal(plain.body.data.relationships['effective-tag-bindings'].data, undefined);
  });

  it('filters workspaces by filter[tagged] (inherited too), search[tags] (all must be in effect) and search[exclude-tags]', async () => {
    const o = await ctx.organization();
    const post = (attributes: Record<string, unknown>, relationships: Record<string, unknown>, projectId?: string) =>
      ctx.post(`/api/v2/organizations/${o.name}/workspaces`, o.owner.token, {
        data: {
          type: 'workspaces',
          attributes,
          relationships: { ...relationships, ...(projectId ? { project: { data: { type: 'projects', id: projectId } } } : {}) },
        },
      });
    const p = await createProject(ctx, o);
    await ctx.patch(prjUrl(p.id, '/tag-bindings'), o.owner.token, body(['region', 'eu']));
    assertStatus(await post({ name: 'w1' }, { 'tag-bindings': { data: bindings(['key1', 'value1'], ['key2', 'value2a']) } }), 201);
    assertStatus(await post({ name: 'w2' }, { 'tag-bindings': { data: bindings(['key2', 'value2b'], ['key3']) } }), 201);
    assertStatus(await post({ name: 'w3', 'tag-names': ['key3'] }, {}, p.id), 201);
    assertStatus(await post({ name: 'w4' }, { 'tag-bindings': { data: bindings(['region', 'us']) } }, p.id), 201);
    const list = (q: string) => ctx.get(`/api/v2/organizations/${o.name}/workspaces?${q}`, o.owner.token);
    assert.deepEqual(names(await list('filter[tagged][0][key]=key1&filter[tagged][0][value]=')), ['w1']);
    assert.deepEqual(names(await list('filter[tagged][0][key]=key2')), ['w1', 'w2']);
    assert.deepEqual(names(await list('filter[tagged][0][key]=key2&filter[tagged][0][value]=value2b')), ['w2']);
    assert.deepEqual(names(await list('filter[tagged][0][key]=key2&filter[tagged][1][key]=key1')), ['w1'], 'every filter must hold');
    assert.deepEqual(names(await list('filter[tagged][0][key]=region&filter[tagged][0][value]=eu')), ['w3'], "w4's own value wins over its project's");
    assert.deepEqual(names(await list('filter[tagged][0][key]=region')), ['w3', 'w4']);
    assert.deepEqual(names(await list('search[tags]=key3')), ['w2', 'w3']);
    assert.deepEqual(names(await list('search[tags]=key3,region')), ['w3']);
    assert.deepEqual(names(await list('search[tags]=key2&search[exclude-tags]=key3')), ['w1']);
    assert.deepEqual(names(await list('search[exclude-tags]=region,key1')), ['w2']);
    assert.equal((await list('search[tags]=nothing')).body.meta.pagination['total-count'], 0);
    assertError(await list('filter[tagged][0][value]=x'), 400);
  });

  it('filters projects by filter[tagged]; include=effective_tag_bindings lists their bindings', async () => {
    const o = await ctx.organization();
    const mk = async (...pairs: Pair[]) => {
      const res = await ctx.post(`/api/v2/organizations/${o.name}/projects`, o.owner.token, {
        data: { type: 'projects', attributes: { name: unique('p').slice(0, 40) }, relationships: { 'tag-bindings': { data: bindings(...pairs) } } },
      });
      assertStatus(res, 201);
      return res.body.data.id as string;
    };
    const p1 = await mk(['key1', 'value1'], ['key2', 'value2a']);
    const p2 = await mk(['key2', 'value2b'], ['key3', 'value3']);
    const ids = async (q: string) => (await ctx.get(`/api/v2/organizations/${o.name}/projects?${q}`, o.owner.token)).body.data.map((p: any) => p.id).sort();
    assert.deepEqual(await ids('filter[tagged][0][key]=key1&filter[tagged][0][value]='), [p1]);
    assert.deepEqual(await ids('filter[tagged][0][key]=key2'), [p1, p2].sort());
    assert.deepEqual(await ids('filter[tagged][0][key]=key2&filter[tagged][0][value]=value2b'), [p2]);
    // Every tag must hold, each by a binding of its own key; one binding may answer two of them.
    assert.deepEqual(await ids('filter[tagged][0][key]=key2&filter[tagged][1][key]=key3'), [p2]);
    assert.deepEqual(await ids('filter[tagged][0][key]=key1&filter[tagged][1][key]=key3'), []);
    assert.deepEqual(await ids('filter[tagged][0][key]=key2&filter[tagged][1][key]=key2&filter[tagged][1][value]=value2a'), [p1]);
    assert.deepEqual(
      await ids('filter[tagged][0][key]=key2&filter[tagged][0][value]=value2a&filter[tagged][1][key]=key2&filter[tagged][1][value]=value2b'),
      [],
    );
    const included = await ctx.get(`/api/v2/organizations/${o.name}/projects?include=effective_tag_bindings`, o.owner.token);
    assert.equal(included.body.data[0].id, p2, 'newest first');
    assert.deepEqual(included.body.data[0].relationships['effective-tag-bindings'].data.length, 2);
    assert.deepEqual(included.body.included.map((b: any) => b.attributes.key).sort(), ['key1', 'key2', 'key2', 'key3']);
    const shown = await ctx.get(prjUrl(p1, '?include=effective_tag_bindings'), o.owner.token);
    assert.deepEqual(
      shown.body.included.map((b: any) => [b.attributes.key, b.attributes.value]),
      [
        ['key1', 'value1'],
        ['key2', 'value2a'],
      ],
    );
    assert.deepEqual(pairsOf(await ctx.get(prjUrl(p1, '/effective-tag-bindings'), o.owner.token)), [
      ['key1', 'value1'],
      ['key2', 'value2a'],
    ]);
    // go-tfe's DeleteAllTagBindings: a PATCH of the project with an empty relationship and nothing else.
    const cleared = await ctx.patch(prjUrl(p1), o.owner.token, { data: { type: 'projects', relationships: { 'tag-bindings': { data: [] } } } });
    assertStatus(cleared, 200);
    assert.deepEqual(pairsOf(await ctx.get(prjUrl(p1, '/tag-bindings'), o.owner.token)), []);
  });

  it('adds flat tags by name and by id, lists them with ids, removes them; an unknown id is a 422', async () => {
    const w1 = await createWs({});
    const w2 = await createWs({});
    assertStatus(await ctx.post(wsUrl(w1.id, '/relationships/tags'), org.owner.token, flat('tag1', 'tag2')), 204);
    assertStatus(await ctx.post(wsUrl(w2.id, '/relationships/tags'), org.owner.token, flat('byid')), 204);
    const other = await ctx.get(wsUrl(w2.id, '/relationships/tags'), org.owner.token);
    assertStatus(other, 200);
    const tagId = other.body.data[0].id;
    assert.match(tagId, /^tag-/);
    assertStatus(await ctx.post(wsUrl(w1.id, '/relationships/tags'), org.owner.token, { data: [{ type: 'tags', id: tagId }] }), 204);
    const listed = await ctx.get(wsUrl(w1.id, '/relationships/tags'), org.owner.token);
    assert.deepEqual(
      listed.body.data.map((t: any) => t.attributes.name),
      ['tag1', 'tag2', 'byid'],
    );
    assert.equal(listed.body.data[2].id, tagId, 'one id per name in the organization');
    assert.equal(listed.body.meta.pagination['total-count'], 3);
    // `name` searches the names, in any case.
    assert.equal((await ctx.get(wsUrl(w1.id, '/relationships/tags?name=TAG'), org.owner.token)).body.data.length, 2);
    assert.equal((await ctx.get(wsUrl(w1.id, '/relationships/tags?name=byi'), org.owner.token)).body.data.length, 1);

    assertStatus(
      await ctx.delete(wsUrl(w1.id, '/relationships/tags'), org.owner.token, {
        data: [
          { type: 'tags', attributes: { name: 'tag1' } },
          { type: 'tags', id: tagId },
          { type: 'tags', attributes: { name: 'absent' } },
        ],
      }),
      204,
    );
    assert.deepEqual((await ctx.get(wsUrl(w1.id), org.owner.token)).body.data.attributes['tag-names'], ['tag2']);

    // Another organization's tag id is unknown here.
    const o2 = await ctx.organization();
    const foreign = await createWorkspace(ctx, o2);
    await ctx.post(wsUrl(foreign.id, '/relationships/tags'), o2.owner.token, flat('theirs'));
    const theirs = (await ctx.get(wsUrl(foreign.id, '/relationships/tags'), o2.owner.token)).body.data[0].id;
    assertError(await ctx.post(wsUrl(w1.id, '/relationships/tags'), org.owner.token, { data: [{ type: 'tags', id: theirs }] }), 422, '/data/0/id');
    assertError(await ctx.post(wsUrl(w1.id, '/relationships/tags'), org.owner.token, flat('ok', 'bad tag')), 422, '/data/1/attributes/name');
  });

  it('validates keys, values and the limit of 10 as TFE does, 422 at each offending member, writing nothing', async () => {
    const w = await createWs({}, { 'tag-bindings': { data: bindings(['kept', 'v']) } });
    const patch = (...pairs: Pair[]) => ctx.patch(wsUrl(w.id, '/tag-bindings'), org.owner.token, body(...pairs));
    assertError(await patch(['ok'], ['bad key']), 422, '/data/1/attributes/key');
    assertError(await patch(['hc:reserved']), 422, '/data/0/attributes/key');
    assertError(await patch(['HCP:reserved']), 422, '/data/0/attributes/key');
    assertError(await patch(['']), 422, '/data/0/attributes/key');
    assertError(await patch(['k'.repeat(129)]), 422, '/data/0/attributes/key');
    assertError(await patch(['long', 'v'.repeat(257)]), 422, '/data/0/attributes/value');
    assertError(await patch(['spaced', 'a b']), 422, '/data/0/attributes/value');
    assertError(await patch(['twice', '1'], ['twice', '2']), 422, '/data/1/attributes/key');
    const many = Array.from({ length: 10 }, (_, i): Pair => [`k${i}`]);
    const limit = assertError(await patch(...many), 422, '/data');
    assert.match(limit.detail!, /cannot exceed 10 bindings per resource/);
    assertStatus(await patch(...many.slice(0, 9)), 200);
    assertError(await ctx.post(wsUrl(w.id, '/relationships/tags'), org.owner.token, flat('one-too-many')), 422, '/data');
    assert.equal((await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)).body.data.length, 10);
    // Accepted characters and sizes.
    const w2 = await createWs({});
    assertStatus(await ctx.patch(wsUrl(w2.id, '/tag-bindings'), org.owner.token, body(['a_b.c=d+e-f@g:h', 'x'.repeat(256)], ['k'.repeat(128)])), 200);

    // On create and update: the pointers of those bodies, and nothing created.
    const before = (await ctx.get(`/api/v2/organizations/${org.name}/workspaces?page[size]=100`, org.owner.token)).body.meta.pagination['total-count'];
    const bad = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: {
        type: 'workspaces',
        attributes: { name: unique('ws'), 'tag-names': ['fine', 'not fine'] },
        relationships: { 'tag-bindings': { data: bindings(['hcp:x']) } },
      },
    });
    assertError(bad, 422, '/data/relationships/tag-bindings/data/0/attributes/key');
    assertError(bad, 422, '/data/attributes/tag-names/1');
    const badFlat = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: {
        type: 'workspaces',
        attributes: { name: unique('ws') },
        relationships: {
          tags: {
            data: [
              { type: 'tags', attributes: { name: 'a b' } },
              { type: 'tags', id: 'tag-unknown' },
            ],
          },
        },
      },
    });
    assertError(badFlat, 422, '/data/relationships/tags/data/0/attributes/name');
    assert.equal((await ctx.get(`/api/v2/organizations/${org.name}/workspaces?page[size]=100`, org.owner.token)).body.meta.pagination['total-count'], before);
    const tooMany = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, {
      data: {
        type: 'projects',
        attributes: { name: unique('p') },
        relationships: { 'tag-bindings': { data: bindings(...Array.from({ length: 11 }, (_, i): Pair => [`k${i}`])) } },
      },
    });
    assertError(tooMany, 422, '/data/relationships/tag-bindings/data');
    assertError(
      await ctx.patch(wsUrl(w2.id), org.owner.token, { data: { type: 'workspaces', relationships: { 'tag-bindings': { data: bindings(['a b']) } } } }),
      422,
      '/data/relationships/tag-bindings/data/0/attributes/key',
    );
    // Wrong shapes are refused by the schema.
    assertError(await ctx.patch(wsUrl(w2.id, '/tag-bindings'), org.owner.token, { data: [{ type: 'tags', attributes: { key: 'x' } }] }), 422);
    assertError(await ctx.patch(wsUrl(w2.id, '/tag-bindings'), org.owner.token, { data: [{ type: 'tag-bindings', attributes: {} }] }), 422);
  });

  it('reads with the workspace or project, writes with update rights (403), hides them from others (404)', async () => {
    const p = await createProject(ctx, org);
    const w = await createWs({}, { 'tag-bindings': { data: bindings(['a', '1']) } }, p.id);
    const reader = await memberWithAccess(ctx, org, [[p.id, 'read']]);
    const maintainer = await memberWithAccess(ctx, org, [[p.id, 'maintain']]);
    const stranger = await ctx.member(org);
    const outsider = (await ctx.organization()).owner;

    for (const url of [
      wsUrl(w.id, '/tag-bindings'),
      wsUrl(w.id, '/effective-tag-bindings'),
      wsUrl(w.id, '/relationships/tags'),
      prjUrl(p.id, '/tag-bindings'),
      prjUrl(p.id, '/effective-tag-bindings'),
    ]) {
      assertStatus(await ctx.get(url, reader.token), 200);
      assertError(await ctx.get(url, stranger.token), 404);
      assertError(await ctx.get(url, outsider.token), 404);
      assertError(await ctx.get(url, null), 401);
    }
    assertError(await ctx.patch(wsUrl(w.id, '/tag-bindings'), reader.token, body(['b'])), 403);
    assertError(await ctx.post(wsUrl(w.id, '/relationships/tags'), reader.token, flat('b')), 403);
    assertError(await ctx.delete(wsUrl(w.id, '/relationships/tags'), reader.token, flat('a')), 403);
    assertError(await ctx.patch(prjUrl(p.id, '/tag-bindings'), reader.token, body(['b'])), 403);
    assertError(await ctx.patch(prjUrl(p.id), reader.token, { data: { type: 'projects', relationships: { 'tag-bindings': { data: [] } } } }), 403);
    assertError(await ctx.patch(wsUrl(w.id), reader.token, { data: { type: 'workspaces', relationships: { 'tag-bindings': { data: [] } } } }), 403);
    assertError(await ctx.patch(wsUrl(w.id, '/tag-bindings'), outsider.token, body(['b'])), 404);
    assertError(await ctx.patch(prjUrl(p.id, '/tag-bindings'), outsider.token, body(['b'])), 404);
    // `maintain` manages the workspace's settings (and so its tags), not the project's.
    assertStatus(await ctx.patch(wsUrl(w.id, '/tag-bindings'), maintainer.token, body(['b'])), 200);
    assertError(await ctx.patch(prjUrl(p.id, '/tag-bindings'), maintainer.token, body(['b'])), 403);
    // Nothing was written by the refused callers.
    assert.deepEqual(pairsOf(await ctx.get(wsUrl(w.id, '/tag-bindings'), org.owner.token)), [
      ['a', '1'],
      ['b', ''],
    ]);
    assert.deepEqual(pairsOf(await ctx.get(prjUrl(p.id, '/tag-bindings'), org.owner.token)), []);
  });

  it('answers unknown ids with 404, a wrong content type with 415, no token with 401', async () => {
    const w = await createWs({});
    const p = await createProject(ctx, org);
    for (const url of ['/api/v2/workspaces/ws-nope/tag-bindings', '/api/v2/projects/prj-nope/tag-bindings', `/api/v2/workspaces/${p.id}/tag-bindings`]) {
      assertError(await ctx.get(url, org.owner.token), 404);
      assertError(await ctx.patch(url, org.owner.token, body(['a'])), 404);
    }
    assertError(await ctx.post('/api/v2/workspaces/ws-nope/relationships/tags', org.owner.token, flat('a')), 404);
    for (const [method, url, payload] of [
      ['PATCH', wsUrl(w.id, '/tag-bindings'), body(['a'])],
      ['PATCH', prjUrl(p.id, '/tag-bindings'), body(['a'])],
      ['POST', wsUrl(w.id, '/relationships/tags'), flat('a')],
      ['DELETE', wsUrl(w.id, '/relationships/tags'), flat('a')],
    ] as const) {
      assertError(await ctx.request(method, url, { token: org.owner.token, body: payload, contentType: 'application/json' }), 415);
      assertError(await ctx.request(method, url, { body: payload }), 401);
    }
  });

  it('lists a page of workspaces with their tags in a fixed number of queries whatever its size', async () => {
    const o = await ctx.organization();
    const p = await createProject(ctx, o);
    await ctx.patch(prjUrl(p.id, '/tag-bindings'), o.owner.token, body(['inherited', 'yes']));
    for (let i = 0; i < 12; i++) {
      const w = await createWorkspace(ctx, o, p.id);
      await ctx.patch(wsUrl(w.id, '/tag-bindings'), o.owner.token, body(['env', 'prod'], [`n${i}`]));
    }
    const count = async (size: number) => {
      const { result, queries } = await ctx.countQueries(() =>
        ctx.get(
          `/api/v2/organizations/${o.name}/workspaces?page[size]=${size}&include=effective_tag_bindings&filter[tagged][0][key]=inherited&search[tags]=env`,
          o.owner.token,
        ),
      );
      assert.equal(result.body.data.length, size);
      assert.ok(result.body.data.every((w: any) => w.attributes['tag-names'].length === 2));
      return queries;
    };
    await count(1);
    const small = await count(2);
    const large = await count(12);
    assert.equal(large, small, `page of 12 ran ${large} queries, page of 2 ran ${small}`);
  });
});

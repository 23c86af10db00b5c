import { untilCaching } from './helpers/caches.ts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, type Org } from './helpers/projects.ts';

const names = (res: { body: any }) => res.body.data.map((p: any) => p.attributes.name);

suite('projects list', (ctx) => {
  let org: Org;
  const created: string[] = [];
  const list = (query = '') => ctx.get(`/api/v2/organizations/${org.name}/projects${query}`, org.owner.token);

  it('lists newest first by default, by name with sort=name, reversed with sort=-name', async () => {
    org = await ctx.organization();
    created.push('Default Project');
    for (const name of ['delta', 'Alpha', 'charlie_2', 'bravo 100', 'echo-x']) {
      await createProject(ctx, org, { name });
      created.push(name);
    }
    const byDefault = await list('?page[size]=100');
    assertStatus(byDefault, 200);
    assert.deepEqual(names(byDefault), [...created].reverse());
    const sorted = [...created].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    assert.deepEqual(names(await list('?sort=name')), sorted);
    assert.deepEqual(names(await list('?sort=-name')), [...sorted].reverse());
  });

  it('refuses any other sort, include or permission-filter value with 400', async () => {
    for (const query of [
      '?sort=created-at',
      '?sort=NAME',
      '?sort=',
      '?include=workspaces',
      '?filter[permissions][update]=maybe',
      '?page[number]=0',
      '?page[size]=x',
    ]) {
      const e = assertError(await list(query), 400);
      assert.ok(e.detail, query);
    }
    const ok = await list('?include=effective_tag_bindings');
    assertStatus(ok, 200);
    assert.deepEqual(ok.body.included, [], 'no project here has tag bindings to include');
  });

  it('keeps q= and the counts right through renames, deletes and a whole organization gone', async () => {
    const org = await ctx.organization();
    const url = (query: string) => `/api/v2/organizations/${org.name}/projects${query}`;
    const get = async (query: string) => (await ctx.get(url(query), org.owner.token)).body;
    const made = [];
    for (const name of ['Quartz one', 'quartzite', 'Granite']) made.push(await createProject(ctx, org, { name }));
    const found = async (q: string) => (await get(`?q=${encodeURIComponent(q)}`)).data.map((p: any) => p.attributes.name).sort();
    assert.deepEqual(await found('QUARTZ'), ['Quartz one', 'quartzite']);
    assert.deepEqual(await found('Z O'), ['Quartz one']);
    assert.deepEqual(await found('z "o'), [], 'a double quote is searched as itself, no syntax');
    assert.deepEqual(await found('one OR x*'), []);
    assert.deepEqual(await found('NIT'), ['Granite']);
    assertStatus(await ctx.patch(`/api/v2/projects/${made[2]!.id}`, org.owner.token, { data: { type: 'projects', attributes: { name: 'Basalt' } } }), 200);
    assert.deepEqual(await found('nit'), []);
    assert.deepEqual(await found('ASAL'), ['Basalt']);
    assertStatus(await ctx.delete(`/api/v2/projects/${made[1]!.id}`, org.owner.token), 204);
    assert.deepEqual(await found('quartz'), ['Quartz one']);
    const counts = (await get('?q=quartz')).meta;
    // The default project, Quartz one and Basalt.
    assert.deepEqual(counts['status-counts'], { total: 3, matching: 1 });
    assert.equal(counts.pagination['total-count'], 1);
    assert.equal((await get('')).meta.pagination['total-count'], 3);
    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    const left = await ctx.database.db.selectFrom('organization_project_counts').selectAll().execute();
    assert.ok(
      left.every((r) => Number(r.projects) >= 1),
      'no counter of a deleted organization, none at zero or below',
    );
  });

  it('searches names case-insensitively with q, treating % and _ literally', async () => {
    assert.deepEqual(names(await list('?q=ALP')), ['Alpha']);
    assert.deepEqual(names(await list('?q=a')).sort(), ['Alpha', 'Default Project', 'bravo 100', 'charlie_2', 'delta'].sort());
    assert.deepEqual(names(await list('?q=' + encodeURIComponent('%'))), []);
    assert.deepEqual(names(await list('?q=' + encodeURIComponent('e_'))), ['charlie_2']);
    assert.deepEqual(names(await list('?q=zzz')), []);
  });

  it('filters by exact names, any of them, case-insensitively; filter[names] wins over q', async () => {
    assert.deepEqual(names(await list('?filter[names]=alpha,DELTA,nope')).sort(), ['Alpha', 'delta']);
    assert.deepEqual(names(await list('?filter[names]=alp')), []);
    assert.deepEqual(names(await list('?filter[names]=delta&q=alpha')), ['delta']);
    assert.deepEqual(names(await list('?filter%5Bnames%5D=echo-x')), ['echo-x'], 'percent-encoded brackets work');
  });

  it('paginates with absolute links that keep the filters, and counts total and matching', async () => {
    const page1 = await list('?q=L&page[size]=2');
    assertStatus(page1, 200);
    assert.equal(page1.body.data.length, 2);
    assert.deepEqual(page1.body.meta['status-counts'], { total: created.length, matching: 4 });
    assert.deepEqual(page1.body.meta.pagination, {
      'current-page': 1,
      'page-size': 2,
      'prev-page': null,
      'next-page': 2,
      'total-pages': 2,
      'total-count': 4,
    });
    const next = new URL(page1.body.links.next);
    assert.equal(next.searchParams.get('q'), 'L');
    assert.equal(next.searchParams.get('page[number]'), '2');
    assert.match(page1.body.links.next, /page%5Bnumber%5D=2/);
    const page2 = await ctx.get(next.pathname + next.search, org.owner.token);
    assert.equal(page2.body.data.length, 2);
    const all = [...names(page1), ...names(page2)];
    assert.equal(new Set(all).size, 4, 'no project on both pages');
    const beyond = await list('?q=L&page[number]=9');
    assertStatus(beyond, 200);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.meta.pagination['current-page'], 9);
  });

  it('pages, sorts and counts a search of three characters or more, the match made once', async () => {
    // Three characters or more: SQLite's trigram index (made once for the page and the count), PostgreSQL's pg_trgm.
    const org = await ctx.organization();
    const matching = ['Quux 1', 'a-quux', 'QUUX b', 'zz quux', 'quuxquux'];
    const ids = new Map<string, string>();
    for (const name of ['other', ...matching, 'quu x', 'Qux']) ids.set(name, (await createProject(ctx, org, { name })).id);
    await createWorkspace(ctx, org, ids.get('a-quux'));
    await createWorkspace(ctx, org, ids.get('a-quux'));
    const total = matching.length + 4; // and the default project
    const get = (query: string, token = org.owner.token) => ctx.get(`/api/v2/organizations/${org.name}/projects?q=quux${query}`, token);
    const byName = [...matching].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    const pagesOf = async (query: string) => {
      const found: string[] = [];
      for (let n = 1; n <= 3; n++) {
        const { result, statements } = await ctx.statementsOf(() => get(`${query}&page[size]=2&page[number]=${n}`));
        assertStatus(result, 200);
        // PostgreSQL counts first and picks the page's plan by the counts (projects/store.ts).
        assert.equal(statements.length, ctx.dialect === 'sqlite' ? 1 : 2, `${query} page ${n}: statements`);
        if (ctx.dialect === 'sqlite') assert.equal(statements[0]!.split('projects_name_search match').length, 2, `${query} page ${n}: one trigram match`);
        assert.deepEqual(result.body.meta['status-counts'], { total, matching: matching.length }, `${query} page ${n}`);
        assert.equal(result.body.meta.pagination['total-count'], matching.length);
        found.push(...names(result));
      }
      return found;
    };
    assert.deepEqual(await pagesOf(''), [...matching].reverse(), 'newest first');
    assert.deepEqual(await pagesOf('&sort=name'), byName);
    assert.deepEqual(await pagesOf('&sort=-name'), [...byName].reverse());
    const first = await get('&sort=name&page[size]=1');
    assert.equal(first.body.data[0].attributes['workspace-count'], 2, "the page's rows keep their workspace counts");
    // Past the end: no row carries the counts, which a second statement reads.
    const { result: beyond, statements } = await ctx.statementsOf(() => get('&page[size]=2&page[number]=4'));
    assert.deepEqual(beyond.body.data, []);
    assert.deepEqual(beyond.body.meta['status-counts'], { total, matching: matching.length });
    assert.equal(statements.length, 2, 'past the end: the page, then the counts (PostgreSQL: the counts, then the page)');
    // A member sees and counts only what its team was granted.
    const member = await ctx.member(org);
    for (const name of ['a-quux', 'zz quux', 'other']) await grant(ctx, org, member.teamId, ids.get(name)!, 'read');
    const granted = await get('&sort=name', member.token);
    assert.deepEqual(names(granted), ['a-quux', 'zz quux']);
    assert.deepEqual(granted.body.meta['status-counts'], { total: 3, matching: 2 });
  });

  it('filters by what the caller may do, computed per caller', async () => {
    const [a, b, c] = await Promise.all(['perm-a', 'perm-b', 'perm-c'].map((name) => createProject(ctx, org, { name })));
    const member = await ctx.member(org);
    await grant(ctx, org, member.teamId, a!.id, 'read');
    await grant(ctx, org, member.teamId, b!.id, 'maintain');
    await grant(ctx, org, member.teamId, c!.id, 'custom', { 'project-access': { settings: 'update' } });
    const get = (query: string) => ctx.get(`/api/v2/organizations/${org.name}/projects${query}`, member.token);
    const all = await get('?sort=name');
    assert.deepEqual(names(all), ['perm-a', 'perm-b', 'perm-c']);
    assert.deepEqual(all.body.meta['status-counts'], { total: 3, matching: 3 });
    const creatable = await get('?sort=name&filter[permissions][create-workspace]=true');
    assert.deepEqual(names(creatable), ['perm-b']);
    assert.deepEqual(creatable.body.meta['status-counts'], { total: 3, matching: 1 });
    assert.deepEqual(names(await get('?sort=name&filter[permissions][update]')), ['perm-c']);
    assert.deepEqual(names(await get('?filter[permissions][update]&filter[permissions][create-workspace]')), []);
    assert.deepEqual(names(await get('?sort=name&filter[permissions][update]=false')), ['perm-a', 'perm-b', 'perm-c']);
    // The owner may do everything everywhere.
    const owner = await list('?filter[permissions][update]&filter[permissions][create-workspace]&page[size]=100');
    assert.equal(owner.body.meta['status-counts'].matching, owner.body.meta['status-counts'].total);
  });

  it('reads a page with a fixed number of queries whatever its size', async () => {
    const big = await ctx.organization();
    for (let i = 0; i < 30; i++) {
      const p = await createProject(ctx, big, { name: `bulk-${String(i).padStart(2, '0')}` });
      await createWorkspace(ctx, big, p.id);
    }
    const member = await ctx.member(big, { 'read-projects': true });
    const count = async (size: number) => {
      const { result, queries } = await ctx.countQueries(() =>
        ctx.get(`/api/v2/organizations/${big.name}/projects?page[size]=${size}&filter[permissions][update]=false`, member.token),
      );
      assert.equal(result.body.data.length, size);
      assert.ok(result.body.data.every((p: any) => p.attributes['workspace-count'] === (p.attributes.name === 'Default Project' ? 0 : 1)));
      return queries;
    };
    await untilCaching(ctx.database);
    await count(1); // warms the caller's token lookup
    const small = await count(2);
    const large = await count(30);
    assert.equal(large, small, `page of 30 ran ${large} queries, page of 2 ran ${small}`);
    assert.ok(large <= 10, `${large} queries`);
  });

  it('shows one project in one statement once the caller is cached, owner or member', async () => {
    const org = await ctx.organization();
    const made = await ctx.post(`/api/v2/organizations/${org.name}/projects`, org.owner.token, {
      data: { type: 'projects', attributes: { name: 'counted' } },
    });
    const member = await ctx.member(org, { 'read-projects': true });
    const granted = await ctx.member(org, {});
    await grant(ctx, org, granted.teamId, made.body.data.id, 'write');
    await createWorkspace(ctx, org, made.body.data.id);
    await untilCaching(ctx.database);
    const show = async (token: string) => {
      await ctx.get(`/api/v2/projects/${made.body.data.id}`, token); // warms the token's last-used-at
      const { result, queries } = await ctx.countQueries(() => ctx.get(`/api/v2/projects/${made.body.data.id}`, token));
      assert.equal(result.status, 200);
      assert.deepEqual([result.body.data.attributes['workspace-count'], result.body.data.attributes['team-count']], [1, 1]);
      return queries;
    };
    const asGranted = await show(granted.token);
    assert.equal(asGranted, 1, `a member with a team grant: ${asGranted} queries`);
    const asMember = await show(member.token);
    const asOwner = await show(org.owner.token);
    // The token, organization, standing and grants are cached once warm (db/changes.ts): the
    // project with its two counts is the one statement left.
    assert.equal(asMember, 1, `a member's show ran ${asMember} queries`);
    assert.equal(asOwner, 1, `an owner's show ran ${asOwner} queries`);
  });
});

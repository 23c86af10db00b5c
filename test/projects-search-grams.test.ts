// `q=` of one or two characters: an owner's count comes from the per-organization gram counters
// (migration 0014), which must equal what the search itself finds, through creates, renames and
// deletes. Every answer here is checked against a filter of the names this test made.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { createProject, projectBody, grant } from './helpers/projects.ts';

/**
 * Every 1–2 character search checked: mixed-case letters, digits, LIKE's special characters, a
 * space, and non-ASCII text (which the counters do not answer).
 */
const SEARCHES = ['a', 'A', 'aA', 'Al', 'ph', 'p', '7', '77', 'b7', '_', 'a_', '%', '\\', ' ', 'a ', '-', 'x', 'q', 'é', 'aé', 'ı'];

suite('projects list: q= of one or two characters', (ctx) => {
  it('counts and finds what a filter of the names finds, through creates, renames, deletes and an organization gone', async () => {
    const org = await ctx.organization();
    /** project id → name: what the organization holds. */
    const held = new Map<string, string>([[org.defaultProjectId, 'Default Project']]);
    const check = async (when: string) => {
      for (const q of SEARCHES) {
        const res = await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100&q=${encodeURIComponent(q)}`, org.owner.token);
        assertStatus(res, 200);
        const expected = [...held.values()].filter((n) => n.toLowerCase().includes(q.toLowerCase())).sort();
        const found = res.body.data.map((p: any) => p.attributes.name).sort();
        assert.deepEqual(found, expected, `q=${q} ${when}: items`);
        assert.deepEqual(res.body.meta['status-counts'], { total: held.size, matching: expected.length }, `q=${q} ${when}: counts`);
        assert.equal(res.body.meta.pagination['total-count'], expected.length, `q=${q} ${when}: total-count`);
      }
    };
    const create = async (name: string) => {
      const p = await createProject(ctx, org, { name });
      held.set(p.id, name);
      return p.id;
    };
    const rename = async (id: string, name: string) => {
      assertStatus(await ctx.patch(`/api/v2/projects/${id}`, org.owner.token, projectBody({ name })), 200);
      held.set(id, name);
    };
    const remove = async (id: string) => {
      assertStatus(await ctx.delete(`/api/v2/projects/${id}`, org.owner.token), 204);
      held.delete(id);
    };

    await check('with the default project only');
    const ids: Record<string, string> = {};
    for (const name of ['Alpha', 'alpha_2', 'ALPHA 3', 'ab7', '77-x', 'a_b', 'Mixed aA', 'zz top', 'aaaa']) ids[name] = await create(name);
    await check('after creates');
    await rename(ids['Alpha']!, 'Alpine'); // loses h, ph, ha; gains i, in, n, ne, e
    await rename(ids['aaaa']!, 'aaab'); // a repeated gram (a, aa) stays, once
    await rename(ids['ab7']!, 'AB7'); // case only: nothing changes
    await rename(ids['zz top']!, 'top-77'); // loses z, zz, ' ', 'z ', ' t'; gains 7, 77, -
    await check('after renames');
    await remove(ids['ALPHA 3']!);
    await remove(ids['77-x']!);
    await check('after deletes');
    await rename(org.defaultProjectId, 'Standard'); // the default project too
    await create('Default Project');
    await check('after renaming the default project and reusing its name');

    const orgId = (await ctx.database.db.selectFrom('organizations').select('id').where('name', '=', org.name).executeTakeFirstOrThrow()).id;
    assert.ok((await ctx.database.db.selectFrom('project_name_grams').select('gram').where('organization_id', '=', orgId).execute()).length > 0);
    assertStatus(await ctx.delete(`/api/v2/organizations/${org.name}`, org.owner.token), 204);
    const left = await ctx.database.db.selectFrom('project_name_grams').select('gram').where('organization_id', '=', orgId).execute();
    assert.deepEqual(left, [], 'no counter outlives its organization');
  });

  it("answers an owner's count from the counters, and anyone else's by a count", async () => {
    const org = await ctx.organization();
    const granted = await createProject(ctx, org, { name: 'granted-a' });
    await createProject(ctx, org, { name: 'other-a' });
    const member = await ctx.member(org, {});
    await grant(ctx, org, member.teamId, granted.id, 'read');
    // A count of the projects, or (SQLite, a trigram search) of the matched projects' rowids.
    const COUNT_OF_PROJECTS = /count\(\*\) as "n" from "(projects|name_matches)"/;
    const statements = async (q: string, token: string, more = '') => {
      const url = `/api/v2/organizations/${org.name}/projects?q=${encodeURIComponent(q)}${more}`;
      await ctx.get(url, token); // warms the caller's caches
      const { result, statements } = await ctx.statementsOf(() => ctx.get(url, token));
      assertStatus(result, 200);
      return { counts: result.body.meta['status-counts'], statements: statements.join('\n') };
    };
    for (const q of ['A', 'a-', '%', '_']) {
      const owner = await statements(q, org.owner.token);
      assert.match(owner.statements, /project_name_grams/, `q=${q}: the counters are read`);
      assert.doesNotMatch(owner.statements, COUNT_OF_PROJECTS, `q=${q}: no project is counted`);
    }
    assert.deepEqual((await statements('a', org.owner.token)).counts, { total: 3, matching: 3 });
    // An owner may do everything: a permission filter leaves the counters in use.
    assert.match((await statements('a', org.owner.token, '&filter[permissions][update]=true')).statements, /project_name_grams/);
    // What the counters cannot answer exactly is counted as before.
    for (const [q, token, more] of [
      ['é', org.owner.token, ''],
      ['ted', org.owner.token, ''],
      ['a', org.owner.token, '&filter[tagged][0][key]=env'],
      ['a', member.token, ''],
    ] as const) {
      const other = await statements(q, token, more);
      assert.doesNotMatch(other.statements, /project_name_grams/, `q=${q}${more}`);
      assert.match(other.statements, COUNT_OF_PROJECTS, `q=${q}${more}`);
    }
    assert.deepEqual((await statements('a', member.token)).counts, { total: 1, matching: 1 });
  });
});

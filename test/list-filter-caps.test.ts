// Every multi-value list filter takes at most MAX_FILTER_VALUES values: beyond, a 400 naming the
// parameter, never a query the database cannot take (SQLite refused ~1,000 tag keys with "Expression
// tree is too large", answered as a 500).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_FILTER_VALUES } from '../src/jsonapi/query.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { suite } from './helpers/harness.ts';

const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
const tagged = (n: number) =>
  keys(n)
    .map((k, i) => `filter[tagged][${i}][key]=${k}`)
    .join('&');

suite('list filter caps', (ctx) => {
  it('caps every multi-value filter of workspaces, projects and teams at 100 values, answering 400 naming the parameter', async () => {
    assert.equal(MAX_FILTER_VALUES, 100);
    const org = await ctx.organization();
    const t = org.owner.token;
    const cases: Array<[path: string, parameter: string, query: (n: number) => string]> = [
      ['workspaces', 'search[tags]', (n) => `search[tags]=${keys(n).join(',')}`],
      ['workspaces', 'search[exclude-tags]', (n) => `search[exclude-tags]=${keys(n).join(',')}`],
      ['workspaces', 'filter[tagged]', tagged],
      ['projects', 'filter[names]', (n) => `filter[names]=${keys(n).join(',')}`],
      ['projects', 'filter[tagged]', tagged],
      ['teams', 'filter[names]', (n) => `filter[names]=${keys(n).join(',')}`],
    ];
    for (const [path, parameter, query] of cases) {
      const url = (n: number) => `/api/v2/organizations/${org.name}/${path}?${query(n)}`;
      assertStatus(await ctx.get(url(MAX_FILTER_VALUES), t), 200);
      for (const n of [MAX_FILTER_VALUES + 1, 991]) {
        const res = await ctx.get(url(n), t);
        const error = assertError(res, 400);
        assert.equal((error as { source?: { parameter?: string } }).source?.parameter, parameter, `${path} ${parameter}: ${res.raw}`);
        assert.match(error.detail ?? '', new RegExp(`at most ${MAX_FILTER_VALUES}`));
      }
    }
    // Both tag filters at their caps together still make a query the database takes.
    assertStatus(
      await ctx.get(
        `/api/v2/organizations/${org.name}/workspaces?${tagged(100)}&search[tags]=${keys(100)
          .map((k) => `s${k}`)
          .join(',')}&search[exclude-tags]=${keys(100)
          .map((k) => `x${k}`)
          .join(',')}`,
        t,
      ),
      200,
    );
  });
});

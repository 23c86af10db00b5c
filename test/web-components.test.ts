// The web UI's paging rule, which every list page shares: the window a page reads and the pager
// it draws come from one `listPage`, so the rows shown and the links cannot disagree.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstRows, listPage, pager } from '../src/web/components.ts';

describe('web components: list paging', () => {
  it('reads the page number from the query, 1 for anything that is not a positive integer', () => {
    assert.deepEqual(listPage('3'), { number: 3, size: 20, offset: 40 });
    assert.deepEqual(listPage('2', 50), { number: 2, size: 50, offset: 50 });
    for (const bad of [undefined, '', '0', '-2', '1.5', 'abc', '1e12']) assert.deepEqual(listPage(bad), { number: 1, size: 20, offset: 0 }, String(bad));
    assert.deepEqual(firstRows(100), { number: 1, size: 100, offset: 0 });
  });

  it('draws previous and next links only where there is a page, keeping the other query values', () => {
    const first = String(pager({ base: '/app/acme/teams', query: { q: 'ops' }, page: listPage('1', 10), total: 25, noun: 'teams' }));
    assert.match(first, /Page 1 of 3 \(25 teams\)/);
    assert.doesNotMatch(first, /rel="prev"/);
    assert.match(first, /href="\/app\/acme\/teams\?q=ops&amp;page=2" rel="next"/);
    const last = String(pager({ base: '/app/acme/teams', query: {}, page: listPage('3', 10), total: 25 }));
    assert.match(last, /Page 3 of 3 \(25 in all\)/);
    assert.match(last, /href="\/app\/acme\/teams\?page=2" rel="prev"/);
    assert.doesNotMatch(last, /rel="next"/);
    // Page 2's previous link is the list itself, without `page=1`.
    assert.match(String(pager({ base: '/x', query: {}, page: listPage('2'), total: 30 })), /href="\/x" rel="prev"/);
    assert.match(String(pager({ base: '/x', query: {}, page: listPage(undefined), total: 0 })), /Page 1 of 1 \(0 in all\)/);
  });
});

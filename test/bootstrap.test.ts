// `hangar bootstrap`'s service: the named user exists afterwards and is a site admin, however
// many bootstraps run at once (instances, or CI's go-tfe shards, starting together).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique } from './helpers/harness.ts';

suite('bootstrap', (ctx) => {
  it('makes one site admin when several bootstraps race for the same new name', async () => {
    const username = unique('boot');
    const users = await Promise.all([1, 2, 3].map(() => ctx.services.users.ensureSiteAdmin(username)));
    assert.equal(new Set(users.map((u) => u.id)).size, 1, 'every bootstrap answers the same user');
    const stored = await ctx.services.users.findByUsername(username);
    assert.equal(stored?.id, users[0]!.id);
    assert.equal(stored?.isSiteAdmin, true);
  });

  it('makes an existing person a site admin, keeping their id', async () => {
    const person = await ctx.user();
    assert.equal((await ctx.services.users.findByUsername(person.username))?.isSiteAdmin, false);
    assert.equal((await ctx.services.users.ensureSiteAdmin(person.username)).id, person.id);
    assert.equal((await ctx.services.users.findByUsername(person.username))?.isSiteAdmin, true);
  });
});

// TFE's admin API for organizations: site admins list (search, paging, owners included), show
// and delete any organization; to anyone else the endpoints do not exist (404).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';

suite('admin organizations', (ctx) => {
  it('lists every organization to a site admin: search by name or e-mail, paging, owners included with their addresses', async () => {
    const a = await ctx.organization();
    const b = await ctx.organization();
    const admin = await ctx.user({ siteAdmin: true });

    const byName = await ctx.get(`/api/v2/admin/organizations?q=${a.name}&include=owners`, admin.token);
    assertStatus(byName, 200);
    assert.deepEqual(
      byName.body.data.map((o: any) => o.id),
      [a.name],
    );
    assert.equal(byName.body.meta.pagination['total-count'], 1);
    const shown = byName.body.data[0];
    assert.equal(shown.type, 'organizations');
    assert.equal(shown.attributes['notification-email'], `${a.name}@example.test`);
    assert.match(shown.attributes['external-id'], /^org-/);
    assert.equal(shown.attributes['is-disabled'], false);
    assert.equal(shown.attributes['workspace-limit'], null);
    // HANGAR_RUN_TIMEOUT's default, one hour, as TFE writes a timeout.
    assert.equal(shown.attributes['apply-timeout'], '1h');
    assert.deepEqual(shown.relationships.owners.data, [{ id: a.owner.id, type: 'users' }]);
    assert.deepEqual(
      byName.body.included.map((u: any) => [u.id, u.attributes.email]),
      [[a.owner.id, `${a.owner.username}@example.test`]],
    );

    // The notification e-mail is searched too; nothing matching is an empty page.
    const byEmail = await ctx.get(`/api/v2/admin/organizations?q=${b.name}@example`, admin.token);
    assert.deepEqual(
      byEmail.body.data.map((o: any) => o.id),
      [b.name],
    );
    assert.equal(byEmail.body.included, undefined);
    const none = await ctx.get('/api/v2/admin/organizations?q=no-such-organization-anywhere', admin.token);
    assert.deepEqual(none.body.data, []);
    assert.equal(none.body.meta.pagination['total-count'], 0);

    // Newest first, across every organization of the installation.
    const page = await ctx.get('/api/v2/admin/organizations?page[size]=2', admin.token);
    assertStatus(page, 200);
    assert.deepEqual(
      page.body.data.map((o: any) => o.id),
      [b.name, a.name],
    );
    assert.ok(page.body.meta.pagination['total-count'] >= 2);
    assertError(await ctx.get('/api/v2/admin/organizations?include=workspaces', admin.token), 400);
  });

  it('shows and deletes any organization for a site admin, everything in it with it', async () => {
    const org = await ctx.organization();
    const admin = await ctx.user({ siteAdmin: true });
    const shown = await ctx.get(`/api/v2/admin/organizations/${org.name}`, admin.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.id, org.name);
    assert.deepEqual(shown.body.data.relationships.owners.data, [{ id: org.owner.id, type: 'users' }]);
    assertError(await ctx.get('/api/v2/admin/organizations/no-such-organization', admin.token), 404);
    assertError(await ctx.delete('/api/v2/admin/organizations/no-such-organization', admin.token), 404);

    assertStatus(await ctx.delete(`/api/v2/admin/organizations/${org.name}`, admin.token), 204);
    assertError(await ctx.get(`/api/v2/admin/organizations/${org.name}`, admin.token), 404);
    assertError(await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token), 404);
    // The owner's account stays; only the organization (and its token's account) is gone.
    assertStatus(await ctx.get('/api/v2/account/details', org.owner.token), 200);
  });

  it('does not exist for anyone but a site admin, owners of the organization included', async () => {
    const org = await ctx.organization();
    const member = await ctx.member(org, { 'manage-workspaces': true });
    for (const token of [org.owner.token, member.token]) {
      assertError(await ctx.get('/api/v2/admin/organizations', token), 404);
      assertError(await ctx.get(`/api/v2/admin/organizations/${org.name}`, token), 404);
      assertError(await ctx.delete(`/api/v2/admin/organizations/${org.name}`, token), 404);
    }
    assertError(await ctx.get('/api/v2/admin/organizations', null), 401);
    assertError(await ctx.delete(`/api/v2/admin/organizations/${org.name}`, null), 401);
    assertStatus(await ctx.get(`/api/v2/organizations/${org.name}`, org.owner.token), 200);
  });
});

// No request body reaches the database except through the fields a route models: every column
// name of every table, sent as an attribute to every POST and PATCH route, changes nothing (the
// engine is test/helpers/mass-assignment.ts; the robustness suite runs it wider). Plus the two
// holes that made the rule: an organization pointed at another user, and TFE's own attributes.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { massAssignmentCases } from './helpers/mass-assignment.ts';

suite('mass assignment: unmodelled attributes are ignored', (ctx) => {
  let victim: { id: string; token: string };
  before(async () => {
    victim = await ctx.user({ siteAdmin: true });
  });

  it('an ordinary user cannot point their organization at another user and have it deleted', async () => {
    const user = await ctx.user();
    const name = `victim-${Date.now()}`;
    const created = await ctx.post('/api/v2/organizations', user.token, { data: { type: 'organizations', attributes: { name, email: 'o@example.test' } } });
    assert.equal(created.status, 201);
    const patched = await ctx.patch(`/api/v2/organizations/${name}`, user.token, {
      data: { type: 'organizations', attributes: { service_user_id: victim.id } },
    });
    assert.equal(patched.status, 200, patched.raw);
    assert.equal((await ctx.delete(`/api/v2/organizations/${name}`, user.token)).status, 204);
    const still = await ctx.database.db.selectFrom('users').select('id').where('id', '=', victim.id).executeTakeFirst();
    assert.equal(still?.id, victim.id, 'the site admin was deleted along with the organization');
    assert.equal((await ctx.get('/api/v2/account/details', victim.token)).status, 200);
  });

  it('answers attributes TFE clients send but Hangar does not model with 200', async () => {
    const user = await ctx.user();
    const name = `tfe-${Date.now()}`;
    assert.equal(
      (await ctx.post('/api/v2/organizations', user.token, { data: { type: 'organizations', attributes: { name, email: 'o@example.test' } } })).status,
      201,
    );
    const res = await ctx.patch(`/api/v2/organizations/${name}`, user.token, {
      data: { type: 'organizations', attributes: { 'default-execution-mode': 'local', 'session-timeout': 20160, 'allow-force-delete-workspaces': true } },
    });
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.body.data.attributes['default-execution-mode'], 'local');
  });

  massAssignmentCases(ctx, { callers: 'first', values: ['telling'], positions: ['attributes'] });
});

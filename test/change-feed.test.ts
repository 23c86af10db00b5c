// The change feed (db/changes.ts) for the tables issue 32 added to it: workspace grants and policy
// sets. A write to either moves this process's generation at once (its query plugin) and, on
// PostgreSQL, another process's through the triggers of migration 0035, cascaded deletes
// included; a write to a table nobody caches from moves neither.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { sql } from 'kysely';
import { suite } from './helpers/harness.ts';
import { untilCaching } from './helpers/caches.ts';
import { assertStatus } from './helpers/assert.ts';
import { createPolicySet } from './helpers/policy-sets.ts';
import { createProject, createWorkspace } from './helpers/projects.ts';
import { WATCHED_TABLES } from '../src/db/changes.ts';
import { openDatabase, type Database } from '../src/db/index.ts';

const grantBody = (teamId: string, workspaceId: string, access: string) => ({
  data: {
    type: 'team-workspaces',
    attributes: { access },
    relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } }, team: { data: { type: 'teams', id: teamId } } },
  },
});

/** Resolves once `database`'s generation differs from `before` (5 s at most); false if it never did. */
async function moved(database: Database, before: number | null): Promise<boolean> {
  for (let i = 0; i < 250; i++) {
    if (database.changes.current() !== before) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

suite('the change feed: workspace grants and policy sets', (ctx) => {
  // A second handle on the same database: another instance, as far as the feed can tell.
  let other: Database | null = null;
  after(async () => {
    await other?.close();
  });

  it('moves this process at once on each write to team_workspaces and policy_sets, and not on a workspace rename', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const member = await ctx.member(org);
    await untilCaching(ctx.database);
    const at = () => ctx.database.changes.current();
    let before = at();
    const rename = await ctx.patch(`/api/v2/workspaces/${ws.id}`, org.owner.token, { data: { type: 'workspaces', attributes: { description: 'x' } } });
    assertStatus(rename, 200);
    assert.equal(at(), before, 'a workspace rename moves nothing');
    const grant = await ctx.post('/api/v2/team-workspaces', org.owner.token, grantBody(member.teamId, ws.id, 'read'));
    assertStatus(grant, 200);
    assert.notEqual(at(), before, 'a grant given');
    before = at();
    assertStatus(
      await ctx.patch(`/api/v2/team-workspaces/${grant.body.data.id}`, org.owner.token, { data: { type: 'team-workspaces', attributes: { access: 'write' } } }),
      200,
    );
    assert.notEqual(at(), before, 'a grant changed');
    before = at();
    assertStatus(await ctx.delete(`/api/v2/team-workspaces/${grant.body.data.id}`, org.owner.token), 204);
    assert.notEqual(at(), before, 'a grant removed');
    before = at();
    const set = await createPolicySet(ctx, org);
    assert.notEqual(at(), before, 'a set created');
    before = at();
    assertStatus(await ctx.patch(`/api/v2/policy-sets/${set.id}`, org.owner.token, { data: { type: 'policy-sets', attributes: { description: 'd' } } }), 200);
    assert.notEqual(at(), before, 'a set changed');
    before = at();
    assertStatus(await ctx.delete(`/api/v2/policy-sets/${set.id}`, org.owner.token), 204);
    assert.notEqual(at(), before, 'a set deleted');
  });

  it('PostgreSQL: every watched table notifies, and another instance hears of grants and sets, cascades included', async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('PostgreSQL only');
    const { rows } = await sql<{ table: string }>`select distinct event_object_table as table from information_schema.triggers
      where trigger_schema = current_schema() and trigger_name like '%\_auth\_changed'`.execute(ctx.database.db);
    assert.deepEqual(rows.map((r) => r.table).sort(), [...WATCHED_TABLES].sort());

    other = openDatabase(ctx.config.databaseUrl!);
    await sql`select 1`.execute(other.db); // the feed listens once the database has answered
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const member = await ctx.member(org);
    await untilCaching(other);
    // A workspace rename: heard by nobody (given a moment, in which a notification would land).
    let before = other.changes.current();
    assertStatus(await ctx.patch(`/api/v2/workspaces/${ws.id}`, org.owner.token, { data: { type: 'workspaces', attributes: { description: 'x' } } }), 200);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(other.changes.current(), before, 'a workspace rename notifies nobody');
    // A grant given.
    assertStatus(await ctx.post('/api/v2/team-workspaces', org.owner.token, grantBody(member.teamId, ws.id, 'read')), 200);
    assert.ok(await moved(other, before), 'a grant given');
    // Its workspace deleted: the grant goes by cascade, and that is heard too.
    await untilCaching(other);
    before = other.changes.current();
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, org.owner.token), 204);
    assert.equal(await ctx.database.db.selectFrom('team_workspaces').select('id').where('workspace_id', '=', ws.id).executeTakeFirst(), undefined);
    assert.ok(await moved(other, before), 'a grant gone with its workspace');
    // (A workspace without grants deleted is heard as well: PostgreSQL runs the cascade as a
    // statement on team_workspaces, whose statement trigger fires though it deletes no row.)
    // A set renamed.
    const set = await createPolicySet(ctx, org);
    await untilCaching(other);
    before = other.changes.current();
    assertStatus(await ctx.patch(`/api/v2/policy-sets/${set.id}`, org.owner.token, { data: { type: 'policy-sets', attributes: { name: 'renamed' } } }), 200);
    assert.ok(await moved(other, before), 'a set renamed');
  });
});

// Migration 0023 on a database that already has organizations and teams: everyone on a team of an
// organization becomes its active member (once, however many of its teams they are on), and new
// memberships list after the old ones.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects, scratchDatabase } from './helpers/harness.ts';
import { migrateBefore } from './helpers/migrations.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const PEOPLE = '0023_people';

for (const dialect of dialects()) {
  describe(`migration 0023 (people) [${dialect}]`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    before(async () => {
      scratch = await scratchDatabase(dialect);
    });
    after(() => scratch.drop());

    it('makes everyone on a team an active member of its organization', async () => {
      const db = scratch.database.db as any;
      await migrateBefore(scratch.database, PEOPLE);
      const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
      const bool = (b: boolean) => (dialect === 'postgres' ? b : Number(b));
      const user = (id: string) => ({ id, username: id, email: `${id}@example.test`, created_at: at(0) });
      await db
        .insertInto('users')
        .values([user('user-svc'), user('user-a'), user('user-b'), user('user-c')])
        .execute();
      await db
        .insertInto('organizations')
        .values({ id: 'org-1', name: 'org-1', email: 'o@example.test', service_user_id: 'user-svc', created_at: at(0) })
        .execute();
      const team = (id: string, owners: boolean) => ({
        id,
        organization_id: 'org-1',
        name: id,
        visibility: 'secret',
        is_owners: bool(owners),
        organization_access: '{}',
        created_at: at(0),
      });
      await db
        .insertInto('teams')
        .values([team('team-owners', true), team('team-dev', false)])
        .execute();
      await db
        .insertInto('team_memberships')
        .values([
          { team_id: 'team-owners', user_id: 'user-a', created_at: at(1) },
          { team_id: 'team-dev', user_id: 'user-a', created_at: at(3) },
          { team_id: 'team-dev', user_id: 'user-b', created_at: at(2) },
        ])
        .execute();

      assert.equal((await migrateToLatest(scratch.database)).includes(PEOPLE), true);

      const rows = await db.selectFrom('organization_memberships').selectAll().orderBy('seq').execute();
      assert.deepEqual(
        rows.map((r: any) => [r.organization_id, r.user_id, r.status, r.created_at]),
        [
          ['org-1', 'user-a', 'active', at(1)],
          ['org-1', 'user-b', 'active', at(2)],
        ],
      );
      assert.ok(rows.every((r: any) => /^ou-[0-9A-Za-z]{16}$/.test(r.id)));
      // A new membership numbers after them; one user is one membership per organization.
      await db
        .insertInto('organization_memberships')
        .values({ id: 'ou-new', organization_id: 'org-1', user_id: 'user-c', status: 'invited', created_at: at(0) })
        .execute();
      const last = await db.selectFrom('organization_memberships').select('id').orderBy('seq', 'desc').executeTakeFirst();
      assert.equal(last.id, 'ou-new');
      await assert.rejects(
        db
          .insertInto('organization_memberships')
          .values({ id: 'ou-dup', organization_id: 'org-1', user_id: 'user-c', status: 'invited', created_at: at(0) })
          .execute(),
      );
      await assert.rejects(
        db
          .insertInto('organization_memberships')
          .values({ id: 'ou-bad', organization_id: 'org-1', user_id: 'user-svc', status: 'pending', created_at: at(0) })
          .execute(),
      );
      // Users have no password until one is set.
      assert.equal((await db.selectFrom('users').select('password_hash').where('id', '=', 'user-a').executeTakeFirst()).password_hash, null);
    });
  });
}

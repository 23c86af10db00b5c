// People: organization memberships (TFE's invitations), the teams an invitation will put its user
// on, users' passwords, browser sessions and sign-in throttling.
//
// A membership is one user in one organization, `invited` until the user accepts, then `active`.
// Permissions still come only from `team_memberships`, which holds active members alone: the
// teams an invited user was invited to wait in `organization_membership_teams` and move to
// `team_memberships` when the invitation is accepted, so an invitation grants nothing by itself.
// Everyone already on a team of an organization becomes its active member here.
import { sql, type Kysely } from 'kysely';
import { randomBase62 } from '../../ids.ts';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organization_memberships')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('invited', 'active')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('organization_memberships_organization_user', ['organization_id', 'user_id'])
    .execute();
  // The caller's own memberships, and the cascade when a user is deleted.
  await db.schema.createIndex('organization_memberships_user').on('organization_memberships').column('user_id').execute();

  await db.schema
    .createTable('organization_membership_teams')
    .addColumn('membership_id', 'text', (c) => c.notNull().references('organization_memberships.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_membership_teams_pk', ['membership_id', 'team_id'])
    .execute();
  await db.schema.createIndex('organization_membership_teams_team').on('organization_membership_teams').column('team_id').execute();

  // Invitations find the user an address belongs to.
  await db.schema
    .createIndex('users_email_lower')
    .on('users')
    .expression(sql`lower(email)`)
    .execute();
  // `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64): the parameters travel with each hash, so they can
  // be raised later and old hashes still verify. Null: the user has no password.
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  const pairs = await db
    .selectFrom('team_memberships as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.organization_id as organization_id', 'm.user_id as user_id', (eb) => eb.fn.min('m.created_at').as('created_at')])
    .groupBy(['t.organization_id', 'm.user_id'])
    .orderBy('created_at')
    .execute();
  for (let i = 0; i < pairs.length; i += 500) {
    const rows = pairs
      .slice(i, i + 500)
      .map((p) => ({ id: `ou-${randomBase62(16)}`, organization_id: p.organization_id, user_id: p.user_id, status: 'active', created_at: p.created_at }));
    await db.insertInto('organization_memberships').values(rows).execute();
  }

  // Browser sessions: the cookie's secret is stored only as its SHA-256 digest. A session ends
  // when idle too long (last_seen_at), at expires_at whatever its use, or when revoked.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('address', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  // Failed sign-ins per account and per client address, in a window, and until when each is
  // refused: in the database, so every instance counts the same failures.
  await db.schema
    .createTable('sign_in_throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('blocked_until', 'text')
    .execute();

  await addCreationOrder(db, 'organization_memberships');
  // An organization's list, in creation order.
  await db.schema.createIndex('organization_memberships_organization_seq').on('organization_memberships').columns(['organization_id', 'seq']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}

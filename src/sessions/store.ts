import type { Queryable } from '../db/index.ts';

export interface Session {
  id: string;
  userId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export interface SessionUser {
  id: string;
  username: string;
  isSiteAdmin: boolean;
  isServiceAccount: boolean;
}

export async function insertSession(q: Queryable, s: Session & { digest: string; address: string | null }): Promise<void> {
  await q
    .insertInto('sessions')
    .values({
      id: s.id,
      digest: s.digest,
      user_id: s.userId,
      created_at: s.createdAt,
      last_seen_at: s.lastSeenAt,
      expires_at: s.expiresAt,
      revoked_at: null,
      address: s.address,
    })
    .execute();
}

/** The session behind a cookie's digest, with its user: one query. */
export async function findByDigest(q: Queryable, digest: string): Promise<{ session: Session; user: SessionUser } | undefined> {
  const r = await q
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.created_at', 's.last_seen_at', 's.expires_at', 's.revoked_at', 'u.username', 'u.is_site_admin', 'u.is_service_account'])
    .where('s.digest', '=', digest)
    .executeTakeFirst();
  if (!r) return undefined;
  return {
    session: { id: r.id, userId: r.user_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at, revokedAt: r.revoked_at },
    user: { id: r.user_id, username: r.username, isSiteAdmin: Boolean(r.is_site_admin), isServiceAccount: Boolean(r.is_service_account) },
  };
}

export async function findById(q: Queryable, id: string): Promise<Session | undefined> {
  const r = await q.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  return r && { id: r.id, userId: r.user_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at, revokedAt: r.revoked_at };
}

export async function touch(q: Queryable, id: string, at: string): Promise<void> {
  await q.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function revoke(q: Queryable, id: string, at: string): Promise<void> {
  await q.updateTable('sessions').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function revokeAllOfUser(q: Queryable, userId: string, at: string): Promise<void> {
  await q.updateTable('sessions').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
}

export interface Throttle {
  failures: number;
  windowStartedAt: string;
  blockedUntil: string | null;
}

export async function findThrottles(q: Queryable, keys: readonly string[]): Promise<Map<string, Throttle>> {
  const rows = await q
    .selectFrom('sign_in_throttles')
    .selectAll()
    .where('key', 'in', [...keys])
    .execute();
  return new Map(rows.map((r) => [r.key, { failures: Number(r.failures), windowStartedAt: r.window_started_at, blockedUntil: r.blocked_until }]));
}

export async function saveThrottle(q: Queryable, key: string, t: Throttle): Promise<void> {
  const values = { failures: t.failures, window_started_at: t.windowStartedAt, blocked_until: t.blockedUntil };
  await q
    .insertInto('sign_in_throttles')
    .values({ key, ...values })
    .onConflict((oc) => oc.column('key').doUpdateSet(values))
    .execute();
}

export async function clearThrottle(q: Queryable, key: string): Promise<void> {
  await q.deleteFrom('sign_in_throttles').where('key', '=', key).execute();
}

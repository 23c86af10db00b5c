// Browser sessions: signing in with a username and password, the session a cookie stands for,
// and signing out. The cookie holds a random secret; the database holds its SHA-256 digest (as
// for API tokens), so a copy of the database opens no session. A session ends when idle too long,
// at its absolute end whatever its use, or when revoked. Failed sign-ins are throttled per
// account and per client address, counted in the database so that every instance agrees.
import type { Principal } from '../auth/principal.ts';
import { digestSecret } from '../auth/secrets.ts';
import type { Database } from '../db/index.ts';
import { newId, randomBase62 } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { UsersService } from '../users/service.ts';
import * as store from './store.ts';

export interface SessionOptions {
  /** Minutes without a request after which a session ends. */
  idleMinutes: number;
  /** Minutes after sign-in at which a session ends, however busy. */
  absoluteMinutes: number;
}

export const SESSION_DEFAULTS: SessionOptions = { idleMinutes: 12 * 60, absoluteMinutes: 14 * 24 * 60 };

/** Failures allowed per key within the window, and how long a key is refused once past them. */
export const THROTTLE = { accountFailures: 5, addressFailures: 20, windowMinutes: 15, blockMinutes: 15 } as const;

/** A session's last use is written at most this often: a request is a read, not a write. */
const TOUCH_EVERY_MS = 60_000;

const SECRET_SHAPE = /^[0-9A-Za-z]{43}$/;

const minutes = (n: number) => n * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export function createSessionsService(deps: { database: Database; users: UsersService; options?: Partial<SessionOptions>; clock?: () => number }) {
  const db = deps.database.db;
  const options = { ...SESSION_DEFAULTS, ...deps.options };
  const clock = deps.clock ?? Date.now;
  const accountKey = (username: string) => `account:${username.toLowerCase()}`;
  const addressKey = (address: string) => `address:${address}`;

  /** Refuses (429) while either key is blocked. */
  async function checkThrottle(keys: readonly string[], at: number): Promise<void> {
    const throttles = await store.findThrottles(db, keys);
    const blocked = [...throttles.values()].map((t) => (t.blockedUntil ? Date.parse(t.blockedUntil) : 0)).filter((until) => until > at);
    if (blocked.length) throw errors.tooManySignIns(Math.ceil((Math.max(...blocked) - at) / 1000));
  }

  async function recordFailure(keys: Array<[string, number]>, at: number): Promise<void> {
    await deps.database.transaction(async (trx) => {
      const throttles = await store.findThrottles(
        trx,
        keys.map(([k]) => k),
      );
      for (const [key, limit] of keys) {
        const t = throttles.get(key);
        const fresh = !t || Date.parse(t.windowStartedAt) + minutes(THROTTLE.windowMinutes) <= at;
        const failures = fresh ? 1 : t.failures + 1;
        const windowStartedAt = fresh ? iso(at) : t.windowStartedAt;
        const blockedUntil = failures >= limit ? iso(at + minutes(THROTTLE.blockMinutes)) : fresh ? null : t.blockedUntil;
        await store.saveThrottle(trx, key, { failures, windowStartedAt, blockedUntil });
      }
    });
  }

  async function start(userId: string, address: string | null, at: number): Promise<{ secret: string; sessionId: string; userId: string }> {
    const secret = randomBase62(43);
    const id = newId('sess');
    await store.insertSession(db, {
      id,
      digest: digestSecret(secret),
      userId,
      createdAt: iso(at),
      lastSeenAt: iso(at),
      expiresAt: iso(at + minutes(options.absoluteMinutes)),
      revokedAt: null,
      address,
    });
    return { secret, sessionId: id, userId };
  }

  return {
    options,

    /**
     * Signs a person in: a new session and the cookie secret for it (shown once), or 401 for a
     * wrong username or password (the same answer for both), or 429 while throttled.
     */
    async signIn(input: { username: string; password: string; address: string | null }): Promise<{ secret: string; sessionId: string; userId: string }> {
      const at = clock();
      const keys = [accountKey(input.username), ...(input.address ? [addressKey(input.address)] : [])];
      await checkThrottle(keys, at);
      const user = await deps.users.checkPassword(input.username, input.password);
      if (!user) {
        await recordFailure(
          [
            [accountKey(input.username), THROTTLE.accountFailures],
            ...(input.address ? [[addressKey(input.address), THROTTLE.addressFailures] as [string, number]] : []),
          ],
          at,
        );
        throw errors.badCredentials();
      }
      await store.clearThrottle(db, accountKey(input.username));
      return start(user.id, input.address, at);
    },

    /**
     * A new session for a user someone else vouched for (an OpenID provider, single sign-on):
     * the cookie secret, shown once. The caller has checked that the user is a person.
     */
    startFor: (userId: string, address: string | null) => start(userId, address, clock()),

    /** The principal a cookie's secret stands for; null when it is no live session. */
    async authenticate(secret: string): Promise<Principal | null> {
      if (!SECRET_SHAPE.test(secret)) return null;
      const found = await store.findByDigest(db, digestSecret(secret));
      if (!found) return null;
      const { session, user } = found;
      const at = clock();
      const idleEnd = Date.parse(session.lastSeenAt) + minutes(options.idleMinutes);
      if (session.revokedAt !== null || at >= Date.parse(session.expiresAt) || at >= idleEnd || user.isServiceAccount) return null;
      if (at - Date.parse(session.lastSeenAt) >= TOUCH_EVERY_MS) await store.touch(db, session.id, iso(at));
      return { kind: 'user', tokenId: session.id, user };
    },

    /** Signing out: the session behind the secret ends (nothing happens for one that is not). */
    async signOut(secret: string): Promise<void> {
      if (!SECRET_SHAPE.test(secret)) return;
      const found = await store.findByDigest(db, digestSecret(secret));
      if (found) await store.revoke(db, found.session.id, iso(clock()));
    },

    async show(id: string): Promise<store.Session> {
      const session = await store.findById(db, id);
      if (!session) throw errors.unauthorized();
      return session;
    },

    /** Ends every session of a user (a changed password, an administrator's decision). */
    revokeAllOfUser: (userId: string) => store.revokeAllOfUser(db, userId, iso(clock())),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

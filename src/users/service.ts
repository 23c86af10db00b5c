import type { Database, Queryable } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import type { Caller } from '../auth/caller.ts';
import { errors } from '../jsonapi/errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { now } from '../time.ts';
import * as store from './store.ts';
import type { User } from './store.ts';

export type { User };

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function createUsersService({ database }: { database: Database }) {
  const db = database.db;

  async function create(input: { username: string; email: string; isSiteAdmin?: boolean }): Promise<User> {
    const problems = [];
    if (!USERNAME.test(input.username)) {
      problems.push({ pointer: '/data/attributes/username', detail: 'Username may only contain letters, numbers, ".", "-" and "_" (1 to 64 characters)' });
    }
    if (!EMAIL.test(input.email)) problems.push({ pointer: '/data/attributes/email', detail: 'Email is invalid' });
    if (problems.length) throw errors.invalid(problems);
    const user: User = {
      id: newId('user'),
      username: input.username,
      email: input.email,
      isSiteAdmin: input.isSiteAdmin ?? false,
      isServiceAccount: false,
      createdAt: now(),
    };
    try {
      await store.insertUser(db, user);
    } catch (e) {
      if (isUniqueViolation(e)) throw errors.invalidAttribute('/data/attributes/username', 'Username has already been taken');
      throw e;
    }
    return user;
  }

  return {
    create,

    findById: (id: string) => store.findUserById(db, id),

    async findByUsername(username: string): Promise<User | undefined> {
      return (await store.findUsersByUsernames(db, [username]))[0];
    },

    findByUsernames: (usernames: readonly string[]) => store.findUsersByUsernames(db, usernames),

    /** For `hangar bootstrap`: the named user exists afterwards and is a site admin. */
    async ensureSiteAdmin(username: string): Promise<User> {
      const existing = (await store.findUsersByUsernames(db, [username]))[0];
      if (!existing) return create({ username, email: `${username}@localhost`, isSiteAdmin: true });
      if (existing.isServiceAccount) throw errors.badRequest(`${username} is a service account`);
      if (!existing.isSiteAdmin) await store.setSiteAdmin(db, existing.id, true);
      return { ...existing, isSiteAdmin: true };
    },

    /** Every organization has a service user that stands for its organization token. */
    async createServiceUser(q: Queryable, organizationName: string): Promise<User> {
      const user: User = {
        id: newId('user'),
        // The random suffix keeps the name free even if an organization is deleted and re-created.
        username: `api-org-${organizationName}-${randomBase62(6)}`,
        email: `api-org-${organizationName}@service.invalid`,
        isSiteAdmin: false,
        isServiceAccount: true,
        createdAt: now(),
      };
      await store.insertUser(q, user);
      return user;
    },

    deleteServiceUser: (q: Queryable, id: string) => store.deleteUser(q, id),

    /** `GET /account/details`: organization tokens resolve to their service user. */
    async accountDetails(caller: Caller): Promise<User> {
      const p = caller.principal;
      const id = p.kind === 'user' ? p.user.id : p.serviceUserId;
      const user = await store.findUserById(db, id);
      if (!user) throw errors.unauthorized();
      return user;
    },

    async show(_caller: Caller, id: string): Promise<User> {
      const user = await store.findUserById(db, id);
      if (!user) throw errors.notFound();
      return user;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

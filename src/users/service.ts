import type { Caller } from '../auth/caller.ts';
import { authorize, can } from '../auth/authorize.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../auth/passwords.ts';
import { userPermissions, type UserPermissions } from '../auth/permission-sets.ts';
import type { Principal } from '../auth/principal.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { Window } from '../db/list.ts';
import { newId, randomBase62 } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import { now } from '../time.ts';
import { checkAttributes, Email, SERVICE_ACCOUNT_PREFIX, Username } from '../values.ts';
import * as store from './store.ts';
import type { User } from './store.ts';

export type { User };

export interface UserView {
  user: User;
  permissions: UserPermissions;
  /** The e-mail address is shown only to the user it belongs to. */
  showsEmail: boolean;
  /** Account details only: who the token authenticates (a user, or an organization for its token). */
  authenticated?: Principal;
}

/** The account a principal acts as: the user, or the service account behind an organization token. */
/** The account a principal acts as; a team token has none (its account details are a 404). */
const accountId = (p: Principal): string | null => (p.kind === 'user' ? p.user.id : p.kind === 'organization' ? p.serviceUserId : null);

/** A user as `caller` sees it: the e-mail address only when it is the caller's own. */
function viewFor(caller: Caller, user: User): UserView {
  return { user, permissions: userPermissions(user), showsEmail: can({ principal: caller.principal, userId: user.id }, 'read-user-email') };
}

/** A username from an address's local part: its letters, digits, ".", "-" and "_" (never a service account's prefix). */
function invitedUsername(email: string): string {
  return usernameFrom(email.slice(0, email.lastIndexOf('@')));
}

/** A username from any text: its letters, digits, ".", "-" and "_" (never a service account's prefix). */
function usernameFrom(text: string): string {
  const local = text
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  const name = local.length === 0 ? 'user' : local;
  return name.toLowerCase().startsWith(SERVICE_ACCOUNT_PREFIX) ? `user-${name}`.slice(0, 64) : name;
}

export function createUsersService({ database }: { database: Database }) {
  const db = database.db;

  async function create(input: { username: string; email: string; isSiteAdmin?: boolean }): Promise<User> {
    checkAttributes({ username: [Username, input.username], email: [Email, input.email] });
    const user: User = {
      id: newId('user'),
      username: input.username,
      email: input.email,
      isSiteAdmin: input.isSiteAdmin ?? false,
      isServiceAccount: false,
      createdAt: now(),
    };
    await guarded(store.insertUser(db, user), { unique: () => errors.taken('username') });
    return user;
  }

  /** `GET /account/details`: the caller's own account (organization tokens: their service user). */
  async function accountDetails(caller: Caller): Promise<UserView> {
    const p = caller.principal;
    const id = accountId(p);
    if (id === null) throw errors.notFound();
    const user = await store.findUserById(db, id);
    if (!user) throw errors.unauthorized();
    return { user, permissions: userPermissions(user), showsEmail: true, authenticated: p };
  }

  /** A new person named `base`, or `base-<random>` when that name is taken. */
  async function insertPerson(q: Queryable, base: string, email: string): Promise<User> {
    let username = base;
    for (let attempt = 0; await store.usernameTaken(q, username); attempt++) {
      if (attempt >= 5) throw errors.conflict('No free username could be found for this address; create the user first');
      username = `${base.slice(0, 57)}-${randomBase62(6)}`;
    }
    const user: User = { id: newId('user'), username, email, isSiteAdmin: false, isServiceAccount: false, createdAt: now() };
    await store.insertUser(q, user);
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
      const named = () => store.findUsersByUsernames(db, [username]).then((users) => users[0]);
      let existing = await named();
      if (!existing) {
        try {
          return await create({ username, email: `${username}@localhost`, isSiteAdmin: true });
        } catch (error) {
          // Another bootstrap made the user between the read and the insert (instances or CI
          // shards starting together): carry on with theirs, as if it had been there before.
          existing = await named();
          if (!existing) throw error;
        }
      }
      if (existing.isServiceAccount) throw errors.badRequest(`${username} is a service account`);
      if (!existing.isSiteAdmin) await store.setSiteAdmin(db, existing.id, true);
      return { ...existing, isSiteAdmin: true };
    },

    /** Every organization has a service user that stands for its organization token. */
    async createServiceUser(q: Queryable, organizationName: string): Promise<User> {
      const user: User = {
        id: newId('user'),
        // The random suffix keeps the name free even if an organization is deleted and re-created.
        username: `${SERVICE_ACCOUNT_PREFIX}${organizationName}-${randomBase62(6)}`,
        email: `${SERVICE_ACCOUNT_PREFIX}${organizationName}@service.invalid`,
        isSiteAdmin: false,
        isServiceAccount: true,
        createdAt: now(),
      };
      await store.insertUser(q, user);
      return user;
    },

    deleteServiceUser: (q: Queryable, id: string) => store.deleteUser(q, id),

    /** `hangar user password NAME`: sets (or replaces) a person's password. */
    async setPassword(username: string, password: string): Promise<User> {
      const user = (await store.findUsersByUsernames(db, [username]))[0];
      if (!user || user.isServiceAccount) throw errors.notFound();
      const problem = passwordProblem(password);
      if (problem) throw errors.invalidAttribute('/data/attributes/password', problem);
      await store.setPasswordHash(db, user.id, await hashPassword(password));
      return user;
    },

    /**
     * The person with this username when `password` is theirs; undefined otherwise, in about the
     * same time whether or not the user exists or has a password.
     */
    async checkPassword(username: string, password: string): Promise<User | undefined> {
      const user = (await store.findUsersByUsernames(db, [username]))[0];
      const person = user && !user.isServiceAccount ? user : undefined;
      const stored = person ? await store.findPasswordHash(db, person.id) : null;
      return (await verifyPassword(stored, password)) ? person : undefined;
    },

    /**
     * The person an invitation to `email` is for: whoever has the address already, or a new user
     * named after the address's local part (with a random suffix when that name is taken), who
     * has no password and no token until one is set for them.
     */
    async forInvitation(q: Queryable, email: string): Promise<User> {
      checkAttributes({ email: [Email, email] });
      const existing = await store.findPersonByEmail(q, email);
      if (existing) return existing;
      return insertPerson(q, invitedUsername(email), email);
    },

    /** The oldest person (never a service account) with this address, case-insensitively. */
    findPersonByEmail: (email: string) => store.findPersonByEmail(db, email),

    /**
     * A new person signing in through single sign-on: named `name` as far as the username rules
     * allow (a random suffix when taken), with the provider's address.
     */
    async forSignIn(q: Queryable, input: { name: string; email: string }): Promise<User> {
      checkAttributes({ email: [Email, input.email] });
      return insertPerson(q, usernameFrom(input.name), input.email);
    },

    accountDetails,

    /**
     * `PATCH /account/update`: a user changes their own username and e-mail address (the address
     * takes effect at once: Hangar sends no mail to confirm it).
     */
    async updateAccount(caller: Caller, input: { username?: string; email?: string }): Promise<UserView> {
      const id = accountId(caller.principal);
      if (id === null) throw errors.notFound();
      authorize({ principal: caller.principal, userId: id }, 'update-account');
      checkAttributes({ username: [Username, input.username], email: [Email, input.email] });
      await guarded(store.updateUser(db, id, input), { unique: () => errors.taken('username') });
      return accountDetails(caller);
    },

    /** Any authenticated caller may look a user up. */
    async show(caller: Caller, id: string): Promise<UserView> {
      const user = await store.findUserById(db, id);
      if (!user) throw errors.notFound();
      return viewFor(caller, user);
    },

    /** Every person of the installation (site admins only; to anyone else the list does not exist). */
    async listPeople(caller: Caller, filter: { search?: string }, page: Window): Promise<{ items: User[]; total: number }> {
      authorize({ principal: caller.principal }, 'administer-site');
      return store.listPeople(db, filter, page);
    },

    /**
     * Users a site admin's document includes (an organization's owners), with their addresses, as
     * the admin's list of people shows them: one query. Site admins only.
     */
    async adminViews(caller: Caller, ids: readonly string[]): Promise<UserView[]> {
      authorize({ principal: caller.principal }, 'administer-site');
      return (await store.findUsersByIds(db, ids)).map((user) => ({ user, permissions: userPermissions(user), showsEmail: true }));
    },

    /** Users another document includes (a team's members), as `show` would present each: one query. */
    async views(caller: Caller, ids: readonly string[]): Promise<UserView[]> {
      return (await store.findUsersByIds(db, ids)).map((user) => viewFor(caller, user));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

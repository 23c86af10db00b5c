import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { UsersTable } from '../db/schema.ts';
import { containsInsensitive } from '../db/sql.ts';

export interface User {
  id: string;
  username: string;
  email: string;
  isSiteAdmin: boolean;
  isServiceAccount: boolean;
  createdAt: string;
}

const USERS = columns<UsersTable, User>({
  id: 'id',
  username: 'username',
  email: 'email',
  isSiteAdmin: bool('is_site_admin'),
  isServiceAccount: bool('is_service_account'),
  createdAt: 'created_at',
});

/** The only columns a user may change about themself. */
const accountChanges = USERS.patch('username', 'email');

export async function updateUser(q: Queryable, id: string, changes: Partial<Pick<User, 'username' | 'email'>>): Promise<void> {
  const set = accountChanges(changes);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('users').set(set).where('id', '=', id).execute();
}

export async function insertUser(q: Queryable, u: User): Promise<void> {
  await q.insertInto('users').values(USERS.write(u)).execute();
}

export async function findUserById(q: Queryable, id: string): Promise<User | undefined> {
  const r = await q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return r && USERS.read(r);
}

export async function findUsersByIds(q: Queryable, ids: readonly string[]): Promise<User[]> {
  if (ids.length === 0) return [];
  const rows = await q
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows.map(USERS.read);
}

export async function findUsersByUsernames(q: Queryable, usernames: readonly string[]): Promise<User[]> {
  if (usernames.length === 0) return [];
  const lowered = usernames.map((u) => u.toLowerCase());
  const rows = await q
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['username']), 'in', lowered))
    .execute();
  return rows.map(USERS.read);
}

export async function setSiteAdmin(q: Queryable, id: string, isSiteAdmin: boolean): Promise<void> {
  await q.updateTable('users').set({ is_site_admin: isSiteAdmin }).where('id', '=', id).execute();
}

export async function deleteUser(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('users').where('id', '=', id).execute();
}

/** The oldest person (not a service account) with this address, case-insensitively. */
export async function findPersonByEmail(q: Queryable, email: string): Promise<User | undefined> {
  const r = await q
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('is_service_account', '=', false)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return r && USERS.read(r);
}

export async function usernameTaken(q: Queryable, username: string): Promise<boolean> {
  const r = await q
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .executeTakeFirst();
  return r !== undefined;
}

export async function setPasswordHash(q: Queryable, id: string, hash: string | null): Promise<void> {
  await q.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
}

export async function findPasswordHash(q: Queryable, id: string): Promise<string | null> {
  const r = await q.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirst();
  return r?.password_hash ?? null;
}

/** The people (never service accounts) of the installation, by username; `search`: part of the username or address. */
export async function listPeople(q: Queryable, filter: { search?: string }, page: Window): Promise<{ items: User[]; total: number }> {
  let base = q.selectFrom('users').where('is_service_account', '=', false);
  if (filter.search) {
    const text = filter.search;
    base = base.where((eb) => eb.or([containsInsensitive('username', text), containsInsensitive('email', text)]));
  }
  return listWithTotal(base, base.selectAll().orderBy('username').orderBy('id'), page, USERS.read);
}

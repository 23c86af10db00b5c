import type { Queryable } from '../db/index.ts';
import type { Selectable } from 'kysely';
import type { UsersTable } from '../db/schema.ts';

export interface User {
  id: string;
  username: string;
  email: string;
  isSiteAdmin: boolean;
  isServiceAccount: boolean;
  createdAt: string;
}

function toUser(r: Selectable<UsersTable>): User {
  return {
    id: r.id,
    username: r.username,
    email: r.email,
    isSiteAdmin: Boolean(r.is_site_admin),
    isServiceAccount: Boolean(r.is_service_account),
    createdAt: r.created_at,
  };
}

export async function insertUser(q: Queryable, u: User): Promise<void> {
  await q
    .insertInto('users')
    .values({
      id: u.id,
      username: u.username,
      email: u.email,
      is_site_admin: u.isSiteAdmin,
      is_service_account: u.isServiceAccount,
      created_at: u.createdAt,
    })
    .execute();
}

export async function findUserById(q: Queryable, id: string): Promise<User | undefined> {
  const r = await q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toUser(r);
}

export async function findUsersByUsernames(q: Queryable, usernames: readonly string[]): Promise<User[]> {
  if (usernames.length === 0) return [];
  const lowered = usernames.map((u) => u.toLowerCase());
  const rows = await q
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['username']), 'in', lowered))
    .execute();
  return rows.map(toUser);
}

export async function setSiteAdmin(q: Queryable, id: string, isSiteAdmin: boolean): Promise<void> {
  await q.updateTable('users').set({ is_site_admin: isSiteAdmin }).where('id', '=', id).execute();
}

export async function deleteUser(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('users').where('id', '=', id).execute();
}

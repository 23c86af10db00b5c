import type { Queryable } from '../db/index.ts';
import type { Selectable, Updateable } from 'kysely';
import type { OrganizationsTable } from '../db/schema.ts';

export interface Organization {
  id: string;
  name: string;
  email: string;
  serviceUserId: string;
  createdAt: string;
}

function toOrganization(r: Selectable<OrganizationsTable>): Organization {
  return { id: r.id, name: r.name, email: r.email, serviceUserId: r.service_user_id, createdAt: r.created_at };
}

export async function insertOrganization(q: Queryable, o: Organization): Promise<void> {
  await q
    .insertInto('organizations')
    .values({ id: o.id, name: o.name, email: o.email, service_user_id: o.serviceUserId, created_at: o.createdAt })
    .execute();
}

export async function findOrganizationByName(q: Queryable, name: string): Promise<Organization | undefined> {
  const r = await q
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && toOrganization(r);
}

export async function findOrganizationById(q: Queryable, id: string): Promise<Organization | undefined> {
  const r = await q.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toOrganization(r);
}

/** One page of organizations, by name; `ids` null means every organization (site admins). */
export async function listOrganizations(
  q: Queryable,
  ids: readonly string[] | null,
  page: { offset: number; size: number },
): Promise<{ items: Organization[]; total: number }> {
  if (ids !== null && ids.length === 0) return { items: [], total: 0 };
  let base = q.selectFrom('organizations');
  if (ids !== null) base = base.where('id', 'in', ids);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('name').orderBy('id').limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toOrganization), total: Number(count.n) };
}

/** Only the columns named here can change; whatever else a caller's object holds is ignored. */
export async function updateOrganization(q: Queryable, id: string, patch: { name?: string; email?: string }): Promise<void> {
  const set: Updateable<OrganizationsTable> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.email !== undefined) set.email = patch.email;
  if (Object.keys(set).length === 0) return;
  await q.updateTable('organizations').set(set).where('id', '=', id).execute();
}

export async function deleteOrganization(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('organizations').where('id', '=', id).execute();
}

import type { Queryable } from '../db/index.ts';
import { columns } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { OrganizationsTable } from '../db/schema.ts';

export interface Organization {
  id: string;
  name: string;
  email: string;
  serviceUserId: string;
  createdAt: string;
}

const ORGANIZATIONS = columns<OrganizationsTable, Organization>({
  id: 'id',
  name: 'name',
  email: 'email',
  serviceUserId: 'service_user_id',
  createdAt: 'created_at',
});
/** The only columns an update may change; whatever else a caller's object holds is ignored. */
const changes = ORGANIZATIONS.patch('name', 'email');

export async function insertOrganization(q: Queryable, o: Organization): Promise<void> {
  await q.insertInto('organizations').values(ORGANIZATIONS.write(o)).execute();
}

export async function findOrganizationByName(q: Queryable, name: string): Promise<Organization | undefined> {
  const r = await q
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && ORGANIZATIONS.read(r);
}

export async function findOrganizationById(q: Queryable, id: string): Promise<Organization | undefined> {
  const r = await q.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  return r && ORGANIZATIONS.read(r);
}

/** One page of the organizations `visible` lets through, by name. */
export async function listOrganizations(q: Queryable, visible: RowFilter<'organizations'>, page: Window) {
  let base = q.selectFrom('organizations');
  if (visible) base = base.where(visible);
  return listWithTotal(base, base.selectAll().orderBy('name').orderBy('id'), page, ORGANIZATIONS.read);
}

export async function updateOrganization(q: Queryable, id: string, patch: { name?: string; email?: string }): Promise<void> {
  const set = changes(patch);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('organizations').set(set).where('id', '=', id).execute();
}

export async function deleteOrganization(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('organizations').where('id', '=', id).execute();
}

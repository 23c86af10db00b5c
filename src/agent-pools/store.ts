import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { AgentPoolsTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';

export interface AgentPool {
  id: string;
  organizationId: string;
  name: string;
  organizationScoped: boolean;
  createdAt: string;
}

export type PoolSortField = 'name' | 'created-at';

function toPool(r: Selectable<AgentPoolsTable>): AgentPool {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    organizationScoped: Boolean(r.organization_scoped),
    createdAt: r.created_at,
  };
}

export async function insertPool(q: Queryable, p: AgentPool): Promise<void> {
  await q
    .insertInto('agent_pools')
    .values({ id: p.id, organization_id: p.organizationId, name: p.name, organization_scoped: p.organizationScoped, created_at: p.createdAt })
    .execute();
}

export async function findPoolById(q: Queryable, id: string): Promise<AgentPool | undefined> {
  const r = await q.selectFrom('agent_pools').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toPool(r);
}

/**
 * Inside a transaction: true if the pool still exists, and (on PostgreSQL) holds its row so
 * that a concurrent delete waits until the transaction is over.
 */
export async function lockPool(q: Queryable, id: string): Promise<boolean> {
  let query = q.selectFrom('agent_pools').select('id').where('id', '=', id);
  if (supportsRowLocks(q)) query = query.forUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export interface PoolFilter {
  organizationId: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  sort?: { field: PoolSortField; descending: boolean };
}

/** One page of an organization's pools; oldest first unless sorted otherwise. */
export async function listPools(q: Queryable, f: PoolFilter, page: { offset: number; size: number }) {
  let base = q.selectFrom('agent_pools').where('organization_id', '=', f.organizationId);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  const direction = f.sort?.descending ? 'desc' : 'asc';
  let rows = base.selectAll();
  // Names are unique case-insensitively, so lower(name) is a total order (and indexed).
  rows = f.sort?.field === 'name' ? rows.orderBy(sql`lower(name)`, direction) : rows.orderBy('created_at', direction);
  const [items, count] = await Promise.all([
    rows.orderBy('id', direction).limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: items.map(toPool), total: Number(count.n) };
}

export async function updatePool(q: Queryable, id: string, patch: { name?: string; organizationScoped?: boolean }): Promise<void> {
  const set: { name?: string; organization_scoped?: boolean } = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.organizationScoped !== undefined) set.organization_scoped = patch.organizationScoped;
  if (Object.keys(set).length === 0) return;
  await q.updateTable('agent_pools').set(set).where('id', '=', id).execute();
}

/** The schema's cascades delete the pool's agents and agent tokens in the same statement. */
export async function deletePool(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('agent_pools').where('id', '=', id).execute();
}

import { sql, type ExpressionBuilder } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns } from '../db/columns.ts';
import { compiledOnce } from '../db/compiled.ts';
import { links } from '../db/links.ts';
import { listed, type Window } from '../db/list.ts';
import type { AgentPoolsTable, Schema } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';

export interface AgentPool {
  id: string;
  organizationId: string;
  name: string;
  organizationScoped: boolean;
  createdAt: string;
}

export type PoolSortField = 'name' | 'created-at';

const POOLS = columns<AgentPoolsTable, AgentPool>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  organizationScoped: bool('organization_scoped'),
  createdAt: 'created_at',
});
const changes = POOLS.patch('name', 'organizationScoped');

export async function insertPool(q: Queryable, p: AgentPool): Promise<void> {
  await q.insertInto('agent_pools').values(POOLS.write(p)).execute();
}

const poolById = compiledOnce((q: Queryable, id: string) => q.selectFrom('agent_pools').selectAll().where('id', '=', id));

export async function findPoolById(q: Queryable, id: string): Promise<AgentPool | undefined> {
  const [r] = await poolById(q, id);
  return r && POOLS.read(r);
}

/** Which of `ids` are pools of the organization (one query). */
export async function poolIdsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q
    .selectFrom('agent_pools')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Whether the organization has the pool and whether a workspace may run on it: the pool is
 * organization-scoped or lists the workspace among its allowed ones (a workspace not created
 * yet, `null`, is on no list). Undefined: no such pool in the organization. One query; inside a
 * transaction on PostgreSQL it share-locks the pool's row, which a pool's update locks for
 * update (`lockPool`) before it changes the scope or the list, so the answer holds until commit.
 */
export async function poolUsability(
  q: Queryable,
  organizationId: string,
  poolId: string,
  workspaceId: string | null,
): Promise<{ usable: boolean } | undefined> {
  let query = q
    .selectFrom('agent_pools')
    .select((eb) => usableBy(eb, workspaceId ?? undefined).as('usable'))
    .where('organization_id', '=', organizationId)
    .where('id', '=', poolId);
  if (supportsRowLocks(q)) query = query.forShare();
  const r = await query.executeTakeFirst();
  // SQLite answers a truth value as 0 or 1.
  return r && { usable: Boolean(r.usable) };
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
  /** The pools a workspace may use: organization-scoped, or allowing it (no id: the scoped ones only). */
  usableBy?: { workspaceId: string | undefined };
}

/** SQL: the pools a workspace may use. */
function usableBy(eb: ExpressionBuilder<Schema, 'agent_pools'>, workspaceId: string | undefined) {
  const scoped = eb('agent_pools.organization_scoped', '=', true);
  if (workspaceId === undefined) return scoped;
  const allowing = eb.selectFrom('agent_pool_allowed_workspaces').select('agent_pool_id').where('workspace_id', '=', workspaceId);
  return eb.or([scoped, eb('agent_pools.id', 'in', allowing)]);
}

/**
 * One page of an organization's pools (oldest first unless sorted otherwise), and in one more
 * query both counts: `total` (every pool of the organization) and `matching` (after `search`
 * and `usableBy`).
 */
export async function listPools(q: Queryable, f: PoolFilter, page: Window) {
  const base = q.selectFrom('agent_pools').where('organization_id', '=', f.organizationId);
  const matching = (eb: ExpressionBuilder<Schema, 'agent_pools'>) =>
    eb.and([...(f.search ? [containsInsensitive('name', f.search)] : []), ...(f.usableBy ? [usableBy(eb, f.usableBy.workspaceId)] : [])]);
  const direction = f.sort?.descending ? 'desc' : 'asc';
  let rows = base.selectAll().where(matching);
  // Names are unique case-insensitively, so lower(name) is a total order (and indexed).
  rows = f.sort?.field === 'name' ? rows.orderBy(sql`lower(name)`, direction) : rows.orderBy('seq', direction);
  const counts = base
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.coalesce(eb.fn.sum<number>(eb.case().when(matching(eb)).then(1).else(0).end()), eb.lit(0)).as('matching'),
    ])
    .executeTakeFirstOrThrow();
  const { items, counts: c } = await listed(rows.orderBy('id', direction), page, POOLS.read, counts);
  return { items, total: Number(c.total), matching: Number(c.matching) };
}

export async function updatePool(q: Queryable, id: string, patch: Partial<Pick<AgentPool, 'name' | 'organizationScoped'>>): Promise<void> {
  const set = changes(patch);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('agent_pools').set(set).where('id', '=', id).execute();
}

/** The schema's cascades delete the pool's agents and agent tokens in the same statement. */
export async function deletePool(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('agent_pools').where('id', '=', id).execute();
}

/** The workspaces a pool may serve (its `allowed-workspaces`). */
export const allowedWorkspaces = links('agent_pool_allowed_workspaces', { from: 'agent_pool_id', to: 'workspace_id' });

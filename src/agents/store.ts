import type { Queryable } from '../db/index.ts';
import { columns } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { AgentsTable, StoredAgentStatus } from '../db/schema.ts';

export type { StoredAgentStatus };

export interface Agent {
  id: string;
  agentPoolId: string;
  name: string | null;
  status: StoredAgentStatus;
  ipAddress: string | null;
  lastPingAt: string;
  createdAt: string;
}

/** The statuses of a running agent: only these can fall silent and become `unknown`. */
export const RUNNING: readonly StoredAgentStatus[] = ['idle', 'busy'];

const AGENTS = columns<AgentsTable, Agent>({
  id: 'id',
  agentPoolId: 'agent_pool_id',
  name: 'name',
  status: 'status',
  ipAddress: 'ip_address',
  lastPingAt: 'last_ping_at',
  createdAt: 'created_at',
});

export async function insertAgent(q: Queryable, a: Agent): Promise<void> {
  await q.insertInto('agents').values(AGENTS.write(a)).execute();
}

export async function findAgentById(q: Queryable, id: string): Promise<Agent | undefined> {
  const r = await q.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
  return r && AGENTS.read(r);
}

/** One page of a pool's agents by registration time, ties broken by id in the same direction. */
export async function listAgents(q: Queryable, agentPoolId: string, order: { descending: boolean }, page: Window) {
  const base = q.selectFrom('agents').where('agent_pool_id', '=', agentPoolId);
  const direction = order.descending ? 'desc' : 'asc';
  return listWithTotal(base, base.selectAll().orderBy('seq', direction), page, AGENTS.read);
}

/** A heartbeat; the pool is part of the condition so an agent can only speak for its own pool. */
export async function recordHeartbeat(
  q: Queryable,
  h: { id: string; agentPoolId: string; status: StoredAgentStatus; ipAddress: string | null; at: string },
): Promise<Agent | undefined> {
  const r = await q
    .updateTable('agents')
    .set({ status: h.status, ip_address: h.ipAddress, last_ping_at: h.at })
    .where('id', '=', h.id)
    .where('agent_pool_id', '=', h.agentPoolId)
    .returningAll()
    .executeTakeFirst();
  return r && AGENTS.read(r);
}

/**
 * Deletes the agent unless it is running (idle or busy with a heartbeat after `silentBefore`),
 * in one statement, so a heartbeat arriving meanwhile cannot be lost in between a check and a
 * delete. Returns whether a row was deleted.
 */
export async function deleteUnlessRunning(q: Queryable, id: string, silentBefore: string): Promise<boolean> {
  const r = await q
    .deleteFrom('agents')
    .where('id', '=', id)
    .where((eb) => eb.or([eb('status', 'not in', RUNNING), eb('last_ping_at', '<=', silentBefore)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * pool id → agents that are idle, busy or unknown, for a page of pools in one grouped query.
 * `unknown` is an idle or busy agent that fell silent, so counting the stored idle and busy
 * rows counts all three without looking at the clock.
 */
export async function runningCountsByPool(q: Queryable, poolIds: readonly string[]): Promise<Map<string, number>> {
  if (poolIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('agents')
    .select(['agent_pool_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('agent_pool_id', 'in', poolIds)
    .where('status', 'in', RUNNING)
    .groupBy('agent_pool_id')
    .execute();
  return new Map(rows.map((r) => [r.agent_pool_id, Number(r.n)]));
}

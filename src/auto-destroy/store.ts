// What the auto-destroy scheduler reads and the two conditional writes that make it fire once.
// It reads across workspaces, projects, organizations, state versions and runs because "which
// workspaces are due" is one question about all of them, answered in a few queries per tick.
import type { Queryable } from '../db/index.ts';
import { RUN_STATUSES, isFinal } from '../runs/statuses.ts';

const UNFINISHED = RUN_STATUSES.filter((s) => !isFinal(s));

/** A workspace the scheduler may act on, with what deciding where its run executes needs. */
export interface Candidate {
  id: string;
  executionMode: string | null;
  agentPoolId: string | null;
  orgMode: string;
  orgPool: string | null;
}

/**
 * How long a workspace's settings must have stood before its explicit `auto-destroy-at` is acted
 * on. A client that sets a time already past reads back what it set (go-tfe's TestWorkspacesCreate
 * creates a workspace with 2025-01-01 and reads it again) instead of racing the next tick, which
 * comes every few seconds and clears it; the scheduler fires a minute later at the earliest.
 */
export const SETTLE_MS = 60_000;

/** Workspaces whose explicit `auto-destroy-at` has come, set at least SETTLE_MS before `at`. */
export async function explicitDue(q: Queryable, at: string, limit: number): Promise<Array<Candidate & { autoDestroyAt: string }>> {
  const settled = new Date(Date.parse(at) - SETTLE_MS).toISOString();
  const rows = await q
    .selectFrom('workspaces as w')
    .innerJoin('organizations as o', 'o.id', 'w.organization_id')
    .select(['w.id', 'w.auto_destroy_at', 'w.execution_mode', 'w.agent_pool_id', 'o.default_execution_mode', 'o.default_agent_pool_id'])
    .where('w.auto_destroy_at', 'is not', null)
    .where('w.auto_destroy_at', '<=', at)
    .where('w.updated_at', '<=', settled)
    .orderBy('w.auto_destroy_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    autoDestroyAt: r.auto_destroy_at!,
    executionMode: r.execution_mode,
    agentPoolId: r.agent_pool_id,
    orgMode: r.default_execution_mode,
    orgPool: r.default_agent_pool_id,
  }));
}

/** Every activity duration in effect somewhere (a workspace's own, or its project's it inherits): few. */
export async function durationsInEffect(q: Queryable): Promise<string[]> {
  const own = await q
    .selectFrom('workspaces')
    .select('auto_destroy_activity_duration as d')
    .distinct()
    .where('auto_destroy_activity_duration', 'is not', null)
    .where('inherits_project_auto_destroy', '=', false)
    .execute();
  const inherited = await q
    .selectFrom('projects')
    .select('auto_destroy_activity_duration as d')
    .distinct()
    .where('auto_destroy_activity_duration', 'is not', null)
    .execute();
  return [...new Set([...own, ...inherited].map((r) => r.d!))];
}

/**
 * Workspaces whose duration in effect is `duration`, whose current state version was written at
 * or before `cutoff` and has not had its destroy run yet, with no unfinished run in their queue.
 */
export async function idleSince(
  q: Queryable,
  duration: string,
  cutoff: string,
  limit: number,
): Promise<Array<Candidate & { stateVersionId: string; resourceCount: number }>> {
  const rows = await q
    .selectFrom('workspaces as w')
    .innerJoin('projects as p', 'p.id', 'w.project_id')
    .innerJoin('organizations as o', 'o.id', 'w.organization_id')
    .innerJoin('state_versions as sv', 'sv.workspace_id', 'w.id')
    .select([
      'w.id',
      'w.execution_mode',
      'w.agent_pool_id',
      'o.default_execution_mode',
      'o.default_agent_pool_id',
      'sv.id as state_version_id',
      'sv.resource_count',
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb('w.inherits_project_auto_destroy', '=', true), eb('p.auto_destroy_activity_duration', '=', duration)]),
        eb.and([eb('w.inherits_project_auto_destroy', '=', false), eb('w.auto_destroy_activity_duration', '=', duration)]),
      ]),
    )
    .where((eb) =>
      eb(
        'sv.position',
        '=',
        eb
          .selectFrom('state_versions as latest')
          .select((l) => l.fn.max('latest.position').as('p'))
          .whereRef('latest.workspace_id', '=', 'w.id'),
      ),
    )
    .where('sv.created_at', '<=', cutoff)
    .where((eb) => eb.or([eb('w.auto_destroyed_state_version_id', 'is', null), eb('w.auto_destroyed_state_version_id', '!=', eb.ref('sv.id'))]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('runs as r')
            .select('r.id')
            .whereRef('r.workspace_id', '=', 'w.id')
            .where('r.speculative', '=', false)
            .where('r.status', 'in', UNFINISHED),
        ),
      ),
    )
    .orderBy('sv.created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    executionMode: r.execution_mode,
    agentPoolId: r.agent_pool_id,
    orgMode: r.default_execution_mode,
    orgPool: r.default_agent_pool_id,
    stateVersionId: r.state_version_id,
    resourceCount: Number(r.resource_count ?? 0),
  }));
}

/** The conditional write of an inactivity destroy: true for exactly one caller per state version. */
export async function claimIdle(q: Queryable, workspaceId: string, stateVersionId: string): Promise<boolean> {
  const r = await q
    .updateTable('workspaces')
    .set({ auto_destroyed_state_version_id: stateVersionId })
    .where('id', '=', workspaceId)
    .where((eb) => eb.or([eb('auto_destroyed_state_version_id', 'is', null), eb('auto_destroyed_state_version_id', '!=', stateVersionId)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The conditional write of a scheduled destroy: clears `auto-destroy-at` (as TFE does once it ran) for exactly one caller. */
export async function claimExplicit(q: Queryable, workspaceId: string, autoDestroyAt: string): Promise<boolean> {
  const r = await q
    .updateTable('workspaces')
    .set({ auto_destroy_at: null })
    .where('id', '=', workspaceId)
    .where('auto_destroy_at', '=', autoDestroyAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** How many resources the workspace's current state version manages (0: no state). */
export async function currentResourceCount(q: Queryable, workspaceId: string): Promise<number> {
  const r = await q
    .selectFrom('state_versions')
    .select('resource_count')
    .where('workspace_id', '=', workspaceId)
    .where('position', 'is not', null)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return Number(r?.resource_count ?? 0);
}

// What the views of a page of workspaces show of the domains built on workspaces (lock, current
// configuration version, runs, current state version, variables), as correlated subqueries
// beside each workspace's row: the workspaces store's list reads them in the page's one
// statement. Each mirrors the query its domain answers for a single workspace (workspace-locks
// findLocks, configuration-versions currentVersions, runs runSummaries, state-versions
// currentVersions, variables idsByOwner); this file only reads.
import type { ExpressionBuilder } from 'kysely';
import { jsonAll, jsonFirst, jsonOf } from '../db/json.ts';
import type { Schema } from '../db/schema.ts';

export interface ViewColumns {
  lock: { holderType: 'users' | 'teams' | 'runs'; holderId: string; reason: string | null } | null;
  currentConfigurationVersionId: string | null;
  runs: { count: number; current: string | null };
  /** The current state version's id, how many resources it manages, and its time. */
  state: { id: string; resourceCount: number; createdAt: string } | null;
  variableIds: string[];
}

export function viewColumns(eb: ExpressionBuilder<Schema, 'workspaces'>, postgres: boolean) {
  return [
    jsonFirst(postgres, {
      table: 'workspace_locks',
      columns: ['holder_type', 'holder_id', 'reason'],
      owner: 'workspace_id',
      outer: 'workspaces.id',
    }).as('view_lock'),
    eb
      .selectFrom('configuration_versions')
      .select('configuration_versions.id')
      .whereRef('configuration_versions.workspace_id', '=', 'workspaces.id')
      .where('configuration_versions.provisional', '=', false)
      .orderBy('configuration_versions.seq', 'desc')
      .limit(1)
      .as('view_configuration'),
    eb
      .selectFrom('runs')
      .select((r) => r.fn.countAll<number>().as('n'))
      .whereRef('runs.workspace_id', '=', 'workspaces.id')
      .as('view_run_count'),
    eb
      .selectFrom('runs')
      .select('runs.id')
      .whereRef('runs.workspace_id', '=', 'workspaces.id')
      .where('runs.speculative', '=', false)
      .orderBy('runs.seq', 'desc')
      .limit(1)
      .as('view_current_run'),
    jsonFirst(postgres, {
      table: 'state_versions',
      columns: ['id', 'resource_count', 'created_at'],
      owner: 'workspace_id',
      outer: 'workspaces.id',
      order: 'position',
      descending: true,
    }).as('view_state'),
    jsonAll(postgres, { table: 'variables', columns: ['id'], owner: 'workspace_id', outer: 'workspaces.id', order: 'seq' }).as('view_variables'),
  ] as const;
}

export function readViewColumns(r: Record<string, unknown>): ViewColumns {
  const lock = jsonOf<['users' | 'teams' | 'runs', string, string | null]>(r.view_lock);
  const state = jsonOf<[string, number | string | null, string]>(r.view_state);
  return {
    lock: lock && { holderType: lock[0], holderId: lock[1], reason: lock[2] },
    currentConfigurationVersionId: (r.view_configuration as string | null) ?? null,
    runs: { count: Number(r.view_run_count ?? 0), current: (r.view_current_run as string | null) ?? null },
    state: state && { id: state[0], resourceCount: Number(state[1] ?? 0), createdAt: state[2] },
    variableIds: (jsonOf<string[][]>(r.view_variables) ?? []).map((v) => v[0]!),
  };
}

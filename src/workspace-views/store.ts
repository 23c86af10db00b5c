// What the views of workspaces show of the domains built on workspaces (lock, current
// configuration version, runs, current state version, variables), as correlated subqueries
// beside each workspace's row: the workspaces store's list reads them in the page's one
// statement, and `viewsOf` reads them for workspaces read some other way (a show, a write's
// answer, a run's included workspace) in one statement too. This file is the one place these
// questions are asked of those tables for a workspace's view; it only reads.
import type { ExpressionBuilder } from 'kysely';
import { compiledOnce } from '../db/compiled.ts';
import type { Queryable } from '../db/index.ts';
import { jsonAll, jsonFirst, jsonOf } from '../db/json.ts';
import type { Schema } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';

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

/** What a workspace that is gone by the time its views are read shows: nothing of the domains. */
const noView = (): ViewColumns => ({ lock: null, currentConfigurationVersionId: null, runs: { count: 0, current: null }, state: null, variableIds: [] });

const viewsOfWorkspaces = (q: Queryable) => q.selectFrom('workspaces').select((eb) => ['workspaces.id as view_of', ...viewColumns(eb, supportsRowLocks(q))]);
// A show's (one workspace's) statement is compiled once: it is on the path of every show and write.
const viewsOfOne = compiledOnce((q: Queryable, id: string) => viewsOfWorkspaces(q).where('workspaces.id', '=', id));

/** The views of these workspaces, by id, in one statement whatever their number. */
export async function viewsOf(q: Queryable, workspaceIds: readonly string[]): Promise<(id: string) => ViewColumns> {
  const ids = [...new Set(workspaceIds)];
  if (ids.length === 0) return noView;
  const rows = ids.length === 1 ? await viewsOfOne(q, ids[0]!) : await viewsOfWorkspaces(q).where('workspaces.id', 'in', ids).execute();
  const views = new Map(rows.map((r) => [r.view_of, readViewColumns(r)]));
  return (id) => views.get(id) ?? noView();
}

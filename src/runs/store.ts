import type { Queryable } from '../db/index.ts';
import { bool, columns, typed } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { RunsTable } from '../db/schema.ts';

/** Hangar executes nothing: a run is pending until it is discarded or canceled. */
export type RunStatus = 'pending' | 'discarded' | 'canceled';

export interface Run {
  id: string;
  workspaceId: string;
  configurationVersionId: string;
  status: RunStatus;
  message: string;
  source: string;
  isDestroy: boolean;
  refresh: boolean;
  refreshOnly: boolean;
  planOnly: boolean;
  autoApply: boolean;
  createdByUserId: string | null;
  createdAt: string;
  discardedAt: string | null;
  canceledAt: string | null;
}

const RUNS = columns<RunsTable, Run>({
  id: 'id',
  workspaceId: 'workspace_id',
  configurationVersionId: 'configuration_version_id',
  status: typed<RunStatus>()('status'),
  message: 'message',
  source: 'source',
  isDestroy: bool('is_destroy'),
  refresh: bool('refresh'),
  refreshOnly: bool('refresh_only'),
  planOnly: bool('plan_only'),
  autoApply: bool('auto_apply'),
  createdByUserId: 'created_by_user_id',
  createdAt: 'created_at',
  discardedAt: 'discarded_at',
  canceledAt: 'canceled_at',
});

export async function insertRun(q: Queryable, run: Run): Promise<void> {
  await q.insertInto('runs').values(RUNS.write(run)).execute();
}

export async function findRun(q: Queryable, id: string): Promise<Run | undefined> {
  const r = await q.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && RUNS.read(r);
}

/** Ends a pending run; false when it is no longer pending (someone else ended it first). */
export async function finishRun(q: Queryable, id: string, status: 'discarded' | 'canceled', at: string): Promise<boolean> {
  const r = await q
    .updateTable('runs')
    .set(status === 'discarded' ? { status, discarded_at: at } : { status, canceled_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A workspace's runs, newest first. */
export async function listRuns(q: Queryable, workspaceId: string, page: Window) {
  const base = q.selectFrom('runs').where('workspace_id', '=', workspaceId);
  return listWithTotal(base, base.selectAll().orderBy('seq', 'desc'), page, RUNS.read);
}

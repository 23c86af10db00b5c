import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { commaJoinedBy, containsInsensitive } from '../db/sql.ts';
import { bool, columns, typed, type Converted } from '../db/columns.ts';
import { countedPages } from '../db/counted-page.ts';
import type { Window } from '../db/list.ts';
import type { RunsTable, Schema } from '../db/schema.ts';
import { filterKey, type RowFilter } from '../db/filter.ts';
import { RUN_STATUSES, isFinal, sourcesOf, type RunStatus } from './statuses.ts';

export type { RunStatus };

export interface RunVariableInput {
  key: string;
  value: string;
}

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
  allowEmptyApply: boolean;
  savePlan: boolean;
  speculative: boolean;
  hasChanges: boolean;
  targetAddrs: string[];
  replaceAddrs: string[];
  variables: RunVariableInput[];
  statusTimestamps: Record<string, string>;
  createdByUserId: string | null;
  confirmedByUserId: string | null;
  terraformVersion: string | null;
  createdAt: string;
}

const json = <C extends string, V>(column: C): Converted<C, V> => ({ column, read: (s: string) => JSON.parse(s) as V, write: (v: V) => JSON.stringify(v) });

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
  allowEmptyApply: bool('allow_empty_apply'),
  savePlan: bool('save_plan'),
  speculative: bool('speculative'),
  hasChanges: bool('has_changes'),
  targetAddrs: json('target_addrs'),
  replaceAddrs: json('replace_addrs'),
  variables: json('variables'),
  statusTimestamps: json('status_timestamps'),
  createdByUserId: 'created_by_user_id',
  confirmedByUserId: 'confirmed_by_user_id',
  terraformVersion: 'terraform_version',
  createdAt: 'created_at',
});

export const readRun = RUNS.read;

export async function insertRun(q: Queryable, run: Run): Promise<void> {
  await q.insertInto('runs').values(RUNS.write(run)).execute();
}

export async function findRun(q: Queryable, id: string): Promise<Run | undefined> {
  const r = await q.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && RUNS.read(r);
}

export async function findRuns(q: Queryable, ids: readonly string[]): Promise<Run[]> {
  if (ids.length === 0) return [];
  return (
    await q
      .selectFrom('runs')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute()
  ).map(RUNS.read);
}

/**
 * Moves a run to `to` if it is still in a status that may go there (the lifecycle table decides),
 * stamping `<to>-at`; the status test and the write are one statement, so of two movers racing
 * one wins. Returns the moved run, or undefined when it had already moved on.
 */
export async function moveRun(
  q: Queryable,
  run: Run,
  to: RunStatus,
  at: string,
  extra: { hasChanges?: boolean; confirmedByUserId?: string | null } = {},
): Promise<Run | undefined> {
  const sources = sourcesOf(to);
  if (!sources.includes(run.status)) return undefined;
  const stamps = { ...run.statusTimestamps, [`${to.replaceAll('_', '-')}-at`]: at };
  const r = await q
    .updateTable('runs')
    .set({
      status: to,
      status_timestamps: JSON.stringify(stamps),
      ...(extra.hasChanges === undefined ? {} : { has_changes: extra.hasChanges }),
      ...(extra.confirmedByUserId === undefined ? {} : { confirmed_by_user_id: extra.confirmedByUserId }),
    })
    .where('id', '=', run.id)
    .where('status', '=', run.status)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return undefined;
  return {
    ...run,
    status: to,
    statusTimestamps: stamps,
    hasChanges: extra.hasChanges ?? run.hasChanges,
    confirmedByUserId: extra.confirmedByUserId ?? run.confirmedByUserId,
  };
}

/** The oldest run waiting in a workspace's queue (non-speculative, pending). */
export async function nextPending(q: Queryable, workspaceId: string): Promise<Run | undefined> {
  const r = await q
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'pending')
    .where('speculative', '=', false)
    .orderBy('seq')
    .executeTakeFirst();
  return r && RUNS.read(r);
}

/** Workspaces with a queued run and no lock: the scheduler starts their next run. */
export async function workspacesWaiting(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q
    .selectFrom('runs')
    .select('runs.workspace_id')
    .distinct()
    .where('runs.status', '=', 'pending')
    .where('runs.speculative', '=', false)
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('workspace_locks').select('workspace_locks.workspace_id').whereRef('workspace_locks.workspace_id', '=', 'runs.workspace_id')),
      ),
    )
    .limit(limit)
    .execute();
  return rows.map((r) => r.workspace_id);
}

export interface RunFilter {
  statuses?: readonly string[];
  operations?: readonly string[];
}

export interface RunWhere {
  workspaceId?: string;
  /** An organization's runs, in the workspaces `visible` lets through. */
  organization?: { id: string; visible: RowFilter<'workspaces'> };
  statuses?: readonly string[];
  /** TFE's run operations (any of them): plan_only, plan_and_apply, save_plan, refresh_only, destroy, empty_apply. */
  operations?: readonly string[];
  sources?: readonly string[];
  /** The username of whoever created the run. */
  user?: string;
  /** Hangar's runs come from no commit: any value matches none. */
  commit?: string;
  /** A run id, or text in its message. */
  basic?: string;
  /** Created at or after / before (ISO 8601). */
  from?: string;
  to?: string;
  /** A run id, or a workspace or organization name containing it (the site-admin search). */
  query?: string;
}

function filtered(q: Queryable, where: RunWhere) {
  let base = q.selectFrom('runs');
  if (where.workspaceId) base = base.where('runs.workspace_id', '=', where.workspaceId);
  if (where.organization) {
    const { id, visible } = where.organization;
    base = base.where('runs.workspace_id', 'in', (eb) => {
      let ws = eb.selectFrom('workspaces').select('workspaces.id').where('workspaces.organization_id', '=', id);
      if (visible) ws = ws.where(visible as never);
      return ws;
    });
  }
  if (where.statuses && where.statuses.length > 0) base = base.where('runs.status', 'in', [...where.statuses]);
  if (where.sources && where.sources.length > 0) base = base.where('runs.source', 'in', [...where.sources]);
  if (where.commit) base = base.where(sql<boolean>`1 = 0`);
  if (where.from) base = base.where('runs.created_at', '>=', where.from);
  if (where.to) base = base.where('runs.created_at', '<=', where.to);
  if (where.query) {
    const text = where.query;
    base = base.where((eb) =>
      eb.or([
        eb('runs.id', '=', text),
        eb(
          'runs.workspace_id',
          'in',
          eb
            .selectFrom('workspaces')
            .innerJoin('organizations', 'organizations.id', 'workspaces.organization_id')
            .select('workspaces.id')
            .where((w) => w.or([containsInsensitive('workspaces.name', text), containsInsensitive('organizations.name', text)])),
        ),
      ]),
    );
  }
  if (where.user) {
    const username = where.user;
    base = base.where('runs.created_by_user_id', 'in', (eb) => eb.selectFrom('users').select('users.id').where('users.username', '=', username));
  }
  if (where.basic) {
    const text = where.basic;
    base = base.where((eb) => eb.or([eb('runs.id', '=', text), containsInsensitive('runs.message', text)]));
  }
  if (where.operations && where.operations.length > 0) {
    const ops = where.operations;
    base = base.where((eb) =>
      eb.or(
        ops.map((op) => {
          switch (op) {
            case 'plan_only':
              return eb.or([eb('runs.plan_only', '=', true), eb('runs.speculative', '=', true)]);
            case 'save_plan':
              return eb('runs.save_plan', '=', true);
            case 'refresh_only':
              return eb('runs.refresh_only', '=', true);
            case 'destroy':
              return eb('runs.is_destroy', '=', true);
            case 'empty_apply':
              return eb('runs.allow_empty_apply', '=', true);
            case 'plan_and_apply':
              return eb.and([
                eb('runs.speculative', '=', false),
                eb('runs.save_plan', '=', false),
                eb('runs.refresh_only', '=', false),
                eb('runs.is_destroy', '=', false),
              ]);
            default:
              return sql<boolean>`1 = 0`;
          }
        }),
      ),
    );
  }
  return base;
}

/** What a run's resource says of its plan or apply: the job's id, and whether a cancel of it was asked for. */
export interface PhaseRef {
  id: string;
  cancelRequestedAt: string | null;
}

/** A listed run and what its resource names beside it. */
export interface ListedRun {
  run: Run;
  plan: PhaseRef;
  apply: PhaseRef;
  commentIds: string[];
  policyCheckIds: string[];
}

type RunPageRow = Selectable<RunsTable> & {
  plan_id: string | null;
  plan_cancel_requested_at: string | null;
  apply_id: string | null;
  apply_cancel_requested_at: string | null;
  comment_ids: string | null;
  policy_check_ids: string | null;
};
const runPages = countedPages<RunPageRow>();
const idList = (text: string | null) => (text ? text.split(',') : []);

/**
 * Runs newest first (of a workspace, or of the given workspaces of an organization) in one
 * statement: each run with its plan's and apply's ids, its comments' and policy checks' ids (in
 * their order), and the list's count beside it. Only a page past the end, which has no row to
 * carry the count, takes a second statement. A page asked for again (the same filters, caller's
 * filter and window) is not built or compiled again. `withChecks`: the policy checks are read
 * (policy-checks/ is there to have made them).
 */
export async function listRuns(q: Queryable, where: RunWhere, page: Window, withChecks: boolean): Promise<{ items: ListedRun[]; total: number }> {
  const visible = where.organization ? filterKey(where.organization.visible) : '*';
  // Every member of `where`, whatever they are: the filter without a name leaves nothing cached.
  const key =
    visible === null
      ? null
      : JSON.stringify([{ ...where, organization: where.organization ? [where.organization.id, visible] : null }, withChecks, page.size, page.offset]);
  const count = () => filtered(q, where).select((c) => c.fn.countAll<number>().as('n'));
  const { rows, total } = await runPages(q, key, {
    page: () =>
      filtered(q, where)
        .leftJoin('jobs as plan', (j) => j.onRef('plan.run_id', '=', 'runs.id').on('plan.phase', '=', 'plan'))
        .leftJoin('jobs as apply', (j) => j.onRef('apply.run_id', '=', 'runs.id').on('apply.phase', '=', 'apply'))
        .selectAll('runs')
        .select([
          'plan.id as plan_id',
          'plan.cancel_requested_at as plan_cancel_requested_at',
          'apply.id as apply_id',
          'apply.cancel_requested_at as apply_cancel_requested_at',
        ])
        .select((eb) => [
          eb
            .selectFrom('comments')
            .select(commaJoinedBy(q, 'comments.id', 'comments.seq').as('ids'))
            .whereRef('comments.run_id', '=', 'runs.id')
            .as('comment_ids'),
          withChecks
            ? eb
                .selectFrom('policy_checks')
                .select(commaJoinedBy(q, 'policy_checks.id', 'policy_checks.seq').as('ids'))
                .whereRef('policy_checks.run_id', '=', 'runs.id')
                .as('policy_check_ids')
            : sql<string | null>`null`.as('policy_check_ids'),
          // The same FROM and WHERE, uncorrelated: its `runs` is its own.
          count().as('total_count'),
        ])
        .orderBy('runs.seq', 'desc')
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(count().as('total_count')),
  });
  return {
    items: rows.map((r) => ({
      run: RUNS.read(r),
      plan: { id: r.plan_id!, cancelRequestedAt: r.plan_cancel_requested_at },
      apply: { id: r.apply_id!, cancelRequestedAt: r.apply_cancel_requested_at },
      commentIds: idList(r.comment_ids),
      policyCheckIds: idList(r.policy_check_ids),
    })),
    total,
  };
}

/**
 * A column of each workspace's current run (its newest that is not speculative, as a workspace's
 * view names it: workspace-views/store.ts), for filtering and ordering workspaces;
 * `runs_workspace_seq` serves it.
 */
export function currentRunColumn(eb: ExpressionBuilder<Schema, 'workspaces'>, column: 'status' | 'created_at') {
  return eb
    .selectFrom('runs')
    .select(column === 'status' ? 'runs.status' : 'runs.created_at')
    .whereRef('runs.workspace_id', '=', 'workspaces.id')
    .where('runs.speculative', '=', false)
    .orderBy('runs.seq', 'desc')
    .limit(1);
}

export interface RunEvent {
  id: string;
  runId: string;
  action: string;
  description: string | null;
  actorUserId: string | null;
  commentId: string | null;
  createdAt: string;
}

const readEvent = (r: {
  id: string;
  run_id: string;
  action: string;
  description: string | null;
  actor_user_id: string | null;
  comment_id: string | null;
  created_at: string;
}): RunEvent => ({
  id: r.id,
  runId: r.run_id,
  action: r.action,
  description: r.description,
  actorUserId: r.actor_user_id,
  commentId: r.comment_id,
  createdAt: r.created_at,
});

/** Appends an event to its run's (in the transaction that changed the run). */
export async function insertEvent(q: Queryable, e: RunEvent): Promise<void> {
  await q
    .insertInto('run_events')
    .values({
      id: e.id,
      run_id: e.runId,
      action: e.action,
      description: e.description,
      actor_user_id: e.actorUserId,
      comment_id: e.commentId,
      created_at: e.createdAt,
    })
    .execute();
}

export async function eventsOf(q: Queryable, runId: string): Promise<RunEvent[]> {
  return (await q.selectFrom('run_events').selectAll().where('run_id', '=', runId).orderBy('seq').execute()).map(readEvent);
}

export async function findEvent(q: Queryable, id: string): Promise<RunEvent | undefined> {
  const r = await q.selectFrom('run_events').selectAll().where('id', '=', id).executeTakeFirst();
  return r && readEvent(r);
}

export async function describeEvent(q: Queryable, runId: string, action: string, description: string): Promise<void> {
  await q.updateTable('run_events').set({ description }).where('run_id', '=', runId).where('action', '=', action).execute();
}

export interface Comment {
  id: string;
  runId: string;
  body: string;
  createdByUserId: string | null;
  createdAt: string;
}

const readComment = (r: { id: string; run_id: string; body: string; created_by_user_id: string | null; created_at: string }): Comment => ({
  id: r.id,
  runId: r.run_id,
  body: r.body,
  createdByUserId: r.created_by_user_id,
  createdAt: r.created_at,
});

export async function insertComment(q: Queryable, c: Comment): Promise<void> {
  await q.insertInto('comments').values({ id: c.id, run_id: c.runId, body: c.body, created_by_user_id: c.createdByUserId, created_at: c.createdAt }).execute();
}

export async function commentsOf(q: Queryable, runIds: readonly string[]): Promise<Comment[]> {
  if (runIds.length === 0) return [];
  return (
    await q
      .selectFrom('comments')
      .selectAll()
      .where('run_id', 'in', [...runIds])
      .orderBy('seq')
      .execute()
  ).map(readComment);
}

export async function findComments(q: Queryable, ids: readonly string[]): Promise<Comment[]> {
  if (ids.length === 0) return [];
  return (
    await q
      .selectFrom('comments')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute()
  ).map(readComment);
}

const UNFINISHED = RUN_STATUSES.filter((s) => !isFinal(s));

/** Whether a run that has not ended uses this configuration version (`runs_configuration_version`). */
export async function unfinishedRunUses(q: Queryable, configurationVersionId: string): Promise<boolean> {
  const r = await q
    .selectFrom('runs')
    .select('id')
    .where('configuration_version_id', '=', configurationVersionId)
    .where('status', 'in', UNFINISHED)
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

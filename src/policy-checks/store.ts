import type { Queryable } from '../db/index.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { PolicyChecksTable } from '../db/schema.ts';

export type PolicyCheckStatus = 'pending' | 'queued' | 'passed' | 'soft_failed' | 'hard_failed' | 'overridden' | 'errored' | 'canceled' | 'unreachable';

/** One policy's outcome, as TFE's `result.sentinel` reports it per policy. */
export interface PolicyOutcome {
  policySetId: string;
  policySetName: string;
  policy: string;
  enforcementLevel: 'advisory' | 'soft-mandatory' | 'hard-mandatory';
  result: boolean;
  error: string | null;
}

export interface CheckResult {
  result: boolean;
  passed: number;
  totalFailed: number;
  hardFailed: number;
  softFailed: number;
  advisoryFailed: number;
  durationMs: number;
  policies: PolicyOutcome[];
}

export interface PolicyCheck {
  id: string;
  runId: string;
  status: PolicyCheckStatus;
  scope: 'organization' | 'workspace';
  result: CheckResult | null;
  output: string | null;
  statusTimestamps: Record<string, string>;
  overriddenByUserId: string | null;
  createdAt: string;
}

type Row = Omit<PolicyChecksTable, 'seq' | 'status_timestamps'> & { status_timestamps: string };

const read = (r: Row): PolicyCheck => ({
  id: r.id,
  runId: r.run_id,
  status: r.status as PolicyCheckStatus,
  scope: r.scope as PolicyCheck['scope'],
  result: r.result === null ? null : (JSON.parse(r.result) as CheckResult),
  output: r.output,
  statusTimestamps: JSON.parse(r.status_timestamps) as Record<string, string>,
  overriddenByUserId: r.overridden_by_user_id,
  createdAt: r.created_at,
});

const FIELDS = ['id', 'run_id', 'status', 'scope', 'result', 'output', 'status_timestamps', 'overridden_by_user_id', 'created_at'] as const;

export async function insertCheck(q: Queryable, c: PolicyCheck): Promise<void> {
  await q
    .insertInto('policy_checks')
    .values({
      id: c.id,
      run_id: c.runId,
      status: c.status,
      scope: c.scope,
      result: c.result === null ? null : JSON.stringify(c.result),
      output: c.output,
      status_timestamps: JSON.stringify(c.statusTimestamps),
      overridden_by_user_id: c.overriddenByUserId,
      created_at: c.createdAt,
    })
    .execute();
}

export async function findCheck(q: Queryable, id: string): Promise<PolicyCheck | undefined> {
  const r = await q.selectFrom('policy_checks').select(FIELDS).where('id', '=', id).executeTakeFirst();
  return r && read(r);
}

export async function checksOfRun(q: Queryable, runId: string): Promise<PolicyCheck[]> {
  return (await q.selectFrom('policy_checks').select(FIELDS).where('run_id', '=', runId).orderBy('seq').execute()).map(read);
}

/** The checks of several runs, in creation order (one query). */
export async function checksOfRuns(q: Queryable, runIds: readonly string[]): Promise<PolicyCheck[]> {
  if (runIds.length === 0) return [];
  return (
    await q
      .selectFrom('policy_checks')
      .select(FIELDS)
      .where('run_id', 'in', [...runIds])
      .orderBy('seq')
      .execute()
  ).map(read);
}

export async function listChecks(q: Queryable, runId: string, page: Window | null) {
  const base = q.selectFrom('policy_checks').where('run_id', '=', runId);
  return listWithTotal(base, base.select(FIELDS).orderBy('seq'), page, read);
}

/** run id → its checks' ids, in creation order (one query). */
export async function idsOfRuns(q: Queryable, runIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  if (runIds.length === 0) return result;
  const rows = await q
    .selectFrom('policy_checks')
    .select(['id', 'run_id'])
    .where('run_id', 'in', [...runIds])
    .orderBy('seq')
    .execute();
  for (const r of rows) result.set(r.run_id, [...(result.get(r.run_id) ?? []), r.id]);
  return result;
}

/** Runs whose check has waited in `queued` since before `cutoff` (its server stopped mid-way). */
export async function staleQueued(q: Queryable, cutoff: string, limit: number): Promise<string[]> {
  const rows = await q
    .selectFrom('policy_checks')
    .select('run_id')
    .where('status', '=', 'queued')
    .where('created_at', '<', cutoff)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.run_id);
}

/** Moves a check on from one of `from`; undefined when it is no longer there. */
export async function settleCheck(
  q: Queryable,
  c: PolicyCheck,
  from: readonly PolicyCheckStatus[],
  to: PolicyCheckStatus,
  at: string,
  extra: { result?: CheckResult; output?: string; overriddenByUserId?: string | null } = {},
): Promise<PolicyCheck | undefined> {
  const stamps = { ...c.statusTimestamps, [`${to.replace('_', '-')}-at`]: at };
  const r = await q
    .updateTable('policy_checks')
    .set({
      status: to,
      status_timestamps: JSON.stringify(stamps),
      ...(extra.result ? { result: JSON.stringify(extra.result) } : {}),
      ...(extra.output !== undefined ? { output: extra.output } : {}),
      ...(extra.overriddenByUserId !== undefined ? { overridden_by_user_id: extra.overriddenByUserId } : {}),
    })
    .where('id', '=', c.id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1
    ? ({ ...c, status: to, statusTimestamps: stamps, ...extra, result: extra.result ?? c.result, output: extra.output ?? c.output } as PolicyCheck)
    : undefined;
}

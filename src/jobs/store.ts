import type { Queryable } from '../db/index.ts';
import { bool, columns, typed, type Converted } from '../db/columns.ts';
import type { JobsTable } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';
import type { JobPhase, JobStatus } from '../runs/statuses.ts';

export interface Job {
  id: string;
  runId: string;
  phase: JobPhase;
  status: JobStatus;
  agentPoolId: string | null;
  runner: string | null;
  heartbeatAt: string | null;
  statusTimestamps: Record<string, string>;
  additions: number | null;
  changes: number | null;
  destructions: number | null;
  imports: number | null;
  logSize: number;
  logComplete: boolean;
  createdAt: string;
  /** When a cancel was requested while the job ran (its runner interrupts terraform); null: none. */
  cancelRequestedAt: string | null;
}

const json = <C extends string, V>(column: C): Converted<C, V> => ({ column, read: (s: string) => JSON.parse(s) as V, write: (v: V) => JSON.stringify(v) });

const JOBS = columns<JobsTable, Job>({
  id: 'id',
  runId: 'run_id',
  phase: typed<JobPhase>()('phase'),
  status: typed<JobStatus>()('status'),
  agentPoolId: 'agent_pool_id',
  runner: 'runner',
  heartbeatAt: 'heartbeat_at',
  statusTimestamps: json('status_timestamps'),
  additions: 'additions',
  changes: 'changes',
  destructions: 'destructions',
  imports: 'imports',
  logSize: 'log_size',
  logComplete: bool('log_complete'),
  createdAt: 'created_at',
  cancelRequestedAt: 'cancel_requested_at',
});

export async function insertJobs(q: Queryable, jobs: Job[]): Promise<void> {
  await q.insertInto('jobs').values(jobs.map(JOBS.write)).execute();
}

export async function findJob(q: Queryable, id: string): Promise<Job | undefined> {
  const r = await q.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && JOBS.read(r);
}

export async function jobsOfRuns(q: Queryable, runIds: readonly string[]): Promise<Job[]> {
  if (runIds.length === 0) return [];
  return (
    await q
      .selectFrom('jobs')
      .selectAll()
      .where('run_id', 'in', [...runIds])
      .execute()
  ).map(JOBS.read);
}

/** Moves a job from one of `from` to `to`, stamping `<to>-at`; false when it was elsewhere. */
export async function moveJob(
  q: Queryable,
  job: Job,
  from: readonly JobStatus[],
  to: JobStatus,
  at: string,
  extra: Partial<Pick<Job, 'runner' | 'heartbeatAt' | 'additions' | 'changes' | 'destructions' | 'imports'>> = {},
): Promise<Job | undefined> {
  if (!from.includes(job.status)) return undefined;
  const stamps = { ...job.statusTimestamps, [`${to}-at`]: at };
  const r = await q
    .updateTable('jobs')
    .set({
      status: to,
      status_timestamps: JSON.stringify(stamps),
      ...(extra.runner === undefined ? {} : { runner: extra.runner }),
      ...(extra.heartbeatAt === undefined ? {} : { heartbeat_at: extra.heartbeatAt }),
      ...(extra.additions === undefined
        ? {}
        : { additions: extra.additions, changes: extra.changes, destructions: extra.destructions, imports: extra.imports }),
    })
    .where('id', '=', job.id)
    .where('status', '=', job.status)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return undefined;
  return { ...job, ...extra, status: to, statusTimestamps: stamps };
}

/**
 * The oldest queued job, its row held until the transaction ends: on PostgreSQL `FOR UPDATE SKIP
 * LOCKED`, so runners claiming at once each get a different job; SQLite has one writer at a time.
 */
export async function oldestQueued(q: Queryable, agentPoolId: string | null): Promise<Job | undefined> {
  let query = q
    .selectFrom('jobs')
    .selectAll()
    .where('status', '=', 'queued')
    .where('agent_pool_id', agentPoolId === null ? 'is' : '=', agentPoolId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1);
  if (supportsRowLocks(q)) query = query.forUpdate().skipLocked();
  const r = await query.executeTakeFirst();
  return r && JOBS.read(r);
}

/**
 * Still this runner's running job: refreshes the heartbeat and says whether to carry on
 * (`run`), interrupt terraform (`cancel`: a cancel was requested; the runner keeps beating while
 * terraform winds down), or stop at once (`gone`: the job ended or was taken away).
 */
export async function beat(q: Queryable, id: string, runner: string, at: string): Promise<'run' | 'cancel' | 'gone'> {
  const r = await q
    .updateTable('jobs')
    .set({ heartbeat_at: at })
    .where('id', '=', id)
    .where('runner', '=', runner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return 'gone';
  const row = await q.selectFrom('jobs').select('cancel_requested_at').where('id', '=', id).executeTakeFirst();
  return row?.cancel_requested_at ? 'cancel' : 'run';
}

/** Records a cancel request on a running job (the first one counts); false when it is not running. */
export async function requestCancel(q: Queryable, id: string, at: string): Promise<boolean> {
  await q
    .updateTable('jobs')
    .set({ cancel_requested_at: at })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('cancel_requested_at', 'is', null)
    .execute();
  const row = await q.selectFrom('jobs').select(['status', 'cancel_requested_at']).where('id', '=', id).executeTakeFirst();
  return row?.status === 'running' && row.cancel_requested_at !== null;
}

/** The running jobs `runner` holds. */
export async function heldBy(q: Queryable, runner: string): Promise<Job[]> {
  return (await q.selectFrom('jobs').selectAll().where('runner', '=', runner).where('status', '=', 'running').execute()).map(JOBS.read);
}

/** Running jobs whose runner last reported before `cutoff`. */
export async function silentJobs(q: Queryable, cutoff: string, limit: number): Promise<Job[]> {
  return (await q.selectFrom('jobs').selectAll().where('status', '=', 'running').where('heartbeat_at', '<', cutoff).limit(limit).execute()).map(JOBS.read);
}

/** A log grew to `size` bytes (the blob store holds them); never shrinks it, whatever order appends finish in. */
export async function growLog(q: Queryable, jobId: string, size: number): Promise<void> {
  await q.updateTable('jobs').set({ log_size: size }).where('id', '=', jobId).where('log_size', '<', size).execute();
}

export async function completeLog(q: Queryable, jobId: string): Promise<void> {
  await q.updateTable('jobs').set({ log_complete: true }).where('id', '=', jobId).execute();
}

// Jobs: a run's plan and apply phases as rows a runner claims. The whole job protocol lives here
// (claim, heartbeat, log append, results), so the server's own workers and a future remote agent
// speak it the same way. Rules, in one place:
// - a job is claimed once: the claim is a conditional UPDATE of the oldest queued row, under
//   `FOR UPDATE SKIP LOCKED` on PostgreSQL (SQLite has a single writer);
// - a running job's runner beats every HEARTBEAT_MS; a beat that finds the job no longer running
//   (canceled) tells the runner to stop;
// - a job silent for longer than the heartbeat timeout is errored, never requeued: its runner may
//   have changed real infrastructure half-way, so running it again is not safe.
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { checkUploadCredential, issueUploadCredential } from '../crypto/upload-credentials.ts';
import type { BlobKey, BlobStore } from '../blobs/store.ts';
import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { JobPhase, JobStatus } from '../runs/statuses.ts';
import { now } from '../time.ts';
import * as store from './store.ts';
import type { Job } from './store.ts';

export type { Job };

export const HEARTBEAT_MS = 2_000;
export const STX = 0x02;
export const ETX = 0x03;
const FRAME_START = Buffer.from([STX]);
const FRAME_END = Buffer.from([ETX]);
export type JobBlobKind = 'plan-file' | 'plan-json';
/** The most log bytes sealed as one part (appendLog). */
export const LOG_PART_BYTES = 64 * 1024;

export interface ResourceCounts {
  additions: number;
  changes: number;
  destructions: number;
  imports: number;
}

/** How long a log URL works: a reader follows a job from queued to finished with one URL. */
export const LOG_URL_TTL_MS = 3 * 60 * 60_000;

export function createJobsService(deps: { database: Database; keyring: Keyring | null; blobs: BlobStore }) {
  const { database } = deps;
  const db = database.db;
  const keyring = () => loadedKeyring(deps.keyring);
  const { blobs } = deps;
  // A job's log and plan files are blobs it owns (blobs/): they go with its row.
  const logKey = (jobId: string): BlobKey => ({ family: 'jobs', owner: jobId, name: 'log' });
  const blobKey = (jobId: string, kind: JobBlobKind): BlobKey => ({ family: 'jobs', owner: jobId, name: kind });
  const watchers = new Map<string, Set<() => void>>();

  return {
    /**
     * A log URL's last segment, `<job id>.<credential>`: signed like an upload URL, for reading
     * one job's log without a token (go-tfe's log reader follows it as TFE's archivist serves it).
     */
    logObject: (jobId: string) => `${jobId}.${issueUploadCredential(keyring(), 'job-log', jobId, LOG_URL_TTL_MS)}`,

    /** The job a log URL's last segment names, if its credential checks out; 404 otherwise. */
    checkLogObject(object: string): string {
      const dot = object.indexOf('.');
      const id = object.slice(0, Math.max(dot, 0));
      checkUploadCredential(keyring(), 'job-log', id, object.slice(dot + 1));
      return id;
    },

    /** A run's two phases, created with it: the plan to be queued, the apply waiting for it. */
    async createForRun(q: Queryable, runId: string, agentPoolId: string | null, at: string): Promise<{ plan: Job; apply: Job }> {
      const job = (phase: JobPhase): Job => ({
        id: newId(phase),
        runId,
        phase,
        status: 'pending',
        agentPoolId,
        runner: null,
        heartbeatAt: null,
        statusTimestamps: {},
        additions: null,
        changes: null,
        destructions: null,
        imports: null,
        logSize: 0,
        logComplete: false,
        createdAt: at,
        cancelRequestedAt: null,
      });
      const plan = job('plan');
      const apply = job('apply');
      await store.insertJobs(q, [plan, apply]);
      return { plan, apply };
    },

    find: (q: Queryable, id: string) => store.findJob(q, id),
    /** A job, or 404. */
    async show(id: string): Promise<Job> {
      const job = await store.findJob(db, id);
      if (!job) throw errors.notFound();
      return job;
    },
    ofRuns: (q: Queryable, runIds: readonly string[]) => store.jobsOfRuns(q, runIds),
    move: store.moveJob,

    /** Claims the oldest queued job of the pool (null: Hangar's own workers) for `runner`, in the caller's transaction. */
    async claim(q: Queryable, runner: string, agentPoolId: string | null = null): Promise<Job | undefined> {
      const job = await store.oldestQueued(q, agentPoolId);
      if (!job) return undefined;
      const at = now();
      return store.moveJob(q, job, ['queued'], 'running', at, { runner, heartbeatAt: at });
    },

    /** The running jobs `runner` holds (an agent's claim that was answered but never heard). */
    heldBy: (runner: string) => store.heldBy(db, runner),
    /**
     * Whether the runner should carry on with its job: false when it ended, was taken away, or a
     * cancel was requested. The beat is recorded in the last case too (the runner is still busy
     * interrupting terraform), so the scheduler does not take the job for silent meanwhile.
     */
    heartbeat: async (id: string, runner: string) => (await store.beat(db, id, runner, now())) === 'run',

    /** The heartbeat with its reason: carry on, interrupt terraform (a cancel was requested), or stop at once. */
    beat: (id: string, runner: string) => store.beat(db, id, runner, now()),

    /** Records a cancel request on a running job, in the caller's transaction; false when it is not running. */
    requestCancel: (q: Queryable, id: string) => store.requestCancel(q, id, now()),

    /**
     * Calls `wake` whenever something about the job changes that its runner must hear of at once
     * (a cancel or force-cancel in this process); returns the unsubscribe. Only this process hears:
     * a runner elsewhere learns at its next heartbeat.
     */
    watch(id: string, wake: () => void): () => void {
      const set = watchers.get(id) ?? new Set();
      set.add(wake);
      watchers.set(id, set);
      return () => {
        set.delete(wake);
        if (set.size === 0 && watchers.get(id) === set) watchers.delete(id);
      };
    },

    /** Wakes the watchers of these jobs (after the transaction that changed them committed). */
    wake(ids: readonly string[]): void {
      for (const id of ids) for (const w of watchers.get(id) ?? []) w();
    },

    /** Running jobs whose runner has been silent since `cutoff`. */
    silent: (q: Queryable, cutoff: string, limit = 50) => store.silentJobs(q, cutoff, limit),

    /**
     * Appends to a job's log, sealed in parts of at most LOG_PART_BYTES: a reader's range opens
     * only the parts it touches, so a burst of output flushed at once (megabytes of plan) does not
     * make every later 1 MiB read decrypt all of it. A job has one writer (the runner holding it,
     * whose flushes follow one another), so the parts of one append are never interleaved.
     */
    async appendLog(jobId: string, bytes: Uint8Array): Promise<void> {
      if (bytes.byteLength === 0) return;
      if (!(await store.findJob(db, jobId))) return;
      let end = 0;
      for (let at = 0; at < bytes.byteLength; at += LOG_PART_BYTES) end = await blobs.append(logKey(jobId), bytes.subarray(at, at + LOG_PART_BYTES));
      await store.growLog(db, jobId, end);
    },

    completeLog: (q: Queryable, jobId: string) => store.completeLog(q, jobId),

    /**
     * Bytes [offset, offset+limit) of the log as TFE's archivist frames it: STX, the log, and ETX
     * once the log is complete, so a reader knows to stop.
     */
    async readLog(job: Job, offset: number, limit: number): Promise<Buffer> {
      const framedSize = 1 + job.logSize + (job.logComplete ? 1 : 0);
      const end = Math.min(framedSize, offset + limit);
      if (offset >= end) return Buffer.alloc(0);
      // Log bytes [from, to) are framed bytes [from+1, to+1).
      const from = Math.max(offset - 1, 0);
      const to = Math.min(end - 1, job.logSize);
      const pieces = from < to ? await blobs.readPieces(logKey(job.id), from, to) : [];
      if (offset === 0) pieces.unshift(FRAME_START);
      if (job.logComplete && end === framedSize) pieces.push(FRAME_END);
      return Buffer.concat(pieces);
    },

    /** Keeps a plan file or plan JSON of a job, replacing an earlier one; in the caller's transaction on the database backend. */
    putBlob: (q: Queryable, jobId: string, kind: JobBlobKind, bytes: Uint8Array): Promise<void> => blobs.put(blobKey(jobId, kind), bytes, q),

    getBlob: (q: Queryable, jobId: string, kind: JobBlobKind): Promise<Buffer | undefined> => blobs.get(blobKey(jobId, kind), q),
    /** Whether the job keeps that blob, without reading it (a plan's JSON can run to megabytes). */
    hasBlob: async (q: Queryable, jobId: string, kind: JobBlobKind): Promise<boolean> => (await blobs.size(blobKey(jobId, kind), q)) > 0,
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
export type { JobStatus };

// Wakes this process's idle runners the moment a job is queued, so a run starts without waiting
// for a polling interval; runners still poll (other instances queue jobs too, and a notice can
// be missed between a claim that found nothing and the wait that follows it).
export interface JobSignal {
  notify(): void;
  /** Resolves on the next notice, or after `ms`. */
  wait(ms: number): Promise<void>;
}

export function createJobSignal(): JobSignal {
  let waiters: Array<() => void> = [];
  return {
    notify() {
      const woken = waiters;
      waiters = [];
      for (const w of woken) w();
    },
    wait(ms) {
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        timer.unref();
        function done() {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== done);
          resolve();
        }
        waiters.push(done);
      });
    },
  };
}

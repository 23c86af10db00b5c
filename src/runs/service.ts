// Runs as TFE has them: a queue per workspace (one non-speculative run at a time holds the
// workspace's lock; the next pending run starts when it ends), speculative runs beside it, and
// every status change through `move`, which the lifecycle table (statuses.ts) allows or refuses.
// Runners report through the `pipeline` methods; callers act through the actions.
import type { Caller } from '../auth/caller.ts';
import { authorize, can } from '../auth/authorize.ts';
import { actingUserId } from '../auth/principal.ts';
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import type { Database, Queryable } from '../db/index.ts';
import { undoableStep } from '../db/sql.ts';
import { hasPrefix, newId } from '../ids.ts';
import type { Job, JobSignal, JobsService, ResourceCounts } from '../jobs/service.ts';
import { ApiError, errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { RunTriggersService } from '../run-triggers/service.ts';
import { now } from '../time.ts';
import type { WorkspaceLocksService } from '../workspace-locks/service.ts';
import { effectiveExecution, type FoundWorkspace, type Workspace, type WorkspaceBase, type WorkspacesService } from '../workspaces/service.ts';
import { RUN_LIFECYCLE, forceCancelAvailableAt, isFinal, type RunStatus } from './statuses.ts';
import * as store from './store.ts';
import type { Comment, Run, RunEvent, RunVariableInput } from './store.ts';

export type { Comment, Run, RunEvent, RunVariableInput };

export interface RunInput {
  workspaceId: string;
  /** Absent or null: the workspace's latest uploaded configuration version. */
  configurationVersionId?: string | null;
  message?: string;
  isDestroy?: boolean;
  refresh?: boolean;
  refreshOnly?: boolean;
  planOnly?: boolean;
  autoApply?: boolean;
  allowEmptyApply?: boolean;
  savePlan?: boolean;
  targetAddrs?: string[];
  replaceAddrs?: string[];
  variables?: RunVariableInput[];
  terraformVersion?: string;
}

export interface RunListFilter {
  statuses?: readonly string[];
  operations?: readonly string[];
  sources?: readonly string[];
  user?: string;
  commit?: string;
  basic?: string;
  from?: string;
  to?: string;
  query?: string;
}

/** What the caller may do with a run, per TFE's `permissions`. */
export interface RunPermissions {
  queue: boolean;
  apply: boolean;
  /** Export the plan's Sentinel mocks (the workspace's `sentinel-mocks` permission); left out where a view does not tell. */
  downloadMocks?: boolean;
}

export interface RunView {
  run: Run;
  policyCheckIds: string[];
  plan: Job;
  apply: Job;
  commentIds: string[];
  may: RunPermissions;
}

/** A run as a list shows it: its plan and apply named, not read whole (`phasesOf` reads them). */
export interface ListedRunView extends Omit<RunView, 'plan' | 'apply'> {
  plan: store.PhaseRef;
  apply: store.PhaseRef;
}

/**
 * The policy checks of plans (policy-checks/ registers it): `begin` records the run's checks in
 * the plan's transaction when policy sets apply, `evaluate` runs them after it.
 */
export interface PolicyGate {
  begin(q: Queryable, run: Run): Promise<boolean>;
  evaluate(runId: string): Promise<void>;
  checkIds(q: Queryable, runIds: readonly string[]): Promise<Map<string, string[]>>;
  /** Evaluates checks left queued since before `cutoff` (a server stopped mid-way); how many. */
  resume(cutoff: string): Promise<number>;
}

/**
 * Told of every status a run takes (its first, `pending`, included), in the transaction that
 * writes it: notifications/ registers one, so that what it records commits or rolls back with the
 * change. A hook must only write; it runs inside the run's pipeline.
 */
export type RunStatusHook = (q: Queryable, run: Run) => Promise<void>;

const CV_POINTER = '/data/relationships/configuration-version/data/id';

/** The workspaces an apply will queue runs in, read before its transaction (`unread`: the read failed). */
interface Triggered {
  sourceName: string;
  targets: Array<{ workspace: Workspace; agentPoolId: string | null }>;
  unread?: unknown;
}
const NOTHING_TRIGGERED: Triggered = { sourceName: '', targets: [] };
const holder = (run: { id: string }) => ({ type: 'runs' as const, id: run.id });
const notAllowed = (run: Run, what: string) => errors.conflict(`Transition not allowed: the run is ${run.status}, it cannot be ${what}`);

export function createRunsService(deps: {
  database: Database;
  workspaces: WorkspacesService;
  workspaceLocks: WorkspaceLocksService;
  configurationVersions: ConfigurationVersionsService;
  jobs: JobsService;
  signal: JobSignal;
  runTriggers: Pick<RunTriggersService, 'targetsOf'>;
}) {
  const { database, jobs } = deps;
  const db = database.db;
  // Workspaces are filtered and sorted by their current run's status and time (filter[current-run][status], sort=current-run.created-at).
  deps.workspaces.useCurrentRunColumn(store.currentRunColumn);
  // A configuration version an unfinished run still needs is not archived from under it.
  deps.configurationVersions.useInUseCheck((q, id) => store.unfinishedRunUses(q, id));

  let gate: PolicyGate | null = null;
  const statusHooks: RunStatusHook[] = [];
  /** The registered hooks hear that `run` now has its status. */
  async function announce(q: Queryable, run: Run): Promise<void> {
    for (const hook of statusHooks) await hook(q, run);
  }

  /** Past the checks (passed, or overridden): the run waits for confirmation, or applies at once. */
  async function checked(q: Queryable, run: Run, actor: string | null): Promise<void> {
    const passed = await move(q, run, 'policy_checked', actor);
    if (passed && run.autoApply && !run.savePlan) {
      const confirmed = await move(q, passed, 'confirmed');
      if (confirmed) await queuePhase(q, confirmed, 'apply');
    }
  }

  const permissionsOf = (found: FoundWorkspace): RunPermissions => ({
    queue: can(found, 'queue-run'),
    apply: can(found, 'apply-run'),
    downloadMocks: can(found, 'download-sentinel-mocks'),
  });

  async function viewsOf(q: Queryable, runs: readonly Run[], may: (run: Run) => RunPermissions): Promise<RunView[]> {
    const ids = runs.map((r) => r.id);
    const [all, comments, checks] = await Promise.all([
      jobs.ofRuns(q, ids),
      store.commentsOf(q, ids),
      gate ? gate.checkIds(q, ids) : new Map<string, string[]>(),
    ]);
    return runs.map((run) => ({
      run,
      policyCheckIds: checks.get(run.id) ?? [],
      commentIds: comments.filter((c) => c.runId === run.id).map((c) => c.id),
      plan: all.find((j) => j.runId === run.id && j.phase === 'plan')!,
      apply: all.find((j) => j.runId === run.id && j.phase === 'apply')!,
      may: may(run),
    }));
  }

  /** A run whose workspace the caller may read; 404 otherwise. */
  async function find(caller: Caller, id: string) {
    const run = hasPrefix(id, 'run') ? await store.findRun(db, id) : undefined;
    if (!run) throw errors.notFound();
    return { run, found: await deps.workspaces.find(caller, { id: run.workspaceId }) };
  }

  async function event(q: Queryable, run: Run, action: string, actorUserId: string | null, at: string): Promise<void> {
    await store.insertEvent(q, { id: newId('re'), runId: run.id, action, description: null, actorUserId, commentId: null, createdAt: at });
  }

  /** The one way a run changes status; undefined when it already moved elsewhere. */
  async function move(
    q: Queryable,
    run: Run,
    to: RunStatus,
    actor: string | null = null,
    extra: Parameters<typeof store.moveRun>[4] = {},
  ): Promise<Run | undefined> {
    const at = now();
    const moved = await store.moveRun(q, run, to, at, extra);
    if (moved) {
      await event(q, moved, to, actor, at);
      await announce(q, moved);
    }
    return moved;
  }

  async function queuePhase(q: Queryable, run: Run, phase: 'plan' | 'apply'): Promise<Run | undefined> {
    const moved = await move(q, run, phase === 'plan' ? 'plan_queued' : 'apply_queued');
    if (!moved) return undefined;
    const [job] = (await jobs.ofRuns(q, [run.id])).filter((j) => j.phase === phase);
    await jobs.move(q, job!, ['pending'], 'queued', now());
    return moved;
  }

  /**
   * After a run of the workspace ended (or its lock was freed): if nobody holds the lock, the
   * oldest pending run takes it and its plan is queued. Safe to call anywhere, any time.
   */
  async function startNext(q: Queryable, workspaceId: string): Promise<boolean> {
    if (await deps.workspaceLocks.current(q, workspaceId, true)) return false;
    const next = await store.nextPending(q, workspaceId);
    if (!next) return false;
    await deps.workspaceLocks.acquire(q, workspaceId, holder(next), null);
    return (await queuePhase(q, next, 'plan')) !== undefined;
  }

  /** A run that reached a final status gives up its lock, and the workspace's queue moves on. */
  async function ended(q: Queryable, run: Run): Promise<void> {
    if (run.speculative) return;
    await deps.workspaceLocks.releaseIfHeld(q, run.workspaceId, holder(run));
    await startNext(q, run.workspaceId);
  }

  /** A comment on the run, and its `commented` event, in the caller's transaction. */
  async function comment(q: Queryable, run: Run, caller: Caller, body: string): Promise<store.Comment> {
    const c: store.Comment = { id: newId('wsc'), runId: run.id, body, createdByUserId: actingUserId(caller.principal), createdAt: now() };
    await store.insertComment(q, c);
    await store.insertEvent(q, {
      id: newId('re'),
      runId: run.id,
      action: 'commented',
      description: null,
      actorUserId: c.createdByUserId,
      commentId: c.id,
      createdAt: c.createdAt,
    });
    return c;
  }

  /** Ends a run early (cancel, discard, force-cancel), its unfinished phases with it. */
  async function stop(
    caller: Caller,
    id: string,
    to: 'discarded' | 'canceled' | 'force_canceled',
    permitted: (run: Run) => boolean,
    what: string,
    note?: string,
  ): Promise<void> {
    const { run, found } = await find(caller, id);
    authorize(found, to === 'discarded' ? 'queue-run' : 'queue-run');
    if (!permitted(run)) throw notAllowed(run, what);
    await database.transaction(async (trx) => {
      const fresh = (await store.findRun(trx, run.id))!;
      if (!permitted(fresh)) throw notAllowed(fresh, what);
      const moved = await move(trx, fresh, to, actingUserId(caller.principal));
      if (!moved) throw notAllowed(fresh, what);
      if (note) await comment(trx, moved, caller, note);
      for (const job of await jobs.ofRuns(trx, [run.id])) {
        const status = job.status === 'pending' ? 'unreachable' : 'canceled';
        await jobs.move(trx, job, ['pending', 'queued', 'running'], status, now());
        await jobs.completeLog(trx, job.id);
      }
      await ended(trx, moved);
    });
    // A runner executing one of its jobs (force-cancel) hears at once and kills terraform.
    jobs.wake((await jobs.ofRuns(db, [run.id])).map((j) => j.id));
    deps.signal.notify();
  }

  /** The job executing the run's plan or apply now, if any. */
  async function runningJob(q: Queryable, run: Run): Promise<Job | undefined> {
    if (run.status !== 'planning' && run.status !== 'applying') return undefined;
    const phase = run.status === 'planning' ? 'plan' : 'apply';
    return (await jobs.ofRuns(q, [run.id])).find((j) => j.phase === phase && j.status === 'running');
  }

  /**
   * A cancel (TFE's): a run whose plan or apply is executing is asked to stop (its runner
   * interrupts terraform; the run ends `canceled` when terraform exits, force-cancel becomes
   * possible after a cool-off); any other cancelable run ends at once.
   */
  async function cancel(caller: Caller, id: string, note?: string): Promise<void> {
    const { run, found } = await find(caller, id);
    authorize(found, 'queue-run');
    const requested = await database.transaction(async (trx) => {
      const fresh = (await store.findRun(trx, run.id))!;
      const job = await runningJob(trx, fresh);
      if (!job) return undefined;
      if (job.cancelRequestedAt) throw errors.conflict('Transition not allowed: a cancel of this run was already requested');
      if (!(await jobs.requestCancel(trx, job.id))) return undefined;
      await event(trx, fresh, 'cancel_requested', actingUserId(caller.principal), now());
      if (note) await comment(trx, fresh, caller, note);
      return job;
    });
    if (requested) return jobs.wake([requested.id]);
    await stop(caller, id, 'canceled', (r) => RUN_LIFECYCLE[r.status].cancelable, 'canceled', note);
  }

  /** A report about a job whose cancel was requested: the run ends `canceled` (in the report's transaction). */
  async function canceledByRequest(q: Queryable, job: Job): Promise<boolean> {
    const fresh = await jobs.find(q, job.id);
    if (!fresh?.cancelRequestedAt) return false;
    await jobs.move(q, fresh, ['running'], 'canceled', now());
    await jobs.completeLog(q, job.id);
    const run = (await store.findRun(q, job.runId))!;
    if (isFinal(run.status)) return true;
    for (const other of await jobs.ofRuns(q, [run.id])) {
      if (other.status === 'pending') await jobs.move(q, other, ['pending'], 'unreachable', now());
    }
    const canceled = await move(q, run, 'canceled');
    if (canceled) await ended(q, canceled);
    return true;
  }

  /** A new run's rows, whoever made it: the run (its status hooks told of `pending`), its `queued` event, and its two jobs. */
  async function insertQueued(trx: Queryable, run: Run, agentPoolId: string | null, at: string): Promise<void> {
    await store.insertRun(trx, run);
    await announce(trx, run);
    await event(trx, run, 'queued', run.createdByUserId, at);
    await jobs.createForRun(trx, run.id, agentPoolId, at);
  }

  /**
   * A run Hangar queues itself (auto-destroy, a run trigger), in the caller's transaction: with
   * the workspace's newest uploaded configuration, created by nobody, behind the workspace's
   * queue. Null when the workspace has no configuration to run.
   */
  async function queueOwnRun(
    trx: Queryable,
    o: { workspaceId: string; agentPoolId: string | null; message: string; source: string; isDestroy: boolean; autoApply: boolean },
  ): Promise<string | null> {
    const cv = await deps.configurationVersions.latestUploaded(trx, o.workspaceId);
    if (!cv || cv.status !== 'uploaded') return null;
    const at = now();
    const run: Run = {
      id: newId('run'),
      workspaceId: o.workspaceId,
      configurationVersionId: cv.id,
      status: 'pending',
      message: o.message,
      source: o.source,
      isDestroy: o.isDestroy,
      refresh: true,
      refreshOnly: false,
      planOnly: false,
      autoApply: o.autoApply,
      allowEmptyApply: false,
      savePlan: false,
      speculative: false,
      hasChanges: false,
      targetAddrs: [],
      replaceAddrs: [],
      variables: [],
      statusTimestamps: { 'plan-queueable-at': at },
      createdByUserId: null,
      confirmedByUserId: null,
      terraformVersion: null,
      createdAt: at,
    };
    await insertQueued(trx, run, o.agentPoolId, at);
    await startNext(trx, o.workspaceId);
    return run.id;
  }

  /**
   * What an apply of a run in `workspaceId` will queue if it succeeds: every workspace its
   * workspace triggers that Hangar executes runs for (not `local` mode), with the source's name.
   * Read before the apply's transaction: on SQLite that transaction holds the one connection, and
   * the organization's execution mode comes from a lookup outside it. An error here is not the
   * apply's: it is recorded on the run as a trigger that failed.
   */
  async function triggeredBy(workspaceId: string): Promise<Triggered> {
    try {
      const targets = await deps.runTriggers.targetsOf(db, workspaceId);
      if (targets.length === 0) return NOTHING_TRIGGERED;
      // The source (for its name) and every target, in one query.
      const rows = new Map((await deps.workspaces.rows([workspaceId, ...targets])).map((w) => [w.id, w]));
      const found = targets.map((id) => rows.get(id)).filter((w) => w !== undefined);
      const executions = await Promise.all(found.map((w) => deps.workspaces.executionOf(w)));
      return {
        sourceName: rows.get(workspaceId)?.name ?? workspaceId,
        targets: found.flatMap((workspace, i) => {
          const execution = executions[i];
          return execution && execution.mode !== 'local' ? [{ workspace, agentPoolId: execution.mode === 'agent' ? execution.agentPoolId : null }] : [];
        }),
      };
    } catch (e) {
      return { sourceName: '', targets: [], unread: e };
    }
  }

  /**
   * In the transaction that moved `source` to `applied`: a run in every triggered workspace,
   * auto-applied as that workspace's `auto-apply-run-trigger` says. Each is one undoable step, so
   * a target that cannot be queued (recorded as a `run_trigger_failed` event of the source run)
   * neither stops the others nor fails the source's apply; and since they commit with the apply,
   * a server stopping in between cannot lose them.
   */
  async function triggerRuns(trx: Queryable, source: Run, triggered: Triggered): Promise<void> {
    const failed = (target: string, e: unknown) =>
      store.insertEvent(trx, {
        id: newId('re'),
        runId: source.id,
        action: 'run_trigger_failed',
        // An ApiError says what a user may read; anything else (the database's words) is not shown.
        description: `No run could be queued in ${target}: ${e instanceof ApiError ? e.message : 'an internal error'}`.slice(0, 1000),
        actorUserId: null,
        commentId: null,
        createdAt: now(),
      });
    if (triggered.unread !== undefined) return failed('the triggered workspaces', triggered.unread);
    for (const { workspace, agentPoolId } of triggered.targets) {
      try {
        await undoableStep(trx, () =>
          queueOwnRun(trx, {
            workspaceId: workspace.id,
            agentPoolId,
            message: `Triggered by successful apply of ${source.id} in workspace ${triggered.sourceName}`,
            source: 'tfe-run-trigger',
            isDestroy: false,
            autoApply: workspace.autoApplyRunTrigger,
          }),
        );
      } catch (e) {
        await failed(workspace.id, e);
      }
    }
  }

  const may = (found: FoundWorkspace) => {
    const p = permissionsOf(found);
    return () => p;
  };

  return {
    async create(caller: Caller, input: RunInput): Promise<RunView> {
      const found = await deps.workspaces.find(caller, { id: input.workspaceId });
      authorize(found, 'queue-run');
      if (input.isDestroy && !can(found, 'apply-run') && !input.planOnly) authorize(found, 'apply-run');
      const cvId = input.configurationVersionId ?? undefined;
      const cv = cvId === undefined ? undefined : await deps.configurationVersions.row(db, cvId);
      if (cvId !== undefined && (!cv || cv.workspaceId !== found.workspace.id)) {
        throw errors.invalidAttribute(CV_POINTER, 'Configuration version not found in this workspace');
      }
      const latest = cv ?? (await deps.configurationVersions.latestUploaded(db, found.workspace.id));
      if (!latest) throw errors.invalidAttribute(CV_POINTER, 'The workspace has no uploaded configuration version');
      if (latest.status !== 'uploaded') throw errors.invalidAttribute(CV_POINTER, `The configuration version is ${latest.status}, not uploaded`);
      if (input.isDestroy && input.refreshOnly) throw errors.invalidAttribute('/data/attributes/refresh-only', 'A run cannot be both destroy and refresh-only');
      const at = now();
      const planOnly = input.planOnly ?? false;
      const run: Run = {
        id: newId('run'),
        workspaceId: found.workspace.id,
        configurationVersionId: latest.id,
        status: 'pending',
        message: input.message ?? 'Triggered via API',
        source: 'tfe-api',
        isDestroy: input.isDestroy ?? false,
        refresh: input.refresh ?? true,
        refreshOnly: input.refreshOnly ?? false,
        planOnly,
        autoApply: input.autoApply ?? found.workspace.autoApply ?? false,
        allowEmptyApply: input.allowEmptyApply ?? false,
        savePlan: input.savePlan ?? false,
        // Speculative runs plan only, and neither queue behind the workspace's runs nor lock it.
        speculative: planOnly || latest.speculative,
        hasChanges: false,
        targetAddrs: input.targetAddrs ?? [],
        replaceAddrs: input.replaceAddrs ?? [],
        variables: input.variables ?? [],
        statusTimestamps: { 'plan-queueable-at': at },
        createdByUserId: actingUserId(caller.principal),
        confirmedByUserId: null,
        // TFE takes another version for plan-only runs only.
        terraformVersion: planOnly ? (input.terraformVersion ?? null) : null,
        createdAt: at,
      };
      const execution = effectiveExecution(found.workspace, found.org);
      await database.transaction(async (trx) => {
        await insertQueued(trx, run, execution.mode === 'agent' ? execution.agentPoolId : null, at);
        if (run.speculative) await queuePhase(trx, run, 'plan');
        else await startNext(trx, run.workspaceId);
      });
      deps.signal.notify();
      const fresh = (await store.findRun(db, run.id))!;
      return (await viewsOf(db, [fresh], may(found)))[0]!;
    },

    async show(caller: Caller, id: string): Promise<RunView> {
      const { run, found } = await find(caller, id);
      return (await viewsOf(db, [run], may(found)))[0]!;
    },

    /** The current runs of workspaces the caller was shown (for `include=`): three queries however many there are. */
    async currentOfViews(shown: ReadonlyArray<Pick<WorkspaceBase, 'workspace' | 'permissions'> & { runs: { current: string | null } }>): Promise<RunView[]> {
      const byWorkspace = new Map(shown.map((v) => [v.workspace.id, v]));
      const runs = await store.findRuns(
        db,
        shown.flatMap((v) => (v.runs.current ? [v.runs.current] : [])),
      );
      return viewsOf(db, runs, (run) => {
        const p = byWorkspace.get(run.workspaceId)!.permissions;
        return { queue: p['can-queue-run'], apply: p['can-queue-apply'] };
      });
    },

    /** Runs by id for `include=` of another resource the caller was shown. */
    async views(runIds: readonly string[], permissions: RunPermissions): Promise<RunView[]> {
      return viewsOf(db, await store.findRuns(db, runIds), () => permissions);
    },

    /** The page, its runs' plans, applies, comments and checks, and the count in one statement once the workspace is found. */
    async list(caller: Caller, workspaceId: string, page: Page, filter: RunListFilter = {}): Promise<{ items: ListedRunView[]; total: number }> {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      const { items, total } = await store.listRuns(db, { workspaceId: found.workspace.id, ...filter }, page, gate !== null);
      // One permissions object for the page: every run is of this workspace.
      const permissions = permissionsOf(found);
      return { items: items.map((listed) => ({ ...listed, may: permissions })), total };
    },

    /** An organization's runs (or its queue: `statuses`), of the workspaces the caller sees. */
    async listForOrganization(
      caller: Caller,
      organizationName: string,
      page: Page,
      filter: RunListFilter = {},
    ): Promise<{ items: ListedRunView[]; total: number }> {
      const { org, visible, found } = await deps.workspaces.visibility(caller, organizationName);
      const { items, total } = await store.listRuns(db, { organization: { id: org.id, visible }, ...filter }, page, gate !== null);
      const byWorkspace = await found([...new Set(items.map((r) => r.run.workspaceId))]);
      return { items: items.map((listed) => ({ ...listed, may: permissionsOf(byWorkspace.get(listed.run.workspaceId)!) })), total };
    },

    /** The whole plan and apply of each run (`include=plan,apply`): one query for a list's, none for views that hold them. */
    async phasesOf(views: ReadonlyArray<ListedRunView | RunView>): Promise<Map<string, { plan: Job; apply: Job }>> {
      const whole = views.filter((v): v is RunView => 'phase' in v.plan && 'phase' in v.apply);
      if (whole.length === views.length) return new Map(whole.map((v) => [v.run.id, { plan: v.plan, apply: v.apply }]));
      const all = await jobs.ofRuns(
        db,
        views.map((v) => v.run.id),
      );
      return new Map(
        views.map((v) => [
          v.run.id,
          { plan: all.find((j) => j.runId === v.run.id && j.phase === 'plan')!, apply: all.find((j) => j.runId === v.run.id && j.phase === 'apply')! },
        ]),
      );
    },

    /** A comment on a run (TFE: whoever may queue runs there may comment). */
    async comment(caller: Caller, id: string, body: string): Promise<store.Comment> {
      const { run, found } = await find(caller, id);
      authorize(found, 'queue-run');
      return database.transaction((trx) => comment(trx, run, caller, body));
    },

    async comments(caller: Caller, id: string): Promise<store.Comment[]> {
      const { run } = await find(caller, id);
      return store.commentsOf(db, [run.id]);
    },

    /** Comments by id, for a caller who may read their runs (404 otherwise). */
    async findComment(caller: Caller, commentId: string): Promise<store.Comment> {
      const [c] = hasPrefix(commentId, 'wsc') ? await store.findComments(db, [commentId]) : [];
      if (!c) throw errors.notFound();
      await find(caller, c.runId);
      return c;
    },

    /** Comments by id (of events the caller was shown). */
    commentsById: (ids: readonly string[]) => store.findComments(db, ids),

    /** Every run of the installation, for a site admin (TFE's `/admin/runs`); 404 for anyone else. */
    async listAll(caller: Caller, page: Page, filter: RunListFilter = {}) {
      authorize({ principal: caller.principal }, 'administer-site');
      const { items, total } = await store.listRuns(db, filter, page, gate !== null);
      const permissions = { queue: true, apply: true };
      return { items: items.map((listed) => ({ ...listed, may: permissions })), total };
    },

    /**
     * Every organization's workspaces for a site admin (TFE's `/admin/workspaces`), filtered by
     * their current run's status and sorted by name or their current run's creation.
     */
    async adminWorkspaces(
      caller: Caller,
      page: Page,
      f: { query?: string; statuses?: readonly string[]; sort?: { field: 'name' | 'current-run.created-at'; descending: boolean } },
    ) {
      const statuses = f.statuses;
      return deps.workspaces.listAll(
        caller,
        {
          ...(f.query ? { query: f.query } : {}),
          ...(statuses ? { where: (eb) => eb(store.currentRunColumn(eb, 'status'), 'in', [...statuses]) } : {}),
          ...(f.sort
            ? { order: f.sort.field === 'name' ? { by: 'name' } : { by: 'expression', expression: (eb) => store.currentRunColumn(eb, 'created_at') } }
            : {}),
          descending: f.sort?.descending ?? false,
        },
        page,
      );
    },

    /** Runs by id for a site admin (the current runs of `/admin/workspaces`); 404 for anyone else. */
    async adminViews(caller: Caller, ids: readonly string[]) {
      authorize({ principal: caller.principal }, 'administer-site');
      return viewsOf(db, await store.findRuns(db, ids), () => ({ queue: true, apply: true }));
    },

    /** A site admin ends any run that has not ended (TFE's admin force-cancel). */
    async adminForceCancel(caller: Caller, id: string, note?: string): Promise<void> {
      authorize({ principal: caller.principal }, 'administer-site');
      // TFE's admin force-cancel leaves any unfinished run `canceled`.
      await stop(caller, id, 'canceled', (r) => !isFinal(r.status), 'force-canceled', note);
    },

    async apply(caller: Caller, id: string, note?: string): Promise<void> {
      const { run, found } = await find(caller, id);
      authorize(found, 'apply-run');
      await database.transaction(async (trx) => {
        const fresh = (await store.findRun(trx, run.id))!;
        if (!RUN_LIFECYCLE[fresh.status].confirmable) throw notAllowed(fresh, 'applied');
        const confirmed = await move(trx, fresh, 'confirmed', actingUserId(caller.principal), { confirmedByUserId: actingUserId(caller.principal) });
        if (!confirmed || !(await queuePhase(trx, confirmed, 'apply'))) throw notAllowed(fresh, 'applied');
        if (note) await comment(trx, confirmed, caller, note);
      });
      deps.signal.notify();
    },

    discard: (caller: Caller, id: string, note?: string) => stop(caller, id, 'discarded', (r) => RUN_LIFECYCLE[r.status].discardable, 'discarded', note),
    cancel,
    /** Ends a run at once, its terraform killed: only after a cancel was requested and its cool-off passed (TFE's rule). */
    async forceCancel(caller: Caller, id: string, note?: string): Promise<void> {
      const { run, found } = await find(caller, id);
      authorize(found, 'queue-run');
      const job = await runningJob(db, run);
      if (job && !job.cancelRequestedAt) throw errors.conflict('Transition not allowed: cancel the run first; force-cancel is available after a cool-off');
      const available = forceCancelAvailableAt(job?.cancelRequestedAt ?? null);
      if (available && Date.parse(available) > Date.now()) {
        throw errors.conflict(`Transition not allowed: force-cancel is available from ${available}`);
      }
      await stop(caller, id, 'force_canceled', (r) => (r.status === 'planning' || r.status === 'applying') && job !== undefined, 'force-canceled', note);
    },

    /** Starts a pending run now: the run holding the workspace (if it has not started applying) is canceled. */
    async forceExecute(caller: Caller, id: string): Promise<void> {
      const { run, found } = await find(caller, id);
      authorize(found, 'queue-run');
      if (run.status !== 'pending' || run.speculative) throw notAllowed(run, 'force-executed');
      await database.transaction(async (trx) => {
        const lock = await deps.workspaceLocks.current(trx, run.workspaceId, true);
        if (lock && lock.holderType !== 'runs') throw errors.conflict('The workspace is locked by a user or team; unlock it first');
        if (lock) {
          const current = (await store.findRun(trx, lock.holderId))!;
          const to = RUN_LIFECYCLE[current.status].discardable ? 'discarded' : 'canceled';
          const moved = current && (await move(trx, current, to, actingUserId(caller.principal)));
          if (!moved) throw notAllowed(current, 'replaced');
          await deps.workspaceLocks.releaseIfHeld(trx, run.workspaceId, holder(current));
        }
        await deps.workspaceLocks.acquire(trx, run.workspaceId, holder(run), null);
        if (!(await queuePhase(trx, run, 'plan'))) throw notAllowed(run, 'force-executed');
      });
      deps.signal.notify();
    },

    async events(caller: Caller, id: string): Promise<RunEvent[]> {
      const { run } = await find(caller, id);
      return store.eventsOf(db, run.id);
    },

    async event(caller: Caller, eventId: string): Promise<RunEvent> {
      const e = hasPrefix(eventId, 're') ? await store.findEvent(db, eventId) : undefined;
      if (!e) throw errors.notFound();
      await find(caller, e.runId);
      return e;
    },

    /** A plan or apply and its run, for a caller who may read the run's workspace. */
    async phase(caller: Caller, jobId: string, phase: 'plan' | 'apply'): Promise<{ job: Job; view: RunView }> {
      const job = hasPrefix(jobId, phase) ? await jobs.find(db, jobId) : undefined;
      if (!job) throw errors.notFound();
      const view = await this.show(caller, job.runId);
      return { job, view };
    },

    /** The plan's JSON as the runner stored it (already redacted); 404 until the plan finished. */
    async planJson(caller: Caller, planId: string): Promise<Buffer> {
      const { job, view } = await this.phase(caller, planId, 'plan');
      authorize(await deps.workspaces.find(caller, { id: view.run.workspaceId }), 'read-state');
      const bytes = await jobs.getBlob(db, job.id, 'plan-json');
      if (!bytes) throw errors.notFound();
      return bytes;
    },

    // What runners report. Each is one transaction; a report about a run that moved on (canceled
    // meanwhile) changes nothing.
    pipeline: {
      runOf: (runId: string) => store.findRun(db, runId),

      /** The Terraform version the run asks for: its own (a plan-only run's), else its workspace's setting. */
      async terraformVersionOf(run: Run): Promise<string | null> {
        if (run.terraformVersion) return run.terraformVersion;
        const [workspace] = await deps.workspaces.rows([run.workspaceId]);
        return workspace?.terraformVersion ?? null;
      },

      /** The plan file the run's plan produced (its apply applies exactly that). */
      async planFileOf(runId: string): Promise<Buffer | null> {
        const plan = (await jobs.ofRuns(db, [runId])).find((j) => j.phase === 'plan');
        return (plan && (await jobs.getBlob(db, plan.id, 'plan-file'))) ?? null;
      },

      /** Runs whose job's runner went silent since `cutoff`: errored, their locks released. */
      async reapSilent(cutoff: string): Promise<number> {
        const silent = await jobs.silent(db, cutoff);
        for (const job of silent) await this.failed(job, 'The runner executing this job stopped responding');
        return silent.length;
      },

      async started(job: Job): Promise<boolean> {
        return database.transaction(async (trx) => {
          const run = (await store.findRun(trx, job.runId))!;
          return (await move(trx, run, job.phase === 'plan' ? 'planning' : 'applying')) !== undefined;
        });
      },

      async planned(job: Job, counts: ResourceCounts, hasChanges: boolean): Promise<void> {
        let checking = false;
        await database.transaction(async (trx) => {
          // Asked to cancel, the plan ends the run even if terraform finished before it heard.
          if (await canceledByRequest(trx, job)) return;
          const finished = await jobs.move(trx, job, ['running'], 'finished', now(), counts);
          await jobs.completeLog(trx, job.id);
          const run = (await store.findRun(trx, job.runId))!;
          if (!finished) return;
          const applyable = !run.speculative && !run.refreshOnly && (hasChanges || run.allowEmptyApply);
          const refreshable = !run.speculative && run.refreshOnly;
          if (!applyable && !refreshable) {
            const done = await move(trx, run, 'planned_and_finished', null, { hasChanges });
            if (done) await ended(trx, done);
            return;
          }
          if (gate && (await gate.begin(trx, run))) {
            checking = (await move(trx, run, 'policy_checking', null, { hasChanges })) !== undefined;
            if (checking) return;
          }
          const planned = await move(trx, run, run.savePlan ? 'planned_and_saved' : 'planned', null, { hasChanges });
          if (planned && run.autoApply && !run.savePlan) {
            const confirmed = await move(trx, planned, 'confirmed');
            if (confirmed) await queuePhase(trx, confirmed, 'apply');
          }
        });
        if (checking) await gate!.evaluate(job.runId);
        deps.signal.notify();
      },

      /** The policy checks ended: the run goes on, waits for an override, or errors. */
      async policyChecked(runId: string, outcome: 'passed' | 'override' | 'errored', reason: string | null): Promise<void> {
        await database.transaction(async (trx) => {
          const run = await store.findRun(trx, runId);
          if (!run || run.status !== 'policy_checking') return;
          if (outcome === 'passed') return checked(trx, run, null);
          if (outcome === 'override') return void (await move(trx, run, 'policy_override'));
          const errored = await move(trx, run, 'errored');
          if (errored) {
            if (reason) await store.describeEvent(trx, run.id, 'errored', reason.slice(0, 1000));
            await ended(trx, errored);
          }
        });
        deps.signal.notify();
      },

      /** A soft-mandatory failure was overridden (in the override's transaction): the run goes on. */
      async policyOverridden(q: Queryable, runId: string, actor: string | null): Promise<boolean> {
        const run = await store.findRun(q, runId);
        if (!run || run.status !== 'policy_override') return false;
        await checked(q, run, actor);
        return true;
      },

      async applied(job: Job, counts: ResourceCounts): Promise<void> {
        const before = await store.findRun(db, job.runId);
        const triggered = before ? await triggeredBy(before.workspaceId) : NOTHING_TRIGGERED;
        await database.transaction(async (trx) => {
          await jobs.move(trx, job, ['running'], 'finished', now(), counts);
          await jobs.completeLog(trx, job.id);
          const run = (await store.findRun(trx, job.runId))!;
          const done = await move(trx, run, 'applied');
          if (!done) return;
          await ended(trx, done);
          // Only the report that moved the run fires its triggers (a retried report changes nothing).
          await triggerRuns(trx, done, triggered);
        });
        deps.signal.notify();
      },

      /** The job failed (terraform exited non-zero, a limit was hit, or its runner went silent). */
      async failed(job: Job, reason: string): Promise<void> {
        await database.transaction(async (trx) => {
          if (await canceledByRequest(trx, job)) return;
          // A report about a job that already ended (a retried report that did land) changes nothing.
          if (!(await jobs.move(trx, job, ['queued', 'running'], 'errored', now()))) return;
          await jobs.completeLog(trx, job.id);
          const run = (await store.findRun(trx, job.runId))!;
          if (isFinal(run.status)) return;
          const errored = await move(trx, run, 'errored');
          if (errored) {
            await store.describeEvent(trx, run.id, 'errored', reason.slice(0, 1000));
            await ended(trx, errored);
          }
        });
        deps.signal.notify();
      },

      /** Policy checks a stopped server left queued run now (a conditional write settles each once). */
      resumePolicyChecks: (cutoff: string): Promise<number> => (gate ? gate.resume(cutoff) : Promise.resolve(0)),

      /**
       * A destroy run Hangar queues itself (auto-destroy), auto-applied, created in one
       * transaction with `claim`, the caller's conditional write: when the claim finds another
       * instance was first, nothing is created. Null also when the workspace has no uploaded
       * configuration to plan the destroy with (the claim stands: there is nothing to run).
       */
      async queueAutoDestroy(
        workspaceId: string,
        agentPoolId: string | null,
        message: string,
        claim: (q: Queryable) => Promise<boolean>,
      ): Promise<string | null> {
        const id = await database.transaction(async (trx) => {
          if (!(await claim(trx))) return null;
          // TFE: an automatic destroy plan is applied without asking.
          return queueOwnRun(trx, { workspaceId, agentPoolId, message, source: 'tfe-api', isDestroy: true, autoApply: true });
        });
        if (id) deps.signal.notify();
        return id;
      },

      /** Workspaces whose queue is waiting on a lock that is free now (a user unlocked it): starts them. */
      async startWaiting(): Promise<number> {
        let started = 0;
        for (const workspaceId of await store.workspacesWaiting(db, 50)) {
          if (await database.transaction((trx) => startNext(trx, workspaceId))) started++;
        }
        if (started > 0) deps.signal.notify();
        return started;
      },
    },

    usePolicyGate(g: PolicyGate) {
      gate = g;
    },

    /** Registers a hook told of every status a run takes, in that change's transaction (see RunStatusHook). */
    onStatus(hook: RunStatusHook) {
      statusHooks.push(hook);
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;

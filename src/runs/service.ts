// Runs, as far as Hangar goes: it executes nothing (Terraform runs locally, with Hangar as its
// state backend). A run is recorded as `pending` and holds its workspace's lock, as a queued run
// does in TFE, until it is discarded or canceled. There is no queue: a locked workspace refuses
// a new run (409).
import type { Caller } from '../auth/caller.ts';
import { authorize, can } from '../auth/authorize.ts';
import { actingUserId } from '../auth/principal.ts';
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import type { Database } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { ApiError, errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { WorkspaceLocksService } from '../workspace-locks/service.ts';
import type { FoundWorkspace, WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { Run } from './store.ts';

export type { Run };

export interface RunInput {
  workspaceId: string;
  configurationVersionId?: string;
  message?: string;
  isDestroy?: boolean;
  refresh?: boolean;
  refreshOnly?: boolean;
  planOnly?: boolean;
  autoApply?: boolean;
}

export interface RunView {
  run: Run;
  /** What the caller may do with it (the `permissions` and `actions` of the resource). */
  mayAct: boolean;
}

const CV_POINTER = '/data/relationships/configuration-version/data/id';
const holder = (run: { id: string }) => ({ type: 'runs' as const, id: run.id });

export function createRunsService(deps: {
  database: Database;
  workspaces: WorkspacesService;
  workspaceLocks: WorkspaceLocksService;
  configurationVersions: ConfigurationVersionsService;
}) {
  const db = deps.database.db;
  const viewOf = (run: Run, found: FoundWorkspace): RunView => ({ run, mayAct: can(found, 'queue-run') });

  /** A run whose workspace the caller may read; 404 otherwise. */
  async function find(caller: Caller, id: string) {
    const run = hasPrefix(id, 'run') ? await store.findRun(db, id) : undefined;
    if (!run) throw errors.notFound();
    return { run, found: await deps.workspaces.find(caller, { id: run.workspaceId }) };
  }

  /** Discards or cancels a pending run and releases the lock it holds (if it still does). */
  async function finish(caller: Caller, id: string, status: 'discarded' | 'canceled'): Promise<void> {
    const { run, found } = await find(caller, id);
    authorize(found, 'queue-run');
    await deps.database.transaction(async (trx) => {
      if (!(await store.finishRun(trx, run.id, status, now()))) {
        throw errors.conflict(`Transition not allowed: the run is ${run.status === 'pending' ? 'no longer pending' : run.status}`);
      }
      await deps.workspaceLocks.releaseIfHeld(trx, run.workspaceId, holder(run));
    });
  }

  return {
    async create(caller: Caller, input: RunInput): Promise<RunView> {
      const found = await deps.workspaces.find(caller, { id: input.workspaceId });
      authorize(found, 'queue-run');
      const cv = input.configurationVersionId === undefined ? undefined : await deps.configurationVersions.row(db, input.configurationVersionId);
      if (input.configurationVersionId !== undefined && (!cv || cv.workspaceId !== found.workspace.id)) {
        throw errors.invalidAttribute(CV_POINTER, 'Configuration version not found in this workspace');
      }
      const latest = cv ?? (await deps.configurationVersions.latestUploaded(db, found.workspace.id));
      if (!latest) throw errors.invalidAttribute(CV_POINTER, 'The workspace has no uploaded configuration version');
      if (latest.status !== 'uploaded') throw errors.invalidAttribute(CV_POINTER, `The configuration version is ${latest.status}, not uploaded`);
      const run: Run = {
        id: newId('run'),
        workspaceId: found.workspace.id,
        configurationVersionId: latest.id,
        status: 'pending',
        message: input.message ?? 'Queued manually via the Terraform Enterprise API',
        source: 'tfe-api',
        isDestroy: input.isDestroy ?? false,
        refresh: input.refresh ?? true,
        refreshOnly: input.refreshOnly ?? false,
        planOnly: input.planOnly ?? false,
        autoApply: input.autoApply ?? false,
        createdByUserId: actingUserId(caller.principal),
        createdAt: now(),
        discardedAt: null,
        canceledAt: null,
      };
      try {
        await deps.database.transaction(async (trx) => {
          await store.insertRun(trx, run);
          await deps.workspaceLocks.acquire(trx, run.workspaceId, holder(run), null);
        });
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          throw errors.conflict('The workspace is locked. Hangar has no run queue: a run starts only on an unlocked workspace.');
        }
        throw e;
      }
      return viewOf(run, found);
    },

    async show(caller: Caller, id: string): Promise<RunView> {
      const { run, found } = await find(caller, id);
      return viewOf(run, found);
    },

    async list(caller: Caller, workspaceId: string, page: Page) {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      const { items, total } = await store.listRuns(db, found.workspace.id, page);
      return { items: items.map((run) => viewOf(run, found)), total };
    },

    discard: (caller: Caller, id: string) => finish(caller, id, 'discarded'),
    cancel: (caller: Caller, id: string) => finish(caller, id, 'canceled'),
  };
}

export type RunsService = ReturnType<typeof createRunsService>;

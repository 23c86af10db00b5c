// Run triggers, as TFE has them: a workspace (the target) names another workspace of its
// organization (the sourceable) whose successful applies queue a run in it. Managing a
// workspace's triggers is one of its settings (workspace admin, `update-workspace`) and needs
// read access to the source; reading them needs read access to either workspace. The runs domain
// asks `targetsOf` when a run reaches `applied` and queues the runs itself (runs/service.ts).
import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { ApiError, errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { FoundWorkspace, WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { Direction, RunTrigger } from './store.ts';

export type { Direction, RunTrigger };

/** TFE's limit on the source workspaces of one workspace. */
export const MAX_INBOUND_RUN_TRIGGERS = 20;

const SOURCEABLE = '/data/relationships/sourceable';

/** A trigger as the API shows it: with both workspaces' names. */
export interface RunTriggerView {
  trigger: RunTrigger;
  workspaceName: string;
  sourceableName: string;
}

/** A 404 from a lookup means "not for this caller"; anything else is an answer of its own. */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

export function createRunTriggersService(deps: { database: Database; workspaces: WorkspacesService }) {
  const { database, workspaces } = deps;
  const db = database.db;

  async function viewsOf(triggers: readonly RunTrigger[]): Promise<RunTriggerView[]> {
    const ids = [...new Set(triggers.flatMap((t) => [t.workspaceId, t.sourceableId]))];
    const names = new Map((await workspaces.rows(ids)).map((w) => [w.id, w.name]));
    return triggers.map((trigger) => ({
      trigger,
      workspaceName: names.get(trigger.workspaceId) ?? '',
      sourceableName: names.get(trigger.sourceableId) ?? '',
    }));
  }

  /** The trigger and whichever of its workspaces the caller may read; 404 when neither. */
  async function find(caller: Caller, id: string): Promise<{ trigger: RunTrigger; target: FoundWorkspace | null }> {
    const trigger = hasPrefix(id, 'rt') ? await store.findRunTrigger(db, id) : undefined;
    if (!trigger) throw errors.notFound();
    const target = await orNull(workspaces.find(caller, { id: trigger.workspaceId }));
    if (!target && !(await orNull(workspaces.find(caller, { id: trigger.sourceableId })))) throw errors.notFound();
    return { trigger, target };
  }

  return {
    async create(caller: Caller, workspaceId: string, sourceableId: string | undefined): Promise<RunTriggerView> {
      const found = await workspaces.find(caller, { id: workspaceId });
      authorize(found, 'update-workspace');
      if (!sourceableId) throw errors.invalidAttribute(SOURCEABLE, 'A run trigger needs a source workspace (sourceable)');
      if (sourceableId === found.workspace.id) throw errors.invalidAttribute(SOURCEABLE, 'A workspace cannot trigger runs in itself');
      // TFE: a source the caller may not read is not found.
      const source = await workspaces.find(caller, { id: sourceableId });
      if (source.org.id !== found.org.id) throw errors.invalidAttribute(SOURCEABLE, "The source workspace must belong to the workspace's organization");
      const trigger: RunTrigger = { id: newId('rt'), workspaceId: found.workspace.id, sourceableId: source.workspace.id, createdAt: now() };
      await guarded(
        database.transaction(async (trx) => {
          // Two additions at once would both count 19 without it.
          await workspaces.lock(trx, trigger.workspaceId);
          if ((await store.countSources(trx, trigger.workspaceId)) >= MAX_INBOUND_RUN_TRIGGERS) {
            throw errors.invalidAttribute(SOURCEABLE, `A workspace can have at most ${MAX_INBOUND_RUN_TRIGGERS} source workspaces`);
          }
          await store.insertRunTrigger(trx, trigger);
        }),
        {
          unique: () => errors.invalidAttribute(SOURCEABLE, 'This workspace already has a run trigger from that source workspace'),
          // One of the two workspaces was deleted a moment ago.
          foreignKey: () => errors.notFound(),
        },
      );
      return (await viewsOf([trigger]))[0]!;
    },

    /** A page of the workspace's triggers: `inbound` (its sources) or `outbound` (the workspaces it triggers). */
    async list(caller: Caller, workspaceId: string, direction: Direction, page: Page): Promise<{ items: RunTriggerView[]; total: number }> {
      const found = await workspaces.find(caller, { id: workspaceId });
      const { items, total } = await store.listRunTriggers(db, found.workspace.id, direction, page);
      return { items: await viewsOf(items), total };
    },

    async show(caller: Caller, id: string): Promise<RunTriggerView> {
      return (await viewsOf([(await find(caller, id)).trigger]))[0]!;
    },

    /** Deleting a trigger is a setting of its target workspace (TFE: admin of the workspace). */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { trigger, target } = await find(caller, id);
      if (!target) throw errors.forbidden("You are not allowed to manage this workspace's run triggers");
      authorize(target, 'update-workspace');
      await store.deleteRunTrigger(db, trigger.id);
    },

    /** For the runs domain: the workspaces a successful apply in `sourceableId` queues runs in. */
    targetsOf: (q: Queryable, sourceableId: string): Promise<string[]> => store.targetsOf(q, sourceableId),
  };
}

export type RunTriggersService = ReturnType<typeof createRunTriggersService>;

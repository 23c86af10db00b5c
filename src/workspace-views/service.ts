// A workspace as the API shows it: what the workspaces domain knows (the row, its project, the
// caller's permissions, its tags), joined here with what the domains built on it know (its lock,
// current configuration version, runs, current state and resource count, variables). Assembled
// above those domains, calling each one's service, so that the workspaces domain knows none of
// them. A page of workspaces costs one query per domain, however many workspaces it holds.
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { RunsService } from '../runs/service.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import type { VariablesService } from '../variables/service.ts';
import type { WorkspaceLocksService, WorkspaceLockView } from '../workspace-locks/service.ts';
import { autoDestroyAt, type WorkspaceBase } from '../workspaces/service.ts';
import type { Beside } from '../workspaces/store.ts';
import { readViewColumns, viewColumns, type ViewColumns } from './store.ts';

export interface WorkspaceView extends WorkspaceBase {
  lock: WorkspaceLockView | null;
  /** Its newest configuration version that is not provisional, if any. */
  currentConfigurationVersionId: string | null;
  runs: { count: number; current: string | null };
  resourceCount: number;
  /** Its current state version, if it has one. */
  currentStateVersionId: string | null;
  /** The ids of its own variables (TFE's `vars` relationship). */
  variableIds: string[];
  /** When auto-destroy will act (`auto-destroy-at`): the explicit time, or the end of the idle spell. */
  autoDestroyAt: string | null;
}

export function createWorkspaceViewsService(deps: {
  database: Database;
  workspaceLocks: Pick<WorkspaceLocksService, 'locksOf'>;
  configurationVersions: Pick<ConfigurationVersionsService, 'currentOf'>;
  runs: Pick<RunsService, 'summaries'>;
  stateVersions: Pick<StateVersionsService, 'resourceCountsOf'>;
  variables: Pick<VariablesService, 'workspaceVariableIds'>;
}) {
  const db = deps.database.db;

  /** What a list of workspaces reads beside each row, in its one statement (store.ts). */
  const beside: Beside<ViewColumns> = { key: 'workspace views', select: viewColumns, read: readViewColumns };

  /** The view of a workspace read with the columns `beside` adds: no query. */
  function viewed(base: WorkspaceBase, v: ViewColumns): WorkspaceView {
    const state = v.state && { count: v.state.resourceCount, stateCreatedAt: v.state.createdAt };
    return {
      ...base,
      lock: v.lock,
      currentConfigurationVersionId: v.currentConfigurationVersionId,
      runs: v.runs,
      resourceCount: state?.count ?? 0,
      currentStateVersionId: v.state?.id ?? null,
      variableIds: v.variableIds,
      autoDestroyAt: autoDestroyAt(base.workspace, base.project, state ?? undefined),
    };
  }

  /**
   * The views of workspaces the workspaces domain returned, in the same order: read beside them
   * when it listed them with `beside`, else one query per domain.
   */
  async function complete(bases: ReadonlyArray<WorkspaceBase & { beside?: ViewColumns | undefined }>, q: Queryable = db): Promise<WorkspaceView[]> {
    if (bases.length === 0) return [];
    if (bases.every((b) => b.beside !== undefined)) return bases.map((b) => viewed(b, b.beside!));
    const ids = bases.map((b) => b.workspace.id);
    const locks = await deps.workspaceLocks.locksOf(q, ids);
    const configurations = await deps.configurationVersions.currentOf(q, ids);
    const runs = await deps.runs.summaries(q, ids);
    const resources = await deps.stateVersions.resourceCountsOf(q, ids);
    const variables = await deps.variables.workspaceVariableIds(q, ids);
    return bases.map((base) => {
      const id = base.workspace.id;
      return {
        ...base,
        lock: locks.get(id) ?? null,
        currentConfigurationVersionId: configurations.get(id) ?? null,
        runs: runs.get(id) ?? { count: 0, current: null },
        resourceCount: resources.get(id)?.count ?? 0,
        currentStateVersionId: resources.get(id)?.currentStateVersion ?? null,
        variableIds: variables.get(id) ?? [],
        autoDestroyAt: autoDestroyAt(base.workspace, base.project, resources.get(id)),
      };
    });
  }

  return {
    complete,
    /** For the workspaces domain's list: what the views need, read beside each workspace. */
    beside,
    /** The view of one workspace. */
    one: async (base: WorkspaceBase): Promise<WorkspaceView> => (await complete([base]))[0]!,
    /** A page of workspaces, viewed. */
    page: async <P extends { items: ReadonlyArray<WorkspaceBase & { beside?: ViewColumns | undefined }> }>(
      page: P,
    ): Promise<Omit<P, 'items'> & { items: WorkspaceView[] }> => ({
      ...page,
      items: await complete(page.items),
    }),
  };
}

export type WorkspaceViewsService = ReturnType<typeof createWorkspaceViewsService>;

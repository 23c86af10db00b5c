// A workspace as the API shows it: what the workspaces domain knows (the row, its project, the
// caller's permissions, its tags), joined here with what the domains built on it know (its lock,
// current configuration version, runs, current state and resource count, variables). Assembled
// above those domains, so that the workspaces domain knows none of them: a page of workspaces
// reads the views beside its rows in its one statement, and any other workspaces read them in
// one more (store.ts).
import type { Database, Queryable } from '../db/index.ts';
import type { WorkspaceLockView } from '../workspace-locks/service.ts';
import { autoDestroyAt, type WorkspaceBase } from '../workspaces/service.ts';
import type { Beside } from '../workspaces/store.ts';
import { readViewColumns, viewColumns, viewsOf, type ViewColumns } from './store.ts';

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

export function createWorkspaceViewsService(deps: { database: Database }) {
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
   * when it listed them with `beside`, else in one statement (store.ts).
   */
  async function complete(bases: ReadonlyArray<WorkspaceBase & { beside?: ViewColumns | undefined }>, q: Queryable = db): Promise<WorkspaceView[]> {
    if (bases.length === 0) return [];
    if (bases.every((b) => b.beside !== undefined)) return bases.map((b) => viewed(b, b.beside!));
    const views = await viewsOf(
      q,
      bases.map((b) => b.workspace.id),
    );
    return bases.map((base) => viewed(base, views(base.workspace.id)));
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

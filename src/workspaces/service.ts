import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { authorize, can, denied, type ProjectSubject } from '../auth/authorize.ts';
import type { Standing } from '../auth/organization.ts';
import { workspacePermissions, type WorkspacePermissions } from '../auth/permission-sets.ts';
import { workspaceFilter, type ProjectAuthority } from '../auth/project-scope.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { Schema } from '../db/schema.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { Project, ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import { AutoDestroyDuration, checkAttributes, Description, WorkspaceName } from '../values.ts';
import * as store from './store.ts';
import type { Workspace } from './store.ts';

export type { Workspace };

export interface WorkspaceInput {
  name?: string;
  description?: string | null;
  /** undefined = not sent; null = sent as null. */
  autoDestroyActivityDuration?: string | null;
  inheritsProjectAutoDestroy?: boolean;
  /** The project relationship; on update, a different project moves the workspace. */
  projectId?: string;
}

/** Who holds a workspace's lock (the workspace-locks domain owns locks and reports them here). */
export interface WorkspaceLockView {
  holderType: 'users' | 'teams' | 'runs';
  holderId: string;
  reason: string | null;
}

/** Loads the locks of the given workspaces (one query), by workspace id. */
export type WorkspaceLockReader = (q: Queryable, workspaceIds: readonly string[]) => Promise<Map<string, WorkspaceLockView>>;

export interface WorkspaceView {
  workspace: Workspace;
  organizationName: string;
  project: Project;
  permissions: WorkspacePermissions;
  lock: WorkspaceLockView | null;
}

/** A workspace found for a caller, with what the service needs to decide further. */
export interface FoundWorkspace extends ProjectSubject {
  workspace: Workspace;
  project: Project;
}

/** A workspace named by id (`/workspaces/:id`) or by organization and name. */
export type WorkspaceRef = { id: string } | { organizationName: string; name: string };

/** What the API shows as `auto-destroy-activity-duration`: the project's while inheriting. */
export function effectiveAutoDestroy(w: Workspace, project: Project): string | null {
  return w.inheritsProjectAutoDestroy ? project.autoDestroyActivityDuration : w.autoDestroyActivityDuration;
}

/**
 * How a request changes the pair (own duration, inherits). An explicit flag wins; a duration
 * sent without the flag is an override (else the value sent would be silently ignored); a null
 * duration sent without the flag clears an override but never changes whether it inherits.
 */
function autoDestroySettings(input: WorkspaceInput, current: { own: string | null; inherits: boolean }) {
  const sent = input.autoDestroyActivityDuration;
  if (input.inheritsProjectAutoDestroy === true) return { own: null, inherits: true };
  if (input.inheritsProjectAutoDestroy === false) return { own: sent !== undefined ? sent : current.own, inherits: false };
  if (sent === undefined) return current;
  if (sent === null) return { own: null, inherits: current.inherits };
  return { own: sent, inherits: false };
}

const validate = (input: WorkspaceInput) =>
  checkAttributes({
    name: [WorkspaceName, input.name],
    description: [Description(1000), input.description],
    'auto-destroy-activity-duration': [AutoDestroyDuration, input.autoDestroyActivityDuration],
  });

const projectNotFound = () => errors.invalidAttribute('/data/relationships/project/data/id', 'Project not found');

export function createWorkspacesService(deps: { database: Database; organizationLookup: OrganizationLookup; projectAccess: ProjectAccess }) {
  const { database, projectAccess } = deps;
  const db = database.db;

  /** The workspaces with their projects and the caller's authority there: two queries (projects, grants). */
  async function withAuthority(standing: Standing, workspaces: readonly Workspace[]): Promise<FoundWorkspace[]> {
    const projects = await projectAccess.rows(db, workspaces.map((w) => w.projectId));
    const byId = new Map(projects.map((p) => [p.id, p]));
    const authority = await projectAccess.authorities(db, standing, projects);
    return workspaces.map((workspace) => ({
      workspace,
      standing,
      project: byId.get(workspace.projectId)!,
      authority: authority.get(workspace.projectId)!,
    }));
  }

  // Registered by the workspace-locks domain (which builds on this one), so that every view of a
  // workspace says whether it is locked without this domain knowing how locks are kept.
  let readLocks: WorkspaceLockReader = async () => new Map();

  /** The views of found workspaces: one query for all their locks. */
  async function views(found: readonly FoundWorkspace[], q: Queryable = db): Promise<WorkspaceView[]> {
    const locks = found.length ? await readLocks(q, found.map((f) => f.workspace.id)) : new Map<string, WorkspaceLockView>();
    return found.map(({ workspace, standing, project, authority }) => ({
      workspace,
      organizationName: standing.organizationName,
      project,
      permissions: workspacePermissions({ standing, authority }),
      lock: locks.get(workspace.id) ?? null,
    }));
  }
  const view = async (found: FoundWorkspace): Promise<WorkspaceView> => (await views([found]))[0]!;

  /** A workspace the caller may read; 404 for everything else. */
  async function find(caller: Caller, ref: WorkspaceRef): Promise<FoundWorkspace> {
    let workspace: Workspace | undefined;
    let standing: Standing;
    if ('id' in ref) {
      workspace = hasPrefix(ref.id, 'ws') ? await store.findWorkspaceById(db, ref.id) : undefined;
      if (!workspace) throw errors.notFound();
      ({ standing } = await deps.organizationLookup.findById(caller, workspace.organizationId));
    } else {
      const found = await deps.organizationLookup.find(caller, ref.organizationName);
      standing = found.standing;
      workspace = await store.findWorkspaceByName(db, found.org.id, ref.name);
      if (!workspace) throw errors.notFound();
    }
    const [found] = await withAuthority(standing, [workspace]);
    if (!found?.project) throw errors.notFound();
    authorize(found, 'read-workspace');
    return found;
  }

  /**
   * Moves workspaces into a project, all or nothing, in one transaction with a fixed number of
   * queries however many there are. `then` runs in the same transaction after the move.
   */
  async function moveInto(caller: Caller, destinationId: string, ids: readonly string[], then?: (trx: Transaction<Schema>) => Promise<void>): Promise<void> {
    const duplicate = ids.findIndex((id, i) => ids.indexOf(id) !== i);
    if (duplicate >= 0) throw errors.invalidAttribute(`/data/${duplicate}/id`, `Workspace ${ids[duplicate]} is listed more than once`);
    const found = await projectAccess.row(db, destinationId);
    if (!found) throw errors.notFound();
    // Standing is loaded before the transaction: SQLite has one connection, held by the transaction.
    const { standing } = await deps.organizationLookup.findById(caller, found.organizationId);
    await guarded(
      database.transaction(async (trx) => {
        // A share lock: concurrent moves into the project proceed, its deletion waits for us.
        const destination = await projectAccess.row(trx, destinationId, 'share');
        if (!destination) throw errors.notFound();
        const workspaces = await store.lockWorkspaces(trx, ids);
        const byId = new Map(workspaces.map((w) => [w.id, w]));
        const sourceIds = [...new Set(workspaces.filter((w) => w.organizationId === destination.organizationId).map((w) => w.projectId))];
        const sources = await projectAccess.rows(trx, sourceIds.filter((id) => id !== destination.id));
        const authority = await projectAccess.authorities(trx, standing, [destination, ...sources]);
        authorize({ standing, authority: authority.get(destination.id)! }, 'move-workspaces-into');
        const offending = ids.filter((id) => {
          const w = byId.get(id);
          const a: ProjectAuthority | undefined = w && w.organizationId === destination.organizationId ? authority.get(w.projectId) : undefined;
          return !a || !can({ standing, authority: a }, 'move-workspace-out');
        });
        if (offending.length) {
          throw denied('move-workspace-out', `Workspace(s) not found, or you are not authorized to move them: ${offending.join(', ')}`);
        }
        await store.moveWorkspaces(trx, ids, destination.id, now());
        await then?.(trx);
      }),
      // Unreachable with the share lock; the foreign key is the last line of defence.
      { foreignKey: () => errors.notFound() },
    );
  }

  return {
    moveInto,

    /** For the domains built on workspaces (locks, state): the workspace if the caller may read it, else 404. */
    find,
    /** The view of a workspace found with `find`, as of now (after a lock changed, say). */
    view,
    useLockReader(reader: WorkspaceLockReader): void {
      readLocks = reader;
    },

    countByProject: (q: Queryable, projectIds: readonly string[]) => store.countByProject(q, projectIds),

    /** For domains that refer to workspaces (policy sets, agent pools): which ids are this organization's workspaces. */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = db) => store.workspaceIdsInOrganization(q, organizationId, ids),

    /** The id of the organization's workspace so named, if the caller may read it (agent pools filter by name). */
    async readableIdByName(caller: Caller, organizationName: string, name: string): Promise<string | undefined> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const workspace = await store.findWorkspaceByName(db, org.id, name);
      const [found] = workspace ? await withAuthority(standing, [workspace]) : [];
      return found?.project && can(found, 'read-workspace') ? found.workspace.id : undefined;
    },

    async create(caller: Caller, organizationName: string, input: WorkspaceInput & { name: string }): Promise<WorkspaceView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const project = input.projectId === undefined ? await projectAccess.defaultProject(db, org.id) : await projectAccess.row(db, input.projectId);
      if (!project || project.organizationId !== org.id) throw projectNotFound();
      const authority = (await projectAccess.authorities(db, standing, [project])).get(project.id)!;
      // The project is named in the body: one the caller may not see is answered as one that does not exist.
      if (!can({ standing, authority }, 'read-project')) throw projectNotFound();
      authorize({ standing, authority }, 'create-workspace');
      validate(input);
      const settings = autoDestroySettings(input, { own: null, inherits: true });
      const at = now();
      const workspace: Workspace = {
        id: newId('ws'),
        organizationId: org.id,
        projectId: project.id,
        name: input.name,
        description: input.description ?? null,
        autoDestroyActivityDuration: settings.own,
        inheritsProjectAutoDestroy: settings.inherits,
        createdAt: at,
        updatedAt: at,
      };
      // A foreign-key failure: the project was deleted a moment ago.
      await guarded(store.insertWorkspace(db, workspace), { unique: () => errors.taken('name'), foreignKey: projectNotFound });
      return view({ workspace, standing, project, authority });
    },

    show: async (caller: Caller, ref: WorkspaceRef): Promise<WorkspaceView> => view(await find(caller, ref)),

    async list(caller: Caller, organizationName: string, filter: { projectId?: string; search?: string; descending: boolean }, page: Page) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const { items, total } = await store.listWorkspaces(db, { organizationId: org.id, visible: workspaceFilter(standing), ...filter }, page);
      return { items: await views(await withAuthority(standing, items)), total };
    },

    /** Attributes need workspace admin; a different project moves it under the move rules. */
    async update(caller: Caller, ref: WorkspaceRef, input: WorkspaceInput): Promise<WorkspaceView> {
      const current = await find(caller, ref);
      const w = current.workspace;
      const changesAttributes =
        input.name !== undefined ||
        input.description !== undefined ||
        input.autoDestroyActivityDuration !== undefined ||
        input.inheritsProjectAutoDestroy !== undefined;
      const moving = input.projectId !== undefined && input.projectId !== w.projectId;
      if (changesAttributes) authorize(current, 'update-workspace');
      validate(input);
      const settings = autoDestroySettings(input, { own: w.autoDestroyActivityDuration, inherits: w.inheritsProjectAutoDestroy });
      const patch = {
        name: input.name,
        description: input.description,
        autoDestroyActivityDuration: settings.own,
        inheritsProjectAutoDestroy: settings.inherits,
        updatedAt: now(),
      };
      const write = moving
        ? moveInto(caller, input.projectId!, [w.id], async (trx) => {
            if (changesAttributes) await store.updateWorkspace(trx, w.id, patch);
          })
        : changesAttributes
          ? store.updateWorkspace(db, w.id, patch)
          : Promise.resolve();
      await guarded(write, { unique: () => errors.taken('name') });
      const updated = await store.findWorkspaceById(db, w.id);
      if (!updated) throw errors.notFound();
      return view((await withAuthority(current.standing, [updated]))[0]!);
    },

    async destroy(caller: Caller, ref: WorkspaceRef): Promise<void> {
      const found = await find(caller, ref);
      authorize(found, 'destroy-workspace');
      await store.deleteWorkspace(db, found.workspace.id);
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

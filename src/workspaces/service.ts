import type { Database, Queryable } from '../db/index.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/index.ts';
import type { Transaction } from 'kysely';
import type { Schema } from '../db/schema.ts';
import type { Caller } from '../auth/caller.ts';
import { projectScope, type ProjectAuthority, type Standing } from '../auth/permissions.ts';
import { errors } from '../jsonapi/errors.ts';
import { hasPrefix, newId } from '../ids.ts';
import { now } from '../time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/service.ts';
import { autoDestroyDurationProblem, type Project, type ProjectLookup } from '../projects/service.ts';
import * as store from './store.ts';
import type { Workspace } from './store.ts';

export type { Workspace };

const WORKSPACE_NAME = /^[A-Za-z0-9_-]+$/;
const MAX_NAME = 90;
const MAX_DESCRIPTION = 1000;

export interface WorkspaceInput {
  name?: string;
  description?: string | null;
  /** undefined = not sent; null = sent as null. */
  autoDestroyActivityDuration?: string | null;
  inheritsProjectAutoDestroy?: boolean;
  /** The project relationship; on update, a different project moves the workspace. */
  projectId?: string;
}

export interface WorkspaceView {
  workspace: Workspace;
  organizationName: string;
  project: Project;
  authority: ProjectAuthority;
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

function validate(input: WorkspaceInput): void {
  const problems: Array<{ pointer: string; detail: string }> = [];
  if (input.name !== undefined) {
    const pointer = '/data/attributes/name';
    if (input.name.length === 0 || !WORKSPACE_NAME.test(input.name)) {
      problems.push({ pointer, detail: 'Name may only contain letters, numbers, "-" and "_"' });
    } else if (input.name.length > MAX_NAME) {
      problems.push({ pointer, detail: `Name is too long (maximum is ${MAX_NAME} characters)` });
    }
  }
  if (typeof input.description === 'string' && input.description.length > MAX_DESCRIPTION) {
    problems.push({ pointer: '/data/attributes/description', detail: `Description is too long (maximum is ${MAX_DESCRIPTION} characters)` });
  }
  const duration = autoDestroyDurationProblem(input.autoDestroyActivityDuration);
  if (duration) problems.push(duration);
  if (problems.length) throw errors.invalid(problems);
}

const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');
const projectNotFound = () => errors.invalidAttribute('/data/relationships/project/data/id', 'Project not found');

export function createWorkspacesService(deps: { database: Database; organizations: OrganizationLookup; projects: ProjectLookup }) {
  const { database } = deps;
  const db = database.db;

  /** Views of a page of workspaces: two queries (their projects, the caller's grants there). */
  async function views(standing: Standing, workspaces: readonly Workspace[]): Promise<WorkspaceView[]> {
    const projects = await deps.projects.findMany(db, workspaces.map((w) => w.projectId));
    const byId = new Map(projects.map((p) => [p.id, p]));
    const authority = await deps.projects.authorities(db, standing, projects);
    return workspaces.map((workspace) => ({
      workspace,
      organizationName: standing.organizationName,
      project: byId.get(workspace.projectId)!,
      authority: authority.get(workspace.projectId)!,
    }));
  }

  /** A workspace the caller may read; 404 for everything else. */
  async function visible(caller: Caller, ref: WorkspaceRef): Promise<WorkspaceView & { standing: Standing }> {
    let workspace: Workspace | undefined;
    let standing: Standing;
    if ('id' in ref) {
      workspace = hasPrefix(ref.id, 'ws') ? await store.findWorkspaceById(db, ref.id) : undefined;
      if (!workspace) throw errors.notFound();
      ({ standing } = await deps.organizations.resolveById(caller, workspace.organizationId));
    } else {
      const resolved = await deps.organizations.resolve(caller, ref.organizationName);
      standing = resolved.standing;
      workspace = await store.findWorkspaceByName(db, resolved.org.id, ref.name);
      if (!workspace) throw errors.notFound();
    }
    const [view] = await views(standing, [workspace]);
    if (!view?.project || !view.authority.readWorkspaces) throw errors.notFound();
    return { ...view, standing };
  }

  /**
   * Moves workspaces into a project, all or nothing, in one transaction with a fixed number of
   * queries however many there are. `then` runs in the same transaction after the move.
   */
  async function moveInto(
    caller: Caller,
    destinationId: string,
    ids: readonly string[],
    then?: (trx: Transaction<Schema>) => Promise<void>,
  ): Promise<void> {
    const duplicate = ids.findIndex((id, i) => ids.indexOf(id) !== i);
    if (duplicate >= 0) throw errors.invalidAttribute(`/data/${duplicate}/id`, `Workspace ${ids[duplicate]} is listed more than once`);
    const found = await deps.projects.find(db, destinationId);
    if (!found) throw errors.notFound();
    // Standing is loaded before the transaction: SQLite has one connection, held by the transaction.
    const { standing } = await deps.organizations.resolveById(caller, found.organizationId);
    try {
      await database.transaction(async (trx) => {
        // A share lock: concurrent moves into the project proceed, its deletion waits for us.
        const destination = await deps.projects.find(trx, destinationId, 'share');
        if (!destination) throw errors.notFound();
        const workspaces = await store.lockWorkspaces(trx, ids);
        const byId = new Map(workspaces.map((w) => [w.id, w]));
        const sourceIds = [...new Set(workspaces.filter((w) => w.organizationId === destination.organizationId).map((w) => w.projectId))];
        const sources = await deps.projects.findMany(trx, sourceIds.filter((id) => id !== destination.id));
        const authority = await deps.projects.authorities(trx, standing, [destination, ...sources]);
        if (!authority.get(destination.id)?.moveWorkspace) throw errors.notFound();
        const offending = ids.filter((id) => {
          const w = byId.get(id);
          const a = w && w.organizationId === destination.organizationId ? authority.get(w.projectId) : undefined;
          return !a || !a.readWorkspaces || !a.moveWorkspace;
        });
        if (offending.length) {
          throw errors.forbidden(`Workspace(s) not found, or you are not authorized to move them: ${offending.join(', ')}`);
        }
        await store.moveWorkspaces(trx, ids, destination.id, now());
        await then?.(trx);
      });
    } catch (e) {
      // Unreachable with the share lock; the foreign key is the last line of defence.
      if (isForeignKeyViolation(e)) throw errors.notFound();
      throw e;
    }
  }

  return {
    visible,
    moveInto,

    countByProject: (q: Queryable, projectIds: readonly string[]) => store.countByProject(q, projectIds),

    /** For domains that refer to workspaces (policy sets, agent pools): which ids are this organization's workspaces. */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = db) =>
      store.workspaceIdsInOrganization(q, organizationId, ids),

    async create(caller: Caller, organizationName: string, input: WorkspaceInput & { name: string }): Promise<WorkspaceView> {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName);
      const project = input.projectId === undefined ? await deps.projects.findDefault(db, org.id) : await deps.projects.find(db, input.projectId);
      if (!project || project.organizationId !== org.id) throw projectNotFound();
      const authority = (await deps.projects.authorities(db, standing, [project])).get(project.id)!;
      if (!authority.read) throw projectNotFound();
      if (!authority.createWorkspace) throw errors.forbidden('You are not allowed to create workspaces in this project');
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
      try {
        await store.insertWorkspace(db, workspace);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        // The project was deleted a moment ago.
        if (isForeignKeyViolation(e)) throw projectNotFound();
        throw e;
      }
      return { workspace, organizationName: org.name, project, authority };
    },

    async show(caller: Caller, ref: WorkspaceRef): Promise<WorkspaceView> {
      return visible(caller, ref);
    },

    async list(caller: Caller, organizationName: string, filter: { projectId?: string; search?: string; descending: boolean }, page: Page) {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName);
      const { items, total } = await store.listWorkspaces(
        db,
        { organizationId: org.id, visible: projectScope(standing, 'read-workspaces'), ...filter },
        page,
      );
      return { items: await views(standing, items), total };
    },

    /** Attributes need workspace admin; a different project moves it under the move rules. */
    async update(caller: Caller, ref: WorkspaceRef, input: WorkspaceInput): Promise<WorkspaceView> {
      const current = await visible(caller, ref);
      const w = current.workspace;
      const changesAttributes =
        input.name !== undefined ||
        input.description !== undefined ||
        input.autoDestroyActivityDuration !== undefined ||
        input.inheritsProjectAutoDestroy !== undefined;
      const moving = input.projectId !== undefined && input.projectId !== w.projectId;
      if (changesAttributes && !current.authority.manageWorkspaces) {
        throw errors.forbidden('You are not allowed to change the settings of this workspace');
      }
      validate(input);
      const settings = autoDestroySettings(input, { own: w.autoDestroyActivityDuration, inherits: w.inheritsProjectAutoDestroy });
      const patch = {
        name: input.name,
        description: input.description,
        autoDestroyActivityDuration: settings.own,
        inheritsProjectAutoDestroy: settings.inherits,
        updatedAt: now(),
      };
      try {
        if (moving) {
          await moveInto(caller, input.projectId!, [w.id], async (trx) => {
            if (changesAttributes) await store.updateWorkspace(trx, w.id, patch);
          });
        } else if (changesAttributes) {
          await store.updateWorkspace(db, w.id, patch);
        }
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      const updated = await store.findWorkspaceById(db, w.id);
      if (!updated) throw errors.notFound();
      const [view] = await views(current.standing, [updated]);
      return view!;
    },

    async destroy(caller: Caller, ref: WorkspaceRef): Promise<void> {
      const { workspace, authority } = await visible(caller, ref);
      if (!authority.deleteWorkspaces) throw errors.forbidden('You are not allowed to delete this workspace');
      await store.deleteWorkspace(db, workspace.id);
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import type { Standing } from '../auth/organization.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors, unknownIds, type Problem } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import { checkAttributes, Description, VariableSetName } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { AppliedSet, SetScope, VariableSet } from './store.ts';

export type { AppliedSet, VariableSet };

export interface VariableSetInput {
  name?: string;
  description?: string;
  global?: boolean;
  priority?: boolean;
  /** The owning project; on create only (an organization parent means no project). */
  parentProjectId?: string;
  /** Replace the set's workspaces or projects with these (create and update bodies). */
  workspaceIds?: string[];
  projectIds?: string[];
}

export interface VariableSetView {
  set: VariableSet;
  organizationName: string;
  workspaceIds: string[];
  projectIds: string[];
  variableIds: string[];
}

/** Set id → the ids of its variables, oldest first (registered by the variables domain). */
export type SetVariableIdsReader = (q: Queryable, setIds: readonly string[]) => Promise<Map<string, string[]>>;

export type Relation = 'workspaces' | 'projects';
const NOUN: Record<Relation, string> = { workspaces: 'Workspace', projects: 'Project' };

const dedupe = (ids: readonly string[]) => [...new Set(ids)];

/** Read: see the set and its variables. Manage: change it, its variables and where it applies. */
type Mode = 'read' | 'manage';

export const SET_DESCRIPTION_MAX = 512;
const check = (input: VariableSetInput) =>
  checkAttributes({ name: [VariableSetName, input.name], description: [Description(SET_DESCRIPTION_MAX), input.description] });

/**
 * Variable sets: owned by an organization (managed with `manage-variable-sets`) or by one of its
 * projects (managed with that project's `variable-sets: write` too), applied globally, to
 * workspaces or to projects. Their variables live in the variables domain.
 */
export function createVariableSetsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  workspaces: WorkspacesService;
}) {
  const { database } = deps;
  const db = database.db;
  let readVariableIds: SetVariableIdsReader = async () => new Map();

  const links = { workspaces: store.setWorkspaces, projects: store.setProjects } as const;

  async function views(q: Queryable, sets: readonly VariableSet[], organizationName: string): Promise<VariableSetView[]> {
    const ids = sets.map((s) => s.id);
    const workspaces = await store.setWorkspaces.of(q, ids);
    const projects = await store.setProjects.of(q, ids);
    const variables = ids.length ? await readVariableIds(q, ids) : new Map<string, string[]>();
    return sets.map((set) => ({
      set,
      organizationName,
      workspaceIds: workspaces.get(set.id) ?? [],
      projectIds: projects.get(set.id) ?? [],
      variableIds: variables.get(set.id) ?? [],
    }));
  }
  const view = async (set: VariableSet, organizationName: string) => (await views(db, [set], organizationName))[0]!;

  /**
   * The set for a caller who may `mode` it: 404 when it does not exist or is another
   * organization's, 403 when the caller sees the organization but lacks the permission. A set a
   * project owns is also open to whoever holds `variable-sets` on that project.
   */
  async function find(caller: Caller, id: string, mode: Mode): Promise<{ set: VariableSet; organizationName: string; standing: Standing }> {
    const set = hasPrefix(id, 'varset') ? await store.findSet(db, id) : undefined;
    if (!set) throw errors.notFound();
    const { org, standing } = await deps.organizationLookup.findById(caller, set.organizationId);
    if (set.projectId) {
      const project = await deps.projectAccess.row(db, set.projectId);
      await deps.projectAccess.authorized(caller, project, mode === 'read' ? 'read-project-variable-sets' : 'manage-project-variable-sets');
    } else {
      authorize({ standing }, mode === 'read' ? 'read-variable-sets' : 'manage-variable-sets');
    }
    return { set, organizationName: org.name, standing };
  }

  /**
   * Every id must be a workspace (project) of the organization, and, for a set a project owns, of
   * that project: otherwise a project's set could reach into workspaces its managers do not hold.
   */
  async function unknown(
    q: Queryable,
    set: Pick<VariableSet, 'organizationId' | 'projectId'>,
    relation: Relation,
    ids: readonly string[],
    pointer: (i: number) => string,
  ) {
    const wanted = dedupe(ids);
    let known: Set<string>;
    if (relation === 'workspaces') {
      known = await deps.workspaces.idsInOrganization(set.organizationId, wanted, q);
      if (set.projectId) {
        const rows = await deps.workspaces.rows([...known], q);
        known = new Set(rows.filter((w) => w.projectId === set.projectId).map((w) => w.id));
      }
    } else {
      known = await deps.projectAccess.idsInOrganization(set.organizationId, wanted, q);
      if (set.projectId) known = new Set([...known].filter((p) => p === set.projectId));
    }
    return unknownIds(ids, (id) => known.has(id), NOUN[relation], pointer);
  }

  async function checkRelationships(q: Queryable, set: Pick<VariableSet, 'organizationId' | 'projectId'>, input: VariableSetInput) {
    const problems: Problem[] = [];
    if (input.workspaceIds) problems.push(...(await unknown(q, set, 'workspaces', input.workspaceIds, (i) => `/data/relationships/workspaces/data/${i}/id`)));
    if (input.projectIds) problems.push(...(await unknown(q, set, 'projects', input.projectIds, (i) => `/data/relationships/projects/data/${i}/id`)));
    if (problems.length) throw errors.invalid(problems);
  }

  /** A name taken meanwhile, or a workspace or project deleted between the check and the write. */
  const translated = <T>(write: Promise<T>) =>
    guarded(write, { unique: () => errors.taken('name'), foreignKey: () => errors.invalidAttribute('/data/relationships', 'Workspace or project not found') });

  async function listed(q: Queryable, scope: SetScope, organizationName: string, search: string | undefined, page: Page) {
    const { items, total } = await store.listSets(q, scope, search, page);
    return { items: await views(q, items, organizationName), total };
  }

  async function changeRelation(caller: Caller, id: string, relation: Relation, ids: readonly string[], change: 'apply' | 'remove') {
    const { set } = await find(caller, id, 'manage');
    await translated(
      database.transaction(async (trx) => {
        const problems = await unknown(trx, set, relation, ids, (i) => `/data/${i}/id`);
        if (problems.length) throw errors.invalid(problems);
        if (change === 'apply') await links[relation].add(trx, set.id, dedupe(ids), now());
        else await links[relation].remove(trx, set.id, dedupe(ids));
        await store.updateSet(trx, set.id, { updatedAt: now() });
      }),
    );
  }

  return {
    find,
    view,

    async list(caller: Caller, organizationName: string, search: string | undefined, page: Page) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      authorize({ standing }, 'read-variable-sets');
      return listed(db, { kind: 'organization', organizationId: org.id }, org.name, search, page);
    },

    /** The sets that apply to a workspace: for whoever may read its variables. */
    async listForWorkspace(caller: Caller, workspaceId: string, search: string | undefined, page: Page) {
      const found = await deps.workspaces.find(caller, { id: workspaceId }, 'read-variables');
      const w = found.workspace;
      return listed(db, { kind: 'workspace', organizationId: w.organizationId, workspaceId: w.id, projectId: w.projectId }, found.org.name, search, page);
    },

    /** The sets a project owns or has applied. */
    async listForProject(caller: Caller, projectId: string, search: string | undefined, page: Page) {
      const { project, org } = await deps.projectAccess.find(caller, projectId, 'read-project-variable-sets');
      return listed(db, { kind: 'project', organizationId: org.id, projectId: project.id }, org.name, search, page);
    },

    async create(caller: Caller, organizationName: string, input: VariableSetInput & { name: string }): Promise<VariableSetView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      let projectId: string | null = null;
      if (input.parentProjectId !== undefined) {
        const project = await deps.projectAccess.row(db, input.parentProjectId);
        // A project of another organization is as absent as one that does not exist.
        if (!project || project.organizationId !== org.id) throw errors.invalidAttribute('/data/relationships/parent/data/id', 'Project not found');
        await deps.projectAccess.authorized(caller, project, 'manage-project-variable-sets');
        projectId = project.id;
      } else {
        authorize({ standing }, 'manage-variable-sets');
      }
      check(input);
      if (projectId && input.global) throw errors.invalidAttribute('/data/attributes/global', 'A variable set owned by a project cannot be global');
      const at = now();
      const set: VariableSet = {
        id: newId('varset'),
        organizationId: org.id,
        projectId,
        name: input.name,
        description: input.description ?? '',
        global: input.global ?? false,
        priority: input.priority ?? false,
        createdAt: at,
        updatedAt: at,
      };
      await translated(
        database.transaction(async (trx) => {
          await checkRelationships(trx, set, input);
          await store.insertSet(trx, set);
          if (input.workspaceIds) await store.setWorkspaces.add(trx, set.id, dedupe(input.workspaceIds), at);
          if (input.projectIds) await store.setProjects.add(trx, set.id, dedupe(input.projectIds), at);
        }),
      );
      return view(set, org.name);
    },

    async update(caller: Caller, id: string, input: VariableSetInput): Promise<VariableSetView> {
      const { set, organizationName } = await find(caller, id, 'manage');
      check(input);
      if (set.projectId && input.global) throw errors.invalidAttribute('/data/attributes/global', 'A variable set owned by a project cannot be global');
      const at = now();
      await translated(
        database.transaction(async (trx) => {
          await checkRelationships(trx, set, input);
          await store.updateSet(trx, set.id, {
            name: input.name,
            description: input.description,
            global: input.global,
            priority: input.priority,
            updatedAt: at,
          });
          if (input.workspaceIds) await store.setWorkspaces.replace(trx, set.id, dedupe(input.workspaceIds), at);
          if (input.projectIds) await store.setProjects.replace(trx, set.id, dedupe(input.projectIds), at);
        }),
      );
      const updated = await store.findSet(db, set.id);
      if (!updated) throw errors.notFound();
      return view(updated, organizationName);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { set } = await find(caller, id, 'manage');
      if ((await store.deleteSet(db, set.id)) === 0) throw errors.notFound();
    },

    apply: (caller: Caller, id: string, relation: Relation, ids: readonly string[]) => changeRelation(caller, id, relation, ids, 'apply'),
    remove: (caller: Caller, id: string, relation: Relation, ids: readonly string[]) => changeRelation(caller, id, relation, ids, 'remove'),

    /** For the variables domain (no caller: a run's variables): the sets a workspace gets, and how. */
    applyingTo: (w: { organizationId: string; id: string; projectId: string }, q: Queryable = db): Promise<AppliedSet[]> =>
      store.setsApplyingTo(q, { organizationId: w.organizationId, workspaceId: w.id, projectId: w.projectId }),

    useVariableIdsReader(reader: SetVariableIdsReader): void {
      readVariableIds = reader;
    },
  };
}

export type VariableSetsService = ReturnType<typeof createVariableSetsService>;

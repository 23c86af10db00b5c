import type { Expression, ExpressionBuilder, Transaction } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { authorize, can, denied, type ActionOn, type ProjectSubject } from '../auth/authorize.ts';
import type { Standing } from '../auth/organization.ts';
import { workspacePermissions, type WorkspacePermissions } from '../auth/permission-sets.ts';
import { needsGrants, workspaceFilter, type ProjectAuthority } from '../auth/project-scope.ts';
import { holds } from '../auth/organization.ts';
import { fromProjectGrant, workspaceAuthority, type WorkspaceGrantLoader } from '../auth/workspace-grants.ts';
import type { WorkspaceGrant } from '../grants.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { Schema } from '../db/schema.ts';
import { hasPrefix, newId } from '../ids.ts';
import { organizationPermissions } from '../auth/permission-sets.ts';
import { ApiError, errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationView } from '../organizations/service.ts';
import type { ExecutionDefaults, Organization } from '../organizations/store.ts';
import type { Project, ProjectAccess } from '../projects/access.ts';
import { hasChange, type Binding, type EffectiveBinding, type TagChange, type TagMatch, type TagsService } from '../tags/service.ts';
import { now } from '../time.ts';
import {
  AutoDestroyDuration,
  autoDestroyDurationMs,
  checkAttributes,
  Description,
  HttpUrl,
  TerraformVersion,
  Timestamp,
  utcTimestamp,
  WorkspaceName,
  type ExecutionMode,
} from '../values.ts';
import * as store from './store.ts';
import { DEFAULT_SETTINGS, SETTINGS, type OwnExecution, type Workspace, type WorkspaceSettings } from './store.ts';

export type { Workspace, WorkspaceSettings };

/**
 * Whether a workspace may run on a pool: `missing`, the organization has no such pool;
 * `refused`, the pool serves only the workspaces it allows and this is not one of them.
 */
export type PoolUsability = 'missing' | 'refused' | 'usable';
/**
 * The agent pools domain's answer for a workspace (null: one being created) and a pool of the
 * organization. Asked inside the workspace's write transaction, where (on PostgreSQL) it holds
 * the pool's row until the write commits, so the pool's scope cannot change under it.
 */
export type AgentPoolUse = (q: Queryable, organizationId: string, poolId: string, workspaceId: string | null) => Promise<PoolUsability>;

export interface WorkspaceInput {
  name?: string;
  description?: string | null;
  /** undefined = not sent; null = sent as null. */
  autoDestroyActivityDuration?: string | null;
  inheritsProjectAutoDestroy?: boolean;
  /** The project relationship; on update, a different project moves the workspace. */
  projectId?: string;
  /** The settings sent, and only those. */
  settings: Partial<WorkspaceSettings>;
  executionMode?: ExecutionMode;
  /** TFE's deprecated spelling of the mode: true is `remote`, false `local`. */
  operations?: boolean;
  agentPoolId?: string | null;
  /** `setting-overwrites`: false follows the organization's default, true keeps the workspace's own. */
  overwrites?: { executionMode?: boolean; agentPool?: boolean };
  /** `tag-names`, `relationships.tag-bindings` and `relationships.tags` (the tags domain applies them). */
  tags?: TagChange;
}

/** The execution mode and pool in effect, and whether they are the workspace's own. */
export interface Execution {
  mode: ExecutionMode;
  agentPoolId: string | null;
  own: boolean;
}

/** List filters on tags, each in effect on the workspace (its own or its project's). */
export interface WorkspaceTagQuery {
  all: TagMatch[];
  none: TagMatch[];
  /** `include=effective_tag_bindings`. */
  effective: boolean;
}

/** A column of each workspace's current run, as a correlated subquery (the runs domain builds it). */
export type CurrentRunColumn = (eb: ExpressionBuilder<Schema, 'workspaces'>, column: 'status' | 'created_at') => Expression<unknown>;

/**
 * What this domain knows of a workspace as the caller sees it. What later domains add (its lock,
 * runs, state, configuration, variables) is joined above, in workspace-views/.
 */
export interface WorkspaceBase {
  workspace: Workspace;
  organizationName: string;
  project: Project;
  permissions: WorkspacePermissions;
  execution: Execution;
  /** For `include=organization`. */
  organization: { org: Organization; standing: Standing };
  /** Its own tag bindings; the effective ones too when asked for. */
  tags: { own: Binding[]; effective?: EffectiveBinding[] };
}

/** A workspace found for a caller, with what the service needs to decide further. */
export interface FoundWorkspace extends ProjectSubject {
  workspace: Workspace;
  project: Project;
  org: Organization;
}

/** The workspace's own mode and pool, else its organization's defaults. */
export function effectiveExecution(w: OwnExecution, org: ExecutionDefaults): Execution {
  return w.executionMode !== null
    ? { mode: w.executionMode, agentPoolId: w.executionMode === 'agent' ? w.agentPoolId : null, own: true }
    : { mode: org.defaultExecutionMode, agentPoolId: org.defaultExecutionMode === 'agent' ? org.defaultAgentPoolId : null, own: false };
}

const MODE = '/data/attributes/execution-mode';
const OPERATIONS = '/data/attributes/operations';
const POOL = '/data/attributes/agent-pool-id';
const OVERWRITES = '/data/attributes/setting-overwrites';

/**
 * The workspace's own execution after a create or update (TFE's rules): setting-overwrites
 * false follows the organization again; a mode, a pool or setting-overwrites true makes the
 * workspace's settings its own, starting from what is in effect; a pool only with `agent`, and
 * `agent` never without one.
 */
function ownExecution(input: WorkspaceInput, current: OwnExecution, org: ExecutionDefaults): OwnExecution {
  if (input.operations !== undefined && input.executionMode !== undefined) {
    throw errors.invalidAttribute(OPERATIONS, 'Operations is deprecated and cannot be given together with execution-mode');
  }
  const o = input.overwrites ?? {};
  if (o.executionMode !== undefined && o.agentPool !== undefined && o.executionMode !== o.agentPool) {
    throw errors.invalidAttribute(OVERWRITES, 'If agent-pool and execution-mode are both included in setting-overwrites, their values must be the same.');
  }
  const overwrite = o.executionMode ?? o.agentPool;
  const mode = input.executionMode ?? (input.operations === undefined ? undefined : input.operations ? 'remote' : 'local');
  if (overwrite === false) {
    const pointer = input.executionMode !== undefined ? MODE : input.operations !== undefined ? OPERATIONS : input.agentPoolId ? POOL : null;
    if (pointer) throw errors.invalidAttribute(pointer, 'Cannot be given while setting-overwrites says the workspace follows the default');
    return { executionMode: null, agentPoolId: null };
  }
  if (mode === undefined && overwrite === undefined && input.agentPoolId === undefined) {
    return { executionMode: current.executionMode, agentPoolId: current.agentPoolId };
  }
  const effective = effectiveExecution(current, org);
  const next = mode ?? effective.mode;
  const pool = input.agentPoolId !== undefined ? input.agentPoolId : next === 'agent' && effective.mode === 'agent' ? effective.agentPoolId : null;
  if (pool !== null && next !== 'agent') throw errors.invalidAttribute(POOL, "Agent pool must not be specified unless using 'agent' execution mode");
  if (next === 'agent' && pool === null) {
    throw errors.invalidAttribute(input.agentPoolId !== undefined ? POOL : MODE, "Agent pool must be specified when using 'agent' execution mode");
  }
  return { executionMode: next, agentPoolId: pool };
}

/** Where `input` chose the workspace's pool: by naming it, or by a mode or setting-overwrites that took it on. */
function executionPointer(input: WorkspaceInput): string {
  return input.agentPoolId !== undefined ? POOL : input.executionMode !== undefined ? MODE : input.operations !== undefined ? OPERATIONS : OVERWRITES;
}

/** The settings `input` sends, and only those: an undefined one is absent, not a value. */
function sentSettings(input: WorkspaceInput): Partial<WorkspaceSettings> {
  const sent: Partial<Record<keyof WorkspaceSettings, unknown>> = {};
  for (const key of SETTINGS) if (input.settings[key] !== undefined) sent[key] = input.settings[key];
  if (typeof sent.autoDestroyAt === 'string') sent.autoDestroyAt = utcTimestamp(sent.autoDestroyAt);
  return sent as Partial<WorkspaceSettings>;
}

/** Trigger prefixes and patterns are two ways to say the same thing: one of them, at most. */
function checkTriggers(settings: Partial<Pick<WorkspaceSettings, 'triggerPrefixes' | 'triggerPatterns'>>): void {
  if (settings.triggerPrefixes?.length && settings.triggerPatterns?.length) {
    throw errors.invalidAttribute('/data/attributes/trigger-patterns', 'Trigger patterns and trigger prefixes cannot both be set');
  }
}

/** A workspace named by id (`/workspaces/:id`) or by organization and name. */
export type WorkspaceRef = { id: string } | { organizationName: string; name: string };

/** What the API shows as `auto-destroy-activity-duration`: the project's while inheriting. */
export function effectiveAutoDestroy(w: Workspace, project: Project): string | null {
  return w.inheritsProjectAutoDestroy ? project.autoDestroyActivityDuration : w.autoDestroyActivityDuration;
}

/**
 * When auto-destroy acts on the workspace: its explicit `auto-destroy-at`, or, with a duration in
 * effect and resources in its state, the end of the idle spell (the current state version's time
 * plus the duration), whichever comes first.
 */
export function autoDestroyAt(w: Workspace, project: Project, state: { count: number; stateCreatedAt?: string } | undefined): string | null {
  const ms = autoDestroyDurationMs(effectiveAutoDestroy(w, project));
  const idle = ms !== null && state && state.count > 0 && state.stateCreatedAt ? new Date(Date.parse(state.stateCreatedAt) + ms).toISOString() : null;
  if (w.autoDestroyAt === null || idle === null) return w.autoDestroyAt ?? idle;
  return w.autoDestroyAt < idle ? w.autoDestroyAt : idle;
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
    'auto-destroy-at': [Timestamp('Auto destroy at'), input.settings.autoDestroyAt],
    'terraform-version': [TerraformVersion, input.settings.terraformVersion],
    'source-url': [HttpUrl('Source URL'), input.settings.sourceUrl],
  });

const poolNotFound = () => errors.invalidAttribute(POOL, 'Agent pool not found');

const mayNotCreateInDefaultProject = () =>
  errors.forbidden(
    "You may not create workspaces in the organization's default project, where a workspace goes when no project is named: name a project you may create workspaces in (relationships.project, or `project` in Terraform's cloud block)",
  );
const projectNotFound = () => errors.invalidAttribute('/data/relationships/project/data/id', 'Project not found');

export function createWorkspacesService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  tags: TagsService;
  workspaceGrants: WorkspaceGrantLoader;
}) {
  const { database, projectAccess } = deps;
  const db = database.db;
  // The agent pools domain registers which of its pools may serve a workspace (it depends on us, not we on it).
  let poolUse: AgentPoolUse = async () => 'missing';

  /**
   * The workspace's own execution after `input` (`workspaceId` null: a workspace being created),
   * and the check of the pool it names or takes on, which the write runs first inside its
   * transaction: the pool must be the organization's and serve the workspace. A pool that is
   * not organization-scoped serves only the workspaces it allows, so a new workspace can never
   * start on one (TFE refuses the same). Checked there, a pool narrowed at the same moment
   * either commits first and refuses the workspace, or waits for it.
   */
  function executionAfter(input: WorkspaceInput, current: OwnExecution, org: Organization, workspaceId: string | null) {
    const execution = ownExecution(input, current, org);
    const pool = execution.agentPoolId;
    const checked = pool !== null && (input.agentPoolId !== undefined || pool !== current.agentPoolId);
    const checkPool = async (trx: Queryable): Promise<void> => {
      if (!checked) return;
      const use = await poolUse(trx, org.id, pool, workspaceId);
      if (use === 'missing') throw poolNotFound();
      // TFE's words (its model's attribute name, then the message).
      if (use === 'refused') throw errors.invalidAttribute(executionPointer(input), 'Agent pool workspace does not have access to use this agent pool');
    };
    return { execution, checkPool };
  }

  /**
   * The grants the caller's teams hold on each workspace: one query, none when they cannot
   * matter (the caller manages every workspace already, or is on no team).
   */
  async function ownGrants(q: Queryable, standing: Standing, workspaceIds: readonly string[]): Promise<Map<string, WorkspaceGrant[]>> {
    if (!needsGrants(standing) || holds(standing, 'manage-all-workspaces') || standing.teamIds.length === 0 || workspaceIds.length === 0) return new Map();
    return deps.workspaceGrants(q, standing.teamIds, workspaceIds);
  }

  /**
   * The workspaces with their projects and the caller's authority there: the project's, raised
   * by grants on the workspace itself. Three queries at most (projects, project grants, workspace grants).
   */
  async function withAuthority(standing: Standing, org: Organization, workspaces: readonly Workspace[], known?: readonly Project[]): Promise<FoundWorkspace[]> {
    const projects =
      known ??
      (await projectAccess.rows(
        db,
        workspaces.map((w) => w.projectId),
      ));
    const byId = new Map(projects.map((p) => [p.id, p]));
    const authority = await projectAccess.authorities(db, standing, projects);
    const grants = await ownGrants(
      db,
      standing,
      workspaces.map((w) => w.id),
    );
    return workspaces.map((workspace) => ({
      workspace,
      standing,
      org,
      project: byId.get(workspace.projectId)!,
      authority: workspaceAuthority(authority.get(workspace.projectId)!, grants.get(workspace.id) ?? []),
    }));
  }

  /**
   * The organization's workspaces among `ids`, each with the caller's authority over it (four
   * queries at most); ids that are not the organization's workspaces are left out.
   */
  async function inOrganization(standing: Standing, org: Organization, ids: readonly string[]): Promise<FoundWorkspace[]> {
    const rows = (await store.findWorkspacesByIds(db, ids)).filter((w) => w.organizationId === org.id);
    return rows.length ? (await withAuthority(standing, org, rows)).filter((f) => f.project) : [];
  }

  // Registered by the runs domain, likewise: filters and sorts by the current run.
  let currentRunColumn: CurrentRunColumn | null = null;

  /**
   * The permissions a view shows, kept per authority: an authority belongs to one standing (the
   * project access module keeps them per standing, or builds one for a single answer), so the
   * same authority always shows the same permissions, and a page of workspaces in the same
   * projects shares one frozen object instead of walking the rules for each.
   */
  const permissionsByAuthority = new WeakMap<ProjectAuthority, WorkspacePermissions>();
  function shownPermissions(standing: Standing, authority: ProjectAuthority): WorkspacePermissions {
    let permissions = permissionsByAuthority.get(authority);
    if (!permissions) permissionsByAuthority.set(authority, (permissions = Object.freeze(workspacePermissions({ standing, authority }))));
    return permissions;
  }

  /**
   * The views of found workspaces: one query for their tags (two with the effective ones), none
   * for their own tags when `ownTags` has them (by index, read with the workspaces).
   */
  async function views(found: readonly FoundWorkspace[], q: Queryable = db, effective = false, ownTags?: readonly Binding[][]): Promise<WorkspaceBase[]> {
    const own = ownTags
      ? new Map(found.map((f, i) => [f.workspace.id, ownTags[i]!]))
      : await deps.tags.workspaceBindings(
          q,
          found.map((f) => f.workspace.id),
        );
    const inEffect = effective
      ? await deps.tags.effectiveOf(
          q,
          found.map((f) => f.workspace),
        )
      : undefined;
    return found.map(({ workspace, standing, org, project, authority }) => ({
      workspace,
      organizationName: standing.organizationName,
      project,
      permissions: shownPermissions(standing, authority),
      execution: effectiveExecution(workspace, org),
      organization: { org, standing },
      tags: { own: own.get(workspace.id) ?? [], ...(inEffect ? { effective: inEffect.get(workspace.id) ?? [] } : {}) },
    }));
  }
  const view = async (found: FoundWorkspace): Promise<WorkspaceBase> => (await views([found]))[0]!;

  /** A workspace the caller may read; 404 for everything else. */
  async function find(caller: Caller, ref: WorkspaceRef, action: ActionOn<'workspace'> = 'read-workspace'): Promise<FoundWorkspace> {
    // The workspace is read with its project (one statement): the caller's rights come from both.
    let row: store.WorkspaceWithProject | undefined;
    let standing: Standing;
    let org: Organization;
    if ('id' in ref) {
      row = hasPrefix(ref.id, 'ws') ? await store.findWorkspaceWithProjectById(db, ref.id) : undefined;
      if (!row) throw errors.notFound();
      ({ standing, org } = await deps.organizationLookup.findById(caller, row.workspace.organizationId));
    } else {
      ({ standing, org } = await deps.organizationLookup.find(caller, ref.organizationName));
      row = await store.findWorkspaceWithProjectByName(db, org.id, ref.name);
      if (!row) throw errors.notFound();
    }
    if (!row.project) throw errors.notFound();
    const [found] = await withAuthority(standing, org, [row.workspace], [projectAccess.read(row.project)]);
    if (!found) throw errors.notFound();
    authorize(found, action);
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
        const sources = await projectAccess.rows(
          trx,
          sourceIds.filter((id) => id !== destination.id),
        );
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

    /**
     * What the caller holds on each workspace, as workspace grants: its teams' grants on the
     * workspace and on its project (to check what it may give; see auth/gifts.ts). Three queries.
     */
    async heldOn(standing: Standing, workspaceIds: readonly string[]): Promise<Map<string, WorkspaceGrant[]>> {
      const workspaces = await store.findWorkspacesByIds(db, workspaceIds);
      const projectGrants = await projectAccess.heldGrants(
        db,
        standing,
        workspaces.map((w) => w.projectId),
      );
      const own = await ownGrants(
        db,
        standing,
        workspaces.map((w) => w.id),
      );
      return new Map(workspaces.map((w) => [w.id, [...(projectGrants.get(w.projectId) ?? []).map(fromProjectGrant), ...(own.get(w.id) ?? [])]]));
    },

    /**
     * For the domains built on workspaces (locks, state, runs, team access): the workspace if the
     * caller may perform `action` on it (read by default); 404 when it may not see it, else as auth/ says.
     */
    find,
    /** The view of a workspace found with `find`, as of now (after a lock changed, say). */
    view,
    useCurrentRunColumn(column: CurrentRunColumn): void {
      currentRunColumn = column;
    },
    /**
     * Holds the workspace's row until `q`'s transaction ends (PostgreSQL; SQLite has one writer),
     * for a domain's rule that counts rows hanging off it, so two writers cannot both pass it.
     */
    async lock(q: Queryable, id: string): Promise<void> {
      await store.lockWorkspaces(q, [id]);
    },
    /** For ssh-keys/, which has checked the caller and that the key is the workspace's organization's: assigns it (null: none). */
    async setSshKey(q: Queryable, id: string, sshKeyId: string | null): Promise<void> {
      await store.updateWorkspace(q, id, { sshKeyId, updatedAt: now() });
    },
    /** For domains acting without a caller (a run's variables) or on ids already checked: the rows (one query). */
    rows: (ids: readonly string[], q: Queryable = db) => store.findWorkspacesByIds(q, ids),

    /** Where a workspace's runs execute (its own mode, else its organization's), for runs Hangar queues itself. */
    async executionOf(workspace: Workspace): Promise<Execution | undefined> {
      const org = await deps.organizationLookup.organizationById(workspace.organizationId);
      return org && effectiveExecution(workspace, org);
    },

    /** A workspace's organization, for what Hangar describes without a caller (a run, to its policies). */
    organizationOf: (workspace: Workspace): Promise<Organization | undefined> => deps.organizationLookup.organizationById(workspace.organizationId),

    countByProject: (q: Queryable, projectIds: readonly string[]) => store.countByProject(q, projectIds),

    /** For a domain deciding with `can` what the caller may do to each of several workspaces. */
    inOrganization,

    /** For domains that refer to workspaces (policy sets, agent pools): which ids are this organization's workspaces. */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = db) => store.workspaceIdsInOrganization(q, organizationId, ids),

    /** The id of the organization's workspace so named, if the caller may read it (agent pools filter by name). */
    async readableIdByName(caller: Caller, organizationName: string, name: string): Promise<string | undefined> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const workspace = await store.findWorkspaceByName(db, org.id, name);
      const [found] = workspace ? await withAuthority(standing, org, [workspace]) : [];
      return found?.project && can(found, 'read-workspace') ? found.workspace.id : undefined;
    },

    /** How to tell whether a workspace may run on a pool (registered by the agent pools domain). */
    useAgentPoolCheck(check: AgentPoolUse): void {
      poolUse = check;
    },

    /** The organization of a page of workspaces, as `include=organization` shows it (one query). */
    async includedOrganization(view: WorkspaceBase): Promise<OrganizationView> {
      const { org, standing } = view.organization;
      const defaults = await projectAccess.defaultProjectIds([org.id]);
      return { org, permissions: organizationPermissions({ standing }), defaultProjectId: defaults.get(org.id) ?? null };
    },

    async create(caller: Caller, organizationName: string, input: WorkspaceInput & { name: string }): Promise<WorkspaceBase> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const project = input.projectId === undefined ? await projectAccess.defaultProject(db, org.id) : await projectAccess.row(db, input.projectId);
      if (!project || project.organizationId !== org.id) throw projectNotFound();
      const authority = (await projectAccess.authorities(db, standing, [project])).get(project.id)!;
      if (input.projectId === undefined) {
        // Named by nobody: "not found" would point at a project the caller never mentioned (a cloud
        // block naming a workspace the caller cannot see lands here). Every organization has a
        // default project, so saying so reveals nothing, and its name stays unsaid.
        if (!can({ standing, authority }, 'create-workspace')) throw mayNotCreateInDefaultProject();
      } else {
        // The project is named in the body: one the caller may not see is answered as one that does not exist.
        if (!can({ standing, authority }, 'read-project')) throw projectNotFound();
        authorize({ standing, authority }, 'create-workspace');
      }
      validate(input);
      await deps.tags.checkNew(input.tags, org.id);
      const settings = autoDestroySettings(input, { own: null, inherits: true });
      const chosen = { ...DEFAULT_SETTINGS, ...sentSettings(input) };
      checkTriggers(chosen);
      // Without a mode of its own, a new workspace follows its organization's default.
      const { execution, checkPool } = executionAfter(input, { executionMode: null, agentPoolId: null }, org, null);
      const at = now();
      const workspace: Workspace = {
        ...chosen,
        ...execution,
        id: newId('ws'),
        organizationId: org.id,
        projectId: project.id,
        name: input.name,
        description: input.description ?? null,
        autoDestroyActivityDuration: settings.own,
        inheritsProjectAutoDestroy: settings.inherits,
        sshKeyId: null,
        createdAt: at,
        updatedAt: at,
      };
      // A foreign-key failure: the project or the agent pool was deleted a moment ago.
      await guarded(
        database.transaction(async (trx) => {
          await checkPool(trx);
          await store.insertWorkspace(trx, workspace);
          await deps.tags.apply(trx, 'workspace', workspace, input.tags, true);
        }),
        { unique: () => errors.taken('name'), foreignKey: () => (workspace.agentPoolId ? poolNotFound() : projectNotFound()) },
      );
      return view({ workspace, standing, org, project, authority });
    },

    show: async (caller: Caller, ref: WorkspaceRef, include?: { effective: boolean }): Promise<WorkspaceBase> =>
      (await views([await find(caller, ref)], db, include?.effective))[0]!,

    /**
     * The workspaces among `ids` the caller may read, for another resource's `include`: those it
     * may not read are left out (TFE's includes respect read permissions), and the ids cost a
     * fixed number of queries per organization they span instead of a `show` each.
     */
    async readable(caller: Caller, ids: readonly string[]): Promise<WorkspaceBase[]> {
      const rows = await store.findWorkspacesByIds(db, [...new Set(ids)]);
      const byOrganization = Map.groupBy(rows, (w) => w.organizationId);
      const found: FoundWorkspace[] = [];
      for (const [organizationId, workspaces] of byOrganization) {
        let standing: Standing;
        let org: Organization;
        try {
          ({ standing, org } = await deps.organizationLookup.findById(caller, organizationId));
        } catch (e) {
          if (e instanceof ApiError && e.status === 404) continue;
          throw e;
        }
        found.push(...(await withAuthority(standing, org, workspaces)).filter((f) => f.project && can(f, 'read-workspace')));
      }
      return found.length ? views(found) : [];
    },

    /**
     * A page of the organization's workspaces in one statement (db/compiled.ts keeps it compiled
     * per page key), with what `beside` adds to each (the views above), and the caller's grants
     * when they matter.
     */
    async list<X = undefined>(
      caller: Caller,
      organizationName: string,
      filter: {
        projectId?: string;
        search?: string;
        wildcardName?: string;
        descending: boolean;
        tags?: WorkspaceTagQuery;
        sort?: 'name' | 'current-run.created-at';
        currentRunStatuses?: readonly string[];
      },
      page: Page,
      beside?: store.Beside<X>,
    ): Promise<{ items: Array<WorkspaceBase & { beside: X | undefined }>; total: number }> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const { tags, sort, currentRunStatuses, ...rest } = filter;
      const column = currentRunColumn;
      const statuses = currentRunStatuses && column ? [...currentRunStatuses] : undefined;
      const byRun: Pick<store.WorkspaceListFilter, 'currentRun' | 'order'> = {
        // The column is the runs domain's, the same for every list: the statuses name the SQL.
        ...(statuses && column
          ? {
              currentRun: Object.assign((eb: ExpressionBuilder<Schema, 'workspaces'>) => eb(column(eb, 'status') as Expression<string>, 'in', statuses), {
                key: `current-run status ${JSON.stringify(statuses)}`,
              }),
            }
          : {}),
        order:
          sort === 'current-run.created-at' && column
            ? { by: 'expression', key: 'current-run created-at', expression: (eb) => column(eb, 'created_at') }
            : { by: sort === 'name' ? 'name' : 'creation' },
      };
      const tagged = tags ? deps.tags.workspaceFilter(tags) : null;
      const { items, total } = await store.listWorkspaces(
        db,
        { organizationId: org.id, visible: workspaceFilter(standing), ...rest, ...byRun, ...(tagged ? { tagged } : {}) },
        page,
        beside,
      );
      // Each project once, however many of the page's workspaces are in it (the store shares its columns).
      const projects = new Map<string, Project>();
      for (const i of items) if (!projects.has(i.workspace.projectId)) projects.set(i.workspace.projectId, projectAccess.read(i.project));
      const found = await withAuthority(
        standing,
        org,
        items.map((i) => i.workspace),
        [...projects.values()],
      );
      const bases = await views(
        found,
        db,
        tags?.effective,
        items.map((i) => i.ownTags),
      );
      return { items: bases.map((b, i) => Object.assign(b, { beside: items[i]!.beside })), total };
    },

    /**
     * Every organization's workspaces, for a site admin (TFE's `/admin/workspaces`); 404 for
     * anyone else. Each distinct organization of the page is looked up once.
     */
    async listAll(caller: Caller, filter: store.AdminWorkspaceFilter, page: Page) {
      authorize({ principal: caller.principal }, 'administer-site');
      const { items, total } = await store.listAllWorkspaces(db, filter, page);
      const found = new Map<string, FoundWorkspace>();
      for (const orgId of new Set(items.map((w) => w.organizationId))) {
        const { standing, org } = await deps.organizationLookup.findById(caller, orgId);
        for (const f of await withAuthority(
          standing,
          org,
          items.filter((w) => w.organizationId === orgId),
        ))
          found.set(f.workspace.id, f);
      }
      return { items: await views(items.map((w) => found.get(w.id)!)), total };
    },

    /** A site admin reads any workspace (TFE's `/admin/workspaces/:id`); 404 for anyone else. */
    async adminShow(caller: Caller, id: string): Promise<WorkspaceBase> {
      authorize({ principal: caller.principal }, 'administer-site');
      return view(await find(caller, { id }));
    },

    /** A site admin deletes any workspace (TFE's admin delete: no safe-delete check); 404 for anyone else. */
    async adminDestroy(caller: Caller, id: string): Promise<void> {
      authorize({ principal: caller.principal }, 'administer-site');
      const found = await find(caller, { id });
      await store.deleteWorkspace(db, found.workspace.id);
    },

    /**
     * For another domain listing across an organization's workspaces (its runs): the SQL filter
     * of the workspaces the caller sees, and the page's workspaces with the caller's authority.
     */
    async visibility(caller: Caller, organizationName: string) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const found = async (ids: readonly string[]) =>
        new Map((await withAuthority(standing, org, await store.findWorkspacesByIds(db, ids))).map((f) => [f.workspace.id, f] as const));
      return { org, visible: workspaceFilter(standing), found };
    },

    /** Attributes need workspace admin; a different project moves it under the move rules. */
    async update(caller: Caller, ref: WorkspaceRef, input: WorkspaceInput): Promise<WorkspaceBase> {
      const current = await find(caller, ref);
      const w = current.workspace;
      const sent = sentSettings(input);
      const changesAttributes =
        input.name !== undefined ||
        input.description !== undefined ||
        input.autoDestroyActivityDuration !== undefined ||
        input.inheritsProjectAutoDestroy !== undefined ||
        Object.keys(sent).length > 0 ||
        input.executionMode !== undefined ||
        input.operations !== undefined ||
        input.agentPoolId !== undefined ||
        input.overwrites !== undefined;
      const changesTags = hasChange(input.tags);
      const moving = input.projectId !== undefined && input.projectId !== w.projectId;
      if (changesAttributes) authorize(current, 'update-workspace');
      if (changesTags) authorize(current, 'manage-workspace-tags');
      validate(input);
      const settings = autoDestroySettings(input, { own: w.autoDestroyActivityDuration, inherits: w.inheritsProjectAutoDestroy });
      checkTriggers(sent);
      // Patterns replace prefixes and the other way round (go-tfe sets patterns on a workspace
      // with prefixes, and the service accepts it): one sent alone clears the other.
      if (sent.triggerPatterns?.length && sent.triggerPrefixes === undefined) sent.triggerPrefixes = [];
      if (sent.triggerPrefixes?.length && sent.triggerPatterns === undefined) sent.triggerPatterns = [];
      const { execution, checkPool } = executionAfter(input, w, current.org, w.id);
      const patch = {
        ...sent,
        ...execution,
        name: input.name,
        description: input.description,
        autoDestroyActivityDuration: settings.own,
        inheritsProjectAutoDestroy: settings.inherits,
        updatedAt: now(),
      };
      const tagTarget = { id: w.id, organizationId: w.organizationId };
      const write = moving
        ? moveInto(caller, input.projectId!, [w.id], async (trx) => {
            await checkPool(trx);
            if (changesAttributes) await store.updateWorkspace(trx, w.id, patch);
            await deps.tags.apply(trx, 'workspace', tagTarget, input.tags, false);
          })
        : changesAttributes || changesTags
          ? database.transaction(async (trx) => {
              await checkPool(trx);
              if (changesAttributes) await store.updateWorkspace(trx, w.id, patch);
              await deps.tags.apply(trx, 'workspace', tagTarget, input.tags, false);
            })
          : Promise.resolve();
      await guarded(write, { unique: () => errors.taken('name'), foreignKey: poolNotFound });
      const updated = await store.findWorkspaceById(db, w.id);
      if (!updated) throw errors.notFound();
      return view((await withAuthority(current.standing, current.org, [updated]))[0]!);
    },

    /** The workspaces that may read this one's state, of those the caller may see. */
    async remoteStateConsumers(caller: Caller, id: string, page: Page) {
      const found = await find(caller, { id });
      const { items, total } = await store.listRemoteStateConsumers(db, found.workspace.id, workspaceFilter(found.standing), page);
      return { items: await views(await withAuthority(found.standing, found.org, items)), total };
    },

    /**
     * Adds, removes or replaces (`how`) the workspaces that may read this one's state: a setting
     * of the workspace, so it needs `update-workspace`. Each id must be another workspace of the
     * same organization that the caller may see, else that id gets its own 422.
     */
    async changeRemoteStateConsumers(caller: Caller, id: string, ids: readonly string[], how: 'add' | 'remove' | 'replace'): Promise<void> {
      const found = await find(caller, { id });
      authorize(found, 'update-workspace');
      const w = found.workspace;
      const candidates = await inOrganization(found.standing, found.org, [...new Set(ids)]);
      const seen = new Set(candidates.filter((c) => can(c, 'read-workspace')).map((c) => c.workspace.id));
      const problems = unknownIds(
        ids,
        (i) => seen.has(i),
        'Workspace',
        (i) => `/data/${i}/id`,
      );
      const self = ids.indexOf(w.id);
      if (self >= 0 && how !== 'remove') problems.push({ pointer: `/data/${self}/id`, detail: 'A workspace cannot be its own remote state consumer' });
      if (problems.length) throw errors.invalid(problems);
      const consumers = [...seen];
      const at = now();
      await guarded(
        database.transaction(async (trx) => {
          if (how === 'remove') return store.removeRemoteStateConsumers(trx, w.id, consumers);
          if (how === 'replace') await store.removeRemoteStateConsumers(trx, w.id);
          await store.addRemoteStateConsumers(trx, w.id, consumers, at);
        }),
        // A workspace named was deleted a moment ago.
        { foreignKey: () => errors.notFound() },
      );
    },

    /**
     * Deletes the workspace and everything hanging off it (locks, state versions). `guard` (safe
     * delete) runs first in the same transaction and throws to keep the workspace.
     */
    async destroy(caller: Caller, ref: WorkspaceRef, guard?: (q: Queryable, workspaceId: string) => Promise<void>): Promise<void> {
      const found = await find(caller, ref);
      authorize(found, 'destroy-workspace');
      const id = found.workspace.id;
      if (!guard) {
        await store.deleteWorkspace(db, id);
        return;
      }
      await database.transaction(async (trx) => {
        await store.lockWorkspaces(trx, [id]);
        await guard(trx, id);
        await store.deleteWorkspace(trx, id);
      });
    },
  };
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

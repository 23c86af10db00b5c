import type { Caller } from '../auth/caller.ts';
import { can } from '../auth/authorize.ts';
import { rowsByIdUntilChange } from '../db/changes.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors, unknownIds, type Problem } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { PoliciesService, PolicyView } from '../policies/service.ts';
import type { PolicySetVersion, VersionPointers } from '../policy-set-versions/store.ts';
import type { ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import { checkAttributes, Name } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { PolicyKind, PolicySet } from './store.ts';

export type { PolicyKind, PolicySet };

const GLOBAL_WITH = (relation: Attachment) => `A global policy set applies to every workspace; it cannot be attached to ${relation}`;

export interface PolicySetInput {
  name?: string;
  description?: string | null;
  kind?: PolicyKind;
  global?: boolean;
  overridable?: boolean | null;
  agentEnabled?: boolean;
  policyToolVersion?: string | null;
  /** Replaces the attached projects; undefined leaves them as they are. */
  projectIds?: string[];
  /** Replaces the attached workspaces; undefined leaves them as they are. */
  workspaceIds?: string[];
  /** Replaces the excluded workspaces; undefined leaves them as they are. */
  excludedWorkspaceIds?: string[];
  /** Replaces the policies the set holds; undefined leaves them as they are. */
  policyIds?: string[];
}

export interface PolicySetView {
  set: PolicySet;
  projectIds: string[];
  workspaceIds: string[];
  excludedWorkspaceIds: string[];
  policyIds: string[];
  versions: VersionPointers;
  organizationName: string;
}

/** Related resources a policy set document can include. */
export const POLICY_SET_INCLUDES = ['policies', 'newest_version', 'current_version', 'projects', 'workspaces', 'workspace_exclusions'] as const;
export type PolicySetInclude = (typeof POLICY_SET_INCLUDES)[number];

/** What the policy set versions domain tells this one about a set's versions (it registers when built). */
export interface VersionReader {
  pointers(q: Queryable, setIds: readonly string[]): Promise<Map<string, VersionPointers>>;
  versions(q: Queryable, ids: readonly string[]): Promise<PolicySetVersion[]>;
}

const NO_VERSIONS: VersionPointers = { newest: null, current: null, policyCount: 0 };

/**
 * A policy set's lists of things, which behave alike: what it is attached to (projects,
 * workspaces; never while global) and the workspaces it never applies to (whether global or not).
 */
export type Relation = 'projects' | 'workspaces' | 'workspace-exclusions' | 'policies';
type Attachment = 'projects' | 'workspaces';
const RELATIONS: readonly Relation[] = ['projects', 'workspaces', 'workspace-exclusions', 'policies'];
const ATTACHMENTS: readonly Attachment[] = ['projects', 'workspaces'];
const NOUN: Record<Relation, string> = { projects: 'Project', workspaces: 'Workspace', 'workspace-exclusions': 'Workspace', policies: 'Policy' };
const SENT = {
  projects: 'projectIds',
  workspaces: 'workspaceIds',
  'workspace-exclusions': 'excludedWorkspaceIds',
  policies: 'policyIds',
} as const satisfies Record<Relation, keyof PolicySetInput>;
const sentIds = (input: PolicySetInput, relation: Relation) => input[SENT[relation]];
const isAttachment = (relation: Relation): relation is Attachment => relation === 'projects' || relation === 'workspaces';
const VERSIONED = 'The policies of a policy set with versions come from its versions; it cannot hold policies of its own';

export type PolicyAction = 'read-policies' | 'manage-policies';

const dedupe = (ids: readonly string[]) => [...new Set(ids)];

export function createPolicySetsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  workspaces: WorkspacesService;
  policies: PoliciesService;
}) {
  const { database } = deps;
  const db = database.db;
  let versionReader: VersionReader = { pointers: async () => new Map(), versions: async () => [] };
  // Set rows by id, where every request on a set, its parameters and its versions starts, until
  // any set (or anything else authorization reads) changes.
  const setById = rowsByIdUntilChange(database.changes, (id) => store.findPolicySetById(db, id));
  // A policy's view names the sets holding it; this domain owns that link.
  deps.policies.usePolicySetReader((q, ids) => store.setsHoldingPolicies(q, ids));

  // Each relationship's join table, and the owning domain's answer to "are these ours?".
  const workspacesOf = (q: Queryable, organizationId: string, ids: readonly string[]) => deps.workspaces.idsInOrganization(organizationId, ids, q);
  const links = {
    projects: {
      table: store.attachedProjects,
      known: (q: Queryable, organizationId: string, ids: readonly string[]) => deps.projectAccess.idsInOrganization(organizationId, ids, q),
    },
    workspaces: { table: store.attachedWorkspaces, known: workspacesOf },
    'workspace-exclusions': { table: store.excludedWorkspaces, known: workspacesOf },
    policies: {
      table: store.heldPolicies,
      known: (q: Queryable, organizationId: string, ids: readonly string[]) => deps.policies.idsInOrganization(organizationId, ids, q),
    },
  } satisfies Record<Relation, unknown>;

  /** Views of a page of sets: one query per relationship, whatever the page size. */
  async function views(q: Queryable, sets: readonly PolicySet[], organizationName: string): Promise<PolicySetView[]> {
    const setIds = sets.map((s) => s.id);
    // One after the other: inside a transaction they would queue on the same connection anyway.
    const projects = await store.attachedProjects.of(q, setIds);
    const workspaces = await store.attachedWorkspaces.of(q, setIds);
    const excluded = await store.excludedWorkspaces.of(q, setIds);
    const policies = await store.heldPolicies.of(q, setIds);
    const versions = await versionReader.pointers(q, setIds);
    return sets.map((set) => ({
      set,
      projectIds: projects.get(set.id) ?? [],
      workspaceIds: workspaces.get(set.id) ?? [],
      excludedWorkspaceIds: excluded.get(set.id) ?? [],
      policyIds: policies.get(set.id) ?? [],
      versions: versions.get(set.id) ?? NO_VERSIONS,
      organizationName,
    }));
  }

  /**
   * A policy set on behalf of a caller: 404 when it does not exist or the caller does not belong
   * to its organization, 403 when the caller belongs but may not perform `action`.
   */
  async function find(caller: Caller, id: string, action: PolicyAction): Promise<{ set: PolicySet; organizationName: string }> {
    const set = await setById(id);
    if (!set) throw errors.notFound();
    const { org } = await deps.organizationLookup.findById(caller, set.organizationId, action);
    return { set, organizationName: org.name };
  }

  /** Every id must be a `relation` of the organization; each one that is not is a problem of its own. */
  async function unknown(q: Queryable, relation: Relation, organizationId: string, ids: readonly string[], pointer: (i: number) => string) {
    const known = await links[relation].known(q, organizationId, dedupe(ids));
    return unknownIds(ids, (id) => known.has(id), NOUN[relation], pointer);
  }

  /** The relationships a create or update body sent, checked together so one 422 lists every bad id. */
  async function checkRelationships(q: Queryable, organizationId: string, input: PolicySetInput) {
    const problems: Problem[] = [];
    for (const relation of RELATIONS) {
      const sent = sentIds(input, relation);
      if (sent) problems.push(...(await unknown(q, relation, organizationId, sent, (i) => `/data/relationships/${relation}/data/${i}/id`)));
    }
    if (problems.length) throw errors.invalid(problems);
  }

  /**
   * A global set holding attachments: blamed on the relationship when the body sent some, else
   * on `global` (an update turning a set with attachments global).
   */
  function checkGlobal(input: PolicySetInput, attached: Record<Attachment, readonly string[]>) {
    const problems = ATTACHMENTS.filter((relation) => attached[relation].length > 0).map((relation): Problem => ({
      pointer: sentIds(input, relation)?.length ? `/data/relationships/${relation}` : '/data/attributes/global',
      detail: GLOBAL_WITH(relation),
    }));
    if (problems.length) throw errors.invalid(problems);
  }

  /**
   * `write`, with the schema-level failures a race can still produce answered as the 422s a
   * client understands: a name taken meanwhile, or (foreign key) a project or workspace deleted
   * between our check and the insert.
   */
  const translated = <T>(write: Promise<T>, vanished: Problem) =>
    guarded(write, { unique: () => errors.taken('name'), foreignKey: () => errors.invalidAttribute(vanished.pointer, vanished.detail) });

  /** Which relationship a foreign-key failure of a create or update body must have come from. */
  function vanishedFrom(input: PolicySetInput): Problem {
    const sent = RELATIONS.filter((relation) => sentIds(input, relation)?.length);
    if (sent.length === 1) return { pointer: `/data/relationships/${sent[0]}`, detail: `${NOUN[sent[0]!]} not found` };
    return { pointer: '/data/relationships', detail: 'Project or workspace not found' };
  }

  const versioned = async (q: Queryable, setId: string) => (await versionReader.pointers(q, [setId])).get(setId)?.newest != null;

  async function changeRelation(caller: Caller, id: string, relation: Relation, ids: string[], change: 'attach' | 'detach') {
    const { set } = await find(caller, id, 'manage-policies');
    const link = links[relation];
    await translated(
      database.transaction(async (trx) => {
        const current = await store.lockPolicySet(trx, set.id);
        if (!current) throw errors.notFound();
        const problems = await unknown(trx, relation, current.organizationId, ids, (i) => `/data/${i}/id`);
        if (problems.length) throw errors.invalid(problems);
        if (change === 'attach') {
          if (current.global && isAttachment(relation)) throw errors.invalidAttribute('/data', GLOBAL_WITH(relation));
          if (relation === 'policies' && (await versioned(trx, current.id))) throw errors.invalidAttribute('/data', VERSIONED);
          await link.table.add(trx, current.id, dedupe(ids), now());
        } else {
          await link.table.remove(trx, current.id, dedupe(ids));
        }
        await store.touchPolicySet(trx, current.id, now());
      }),
      { pointer: '/data', detail: `${NOUN[relation]} not found` },
    );
  }

  return {
    find,

    /** Registered by the policy set versions domain when it is built. */
    useVersionReader(reader: VersionReader) {
      versionReader = reader;
    },

    /** Whether the caller may perform `action` on the set (which it is known to see). */
    async may(caller: Caller, id: string, action: PolicyAction): Promise<boolean> {
      const set = await setById(id);
      const found = set && (await deps.organizationLookup.standingIn(caller, set.organizationId));
      return found ? can(found, action) : false;
    },

    /**
     * Runs `write` (a new version) under the set's row lock, unless the set holds policies of
     * its own: a set's policies come from its versions or from the policies it holds, not both.
     */
    async withVersionableSet(id: string, write: (q: Queryable) => Promise<void>): Promise<void> {
      await database.transaction(async (trx) => {
        if (!(await store.lockPolicySet(trx, id))) throw errors.notFound();
        const held = (await store.heldPolicies.of(trx, [id])).get(id) ?? [];
        if (held.length) throw errors.invalidAttribute('/data', 'This policy set holds policies of its own; remove them before uploading versions');
        await write(trx);
      });
    },

    /** What `include` asks for beside the sets: their policies and versions (one query each). */
    async included(views: readonly PolicySetView[], include: readonly PolicySetInclude[]): Promise<{ policies: PolicyView[]; versions: PolicySetVersion[] }> {
      const first = views[0];
      const policies =
        include.includes('policies') && first
          ? await deps.policies.views(
              db,
              views.flatMap((v) => v.policyIds),
              first.organizationName,
            )
          : [];
      const versionIds = views.flatMap((v) => [
        ...(include.includes('newest_version') && v.versions.newest ? [v.versions.newest] : []),
        ...(include.includes('current_version') && v.versions.current ? [v.versions.current] : []),
      ]);
      return { policies, versions: await versionReader.versions(db, versionIds) };
    },

    /** For internal callers with no caller to check (the policy-check runtime). */
    findById: (id: string) => store.findPolicySetById(db, id),

    /** For the policy-check runtime: the Sentinel sets a workspace's runs are checked against. */
    applyingTo: (q: Queryable, w: { organizationId: string; projectId: string; id: string }) => store.sentinelSetsApplyingTo(q, w),
    /** A set's held policies (policy ids) and its current ready version, if any. */
    async contents(q: Queryable, setId: string): Promise<{ policyIds: string[]; currentVersionId: string | null }> {
      const [held, pointers] = await Promise.all([store.heldPolicies.of(q, [setId]), versionReader.pointers(q, [setId])]);
      return { policyIds: held.get(setId) ?? [], currentVersionId: pointers.get(setId)?.current ?? null };
    },

    /**
     * Inside a transaction: whether the set still exists, holding its row (on PostgreSQL) until
     * the transaction ends, so that writes to what belongs to it run one at a time.
     */
    lock: async (q: Queryable, id: string) => (await store.lockPolicySet(q, id)) !== undefined,

    async list(caller: Caller, organizationName: string, filter: { search?: string; kind?: PolicyKind }, page: Page) {
      const { org } = await deps.organizationLookup.find(caller, organizationName, 'read-policies');
      const { items, total } = await store.listPolicySets(db, { organizationId: org.id, ...filter }, page);
      return { items: await views(db, items, org.name), total };
    },

    async create(caller: Caller, organizationName: string, input: PolicySetInput & { name: string }): Promise<PolicySetView> {
      const { org } = await deps.organizationLookup.find(caller, organizationName, 'manage-policies');
      checkAttributes({ name: [Name, input.name] });
      const projectIds = dedupe(input.projectIds ?? []);
      const workspaceIds = dedupe(input.workspaceIds ?? []);
      const excludedWorkspaceIds = dedupe(input.excludedWorkspaceIds ?? []);
      const policyIds = dedupe(input.policyIds ?? []);
      if (input.global) checkGlobal(input, { projects: projectIds, workspaces: workspaceIds });
      const at = now();
      const set: PolicySet = {
        id: newId('polset'),
        organizationId: org.id,
        name: input.name,
        description: input.description ?? null,
        kind: input.kind ?? 'sentinel',
        global: input.global ?? false,
        overridable: input.overridable ?? false,
        agentEnabled: input.agentEnabled ?? false,
        policyToolVersion: input.policyToolVersion ?? null,
        createdAt: at,
        updatedAt: at,
      };
      return translated(
        database.transaction(async (trx) => {
          await checkRelationships(trx, org.id, input);
          await store.insertPolicySet(trx, set);
          await store.attachedProjects.add(trx, set.id, projectIds, at);
          await store.attachedWorkspaces.add(trx, set.id, workspaceIds, at);
          await store.excludedWorkspaces.add(trx, set.id, excludedWorkspaceIds, at);
          await store.heldPolicies.add(trx, set.id, policyIds, at);
          // Read back, so the response lists attachments in the order every later read will.
          const [view] = await views(trx, [set], org.name);
          return view!;
        }),
        vanishedFrom(input),
      );
    },

    async show(caller: Caller, id: string): Promise<PolicySetView> {
      const { set, organizationName } = await find(caller, id, 'read-policies');
      const [view] = await views(db, [set], organizationName);
      return view!;
    },

    /** Read-modify-write under the set's row lock, so two updates never interleave. */
    async update(caller: Caller, id: string, input: PolicySetInput): Promise<PolicySetView> {
      const { organizationName } = await find(caller, id, 'manage-policies');
      checkAttributes({ name: [Name, input.name] });
      return translated(
        database.transaction(async (trx) => {
          const current = await store.lockPolicySet(trx, id);
          if (!current) throw errors.notFound();
          if (input.kind !== undefined && input.kind !== current.kind) {
            throw errors.invalidAttribute('/data/attributes/kind', 'Kind cannot be changed after the policy set is created');
          }
          const [before] = await views(trx, [current], organizationName);
          const existing = {
            projects: before!.projectIds,
            workspaces: before!.workspaceIds,
            'workspace-exclusions': before!.excludedWorkspaceIds,
            policies: before!.policyIds,
          };
          const wanted = (relation: Relation) => {
            const sent = sentIds(input, relation);
            return sent === undefined ? existing[relation] : dedupe(sent);
          };
          const attached = {
            projects: wanted('projects'),
            workspaces: wanted('workspaces'),
            'workspace-exclusions': wanted('workspace-exclusions'),
            policies: wanted('policies'),
          };
          if (input.policyIds?.length && before!.versions.newest !== null) throw errors.invalidAttribute('/data/relationships/policies', VERSIONED);
          if (input.global ?? current.global) checkGlobal(input, attached);
          await checkRelationships(trx, current.organizationId, input);
          const at = now();
          for (const relation of RELATIONS) {
            if (sentIds(input, relation) === undefined) continue;
            await links[relation].table.remove(
              trx,
              id,
              existing[relation].filter((x) => !attached[relation].includes(x)),
            );
            await links[relation].table.add(
              trx,
              id,
              attached[relation].filter((x) => !existing[relation].includes(x)),
              at,
            );
          }
          const patch = {
            name: input.name,
            description: input.description,
            global: input.global,
            overridable: input.overridable === null ? false : input.overridable,
            agentEnabled: input.agentEnabled,
            policyToolVersion: input.policyToolVersion,
          };
          await store.updatePolicySet(trx, id, { ...patch, updatedAt: at });
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
          const updated = { ...current, ...defined, updatedAt: at };
          if (RELATIONS.every((relation) => sentIds(input, relation) === undefined)) return { ...before!, set: updated };
          // Read back, so the response lists attachments in the order every later read will.
          const [view] = await views(trx, [updated], organizationName);
          return view!;
        }),
        vanishedFrom(input),
      );
    },

    /** Its parameters, attachments, exclusions and versions go with it, and it lets its policies go (schema cascades). */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { set } = await find(caller, id, 'manage-policies');
      if ((await store.deletePolicySet(db, set.id)) === 0) throw errors.notFound();
    },

    attach: (caller: Caller, id: string, relation: Relation, ids: string[]) => changeRelation(caller, id, relation, ids, 'attach'),
    detach: (caller: Caller, id: string, relation: Relation, ids: string[]) => changeRelation(caller, id, relation, ids, 'detach'),
  };
}

export type PolicySetsService = ReturnType<typeof createPolicySetsService>;

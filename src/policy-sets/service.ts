import type { Caller } from '../auth/caller.ts';
import type { Database, Queryable } from '../db/index.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/index.ts';
import { errors } from '../jsonapi/errors.ts';
import { newId } from '../jsonapi/ids.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../jsonapi/time.ts';
import type { OrganizationLookup } from '../organizations/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import * as store from './store.ts';
import type { PolicyKind, PolicySet } from './store.ts';

export type { PolicyKind, PolicySet };

const POLICY_SET_NAME = /^[A-Za-z0-9_-]+$/;
const GLOBAL_WITH_PROJECTS = 'A global policy set applies to every workspace; it cannot be attached to projects';
const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');

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
}

export interface PolicySetView {
  set: PolicySet;
  projectIds: string[];
  organizationName: string;
}

export type PolicyAction = 'read-policies' | 'manage-policies';

const dedupe = (ids: readonly string[]) => [...new Set(ids)];

export function createPolicySetsService(deps: { database: Database; organizations: OrganizationLookup; projects: ProjectsService }) {
  const { database } = deps;
  const db = database.db;

  /**
   * A policy set on behalf of a caller: 404 when it does not exist or the caller does not belong
   * to its organization, 403 when the caller belongs but may not perform `action`.
   */
  async function visible(caller: Caller, id: string, action: PolicyAction): Promise<{ set: PolicySet; organizationName: string }> {
    const set = await store.findPolicySetById(db, id);
    if (!set) throw errors.notFound();
    const { org } = await deps.organizations.resolveById(caller, set.organizationId, action);
    return { set, organizationName: org.name };
  }

  function checkName(name: string | undefined) {
    if (name !== undefined && !POLICY_SET_NAME.test(name)) {
      throw errors.invalidAttribute('/data/attributes/name', 'Name may only contain letters, numbers, "-" and "_"');
    }
  }

  /** Every id must be a project of the organization; each one that is not gets its own 422. */
  async function checkProjects(q: Queryable, organizationId: string, ids: readonly string[], pointer: (i: number) => string) {
    const known = await deps.projects.idsInOrganization(organizationId, dedupe(ids), q);
    const problems = ids
      .map((id, i) => ({ id, i }))
      .filter(({ id }) => !known.has(id))
      .map(({ id, i }) => ({ pointer: pointer(i), detail: `Project ${id} not found` }));
    if (problems.length) throw errors.invalid(problems);
  }

  /** Schema-level failures a race can still produce, as the 422s a client understands. */
  function translate(e: unknown, projectsPointer: string): never {
    if (isUniqueViolation(e)) throw nameTaken();
    // A project deleted between our check and the insert.
    if (isForeignKeyViolation(e)) throw errors.invalidAttribute(projectsPointer, 'Project not found');
    throw e;
  }

  async function changeProjects(caller: Caller, id: string, ids: string[], change: 'attach' | 'detach') {
    const { set } = await visible(caller, id, 'manage-policies');
    try {
      await database.transaction(async (trx) => {
        const current = await store.lockPolicySet(trx, set.id);
        if (!current) throw errors.notFound();
        await checkProjects(trx, current.organizationId, ids, (i) => `/data/${i}/id`);
        if (change === 'attach') {
          if (current.global) throw errors.invalidAttribute('/data', GLOBAL_WITH_PROJECTS);
          await store.attachProjects(trx, current.id, dedupe(ids), now());
        } else {
          await store.detachProjects(trx, current.id, dedupe(ids));
        }
        await store.touchPolicySet(trx, current.id, now());
      });
    } catch (e) {
      translate(e, '/data');
    }
  }

  return {
    visible,

    /** For internal callers with no caller to check (the policy-check runtime). */
    findById: (id: string) => store.findPolicySetById(db, id),

    async list(caller: Caller, organizationName: string, filter: { search?: string; kind?: PolicyKind }, page: Page) {
      const { org } = await deps.organizations.resolve(caller, organizationName, 'read-policies');
      const { items, total } = await store.listPolicySets(db, { organizationId: org.id, ...filter }, page);
      const projects = await store.projectIdsOf(db, items.map((s) => s.id));
      return { items: items.map((set) => ({ set, projectIds: projects.get(set.id) ?? [], organizationName: org.name })), total };
    },

    async create(caller: Caller, organizationName: string, input: PolicySetInput & { name: string }): Promise<PolicySetView> {
      const { org } = await deps.organizations.resolve(caller, organizationName, 'manage-policies');
      checkName(input.name);
      const projectIds = dedupe(input.projectIds ?? []);
      if (input.global && projectIds.length) throw errors.invalidAttribute('/data/relationships/projects', GLOBAL_WITH_PROJECTS);
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
      try {
        await database.transaction(async (trx) => {
          await checkProjects(trx, org.id, input.projectIds ?? [], (i) => `/data/relationships/projects/data/${i}/id`);
          await store.insertPolicySet(trx, set);
          await store.attachProjects(trx, set.id, projectIds, at);
        });
      } catch (e) {
        translate(e, '/data/relationships/projects');
      }
      return { set, projectIds, organizationName: org.name };
    },

    async show(caller: Caller, id: string): Promise<PolicySetView> {
      const { set, organizationName } = await visible(caller, id, 'read-policies');
      const projects = await store.projectIdsOf(db, [set.id]);
      return { set, projectIds: projects.get(set.id) ?? [], organizationName };
    },

    /** Read-modify-write under the set's row lock, so two updates never interleave. */
    async update(caller: Caller, id: string, input: PolicySetInput): Promise<PolicySetView> {
      const { organizationName } = await visible(caller, id, 'manage-policies');
      checkName(input.name);
      try {
        return await database.transaction(async (trx) => {
          const current = await store.lockPolicySet(trx, id);
          if (!current) throw errors.notFound();
          if (input.kind !== undefined && input.kind !== current.kind) {
            throw errors.invalidAttribute('/data/attributes/kind', 'Kind cannot be changed after the policy set is created');
          }
          const existing = (await store.projectIdsOf(trx, [id])).get(id) ?? [];
          const projectIds = input.projectIds === undefined ? existing : dedupe(input.projectIds);
          const global = input.global ?? current.global;
          if (global && projectIds.length) {
            const pointer = input.projectIds?.length ? '/data/relationships/projects' : '/data/attributes/global';
            throw errors.invalidAttribute(pointer, GLOBAL_WITH_PROJECTS);
          }
          const at = now();
          if (input.projectIds !== undefined) {
            await checkProjects(trx, current.organizationId, input.projectIds, (i) => `/data/relationships/projects/data/${i}/id`);
            await store.detachProjects(trx, id, existing.filter((p) => !projectIds.includes(p)));
            await store.attachProjects(trx, id, projectIds.filter((p) => !existing.includes(p)), at);
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
          return { set: { ...current, ...defined, updatedAt: at }, projectIds, organizationName };
        });
      } catch (e) {
        translate(e, '/data/relationships/projects');
      }
    },

    /** Its parameters and project attachments go with it (schema cascades). */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { set } = await visible(caller, id, 'manage-policies');
      if ((await store.deletePolicySet(db, set.id)) === 0) throw errors.notFound();
    },

    attachProjects: (caller: Caller, id: string, projectIds: string[]) => changeProjects(caller, id, projectIds, 'attach'),
    detachProjects: (caller: Caller, id: string, projectIds: string[]) => changeProjects(caller, id, projectIds, 'detach'),
  };
}

export type PolicySetsService = ReturnType<typeof createPolicySetsService>;

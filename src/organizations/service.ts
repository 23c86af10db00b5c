import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
import { organizationFilter, type Standing } from '../auth/organization.ts';
import { actingUserId } from '../auth/principal.ts';
import { organizationPermissions, type OrganizationPermissions } from '../auth/permission-sets.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import type { UsersService } from '../users/service.ts';
import { checkAttributes, Email, OrganizationName, type ExecutionMode } from '../values.ts';
import type { OrganizationLookup } from './lookup.ts';
import * as store from './store.ts';
import { DEFAULT_SETTINGS, SETTINGS, type ExecutionDefaults, type Organization, type OrganizationSearch, type OrganizationSettings } from './store.ts';

export type { Organization, OrganizationSearch };

/** What a create or update may set; an attribute left undefined is not sent (create: TFE's default). */
export type OrganizationInput = {
  name?: string;
  email?: string;
  defaultExecutionMode?: ExecutionMode;
  /** The default agent pool (id null: none), and where in the body it was given. */
  defaultAgentPool?: { id: string | null; pointer: string };
} & Partial<OrganizationSettings>;

/** Which of `ids` are agent pools of the organization (one query); the agent pools domain provides it. */
export type AgentPoolCheck = (q: Queryable, organizationId: string, ids: readonly string[]) => Promise<Set<string>>;

const MODE = '/data/attributes/default-execution-mode';

/**
 * The execution defaults after a create or update: a pool only with `agent` (leaving `agent`
 * drops the pool), and `agent` never without one. As in TFE, each mistake is a 422.
 */
function executionDefaults(input: OrganizationInput, current: ExecutionDefaults): ExecutionDefaults {
  const mode = input.defaultExecutionMode ?? current.defaultExecutionMode;
  const sent = input.defaultAgentPool;
  const pool = sent !== undefined ? sent.id : mode === 'agent' ? current.defaultAgentPoolId : null;
  if (pool !== null && mode !== 'agent') {
    throw errors.invalidAttribute(sent!.pointer, "Default agent pool must not be specified unless using 'agent' execution mode");
  }
  if (mode === 'agent' && pool === null) {
    throw errors.invalidAttribute(sent?.pointer ?? MODE, "Default agent pool must be specified when using 'agent' execution mode");
  }
  return { defaultExecutionMode: mode, defaultAgentPoolId: pool };
}

/** The settings `input` sends, and only those: an undefined one is absent, not a value. */
function sentSettings(input: OrganizationInput): Partial<OrganizationSettings> {
  const sent: Partial<Record<keyof OrganizationSettings, unknown>> = {};
  for (const key of SETTINGS) if (input[key] !== undefined) sent[key] = input[key];
  return sent as Partial<OrganizationSettings>;
}

const poolNotFound = (pointer: string) => errors.invalidAttribute(pointer, 'Agent pool not found');

const checkNameAndEmail = (input: OrganizationInput) => checkAttributes({ name: [OrganizationName, input.name], email: [Email, input.email] });

/**
 * Runs inside the transaction that creates an organization: how a domain creates what every
 * organization is born with (the owners team, the default project) without this domain
 * depending on it. A hook that throws undoes the whole creation.
 */
export type OrganizationCreatedHook = (q: Queryable, org: Organization, creator: { userId: string }) => Promise<void>;

export interface OrganizationView {
  org: Organization;
  permissions: OrganizationPermissions;
  defaultProjectId: string | null;
}

export function createOrganizationsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  users: UsersService;
}) {
  const { database, organizationLookup } = deps;
  const db = database.db;
  const createdHooks: OrganizationCreatedHook[] = [];
  // The agent pools domain registers how to tell its pools (it depends on us, not we on it).
  let agentPoolsIn: AgentPoolCheck = async () => new Set();

  /** The defaults `input` leads to, with a pool it names checked to be one of the organization's. */
  async function checkedExecution(input: OrganizationInput, org: { id: string } & ExecutionDefaults): Promise<ExecutionDefaults> {
    const next = executionDefaults(input, org);
    const sent = input.defaultAgentPool;
    if (sent?.id && !(await agentPoolsIn(db, org.id, [sent.id])).has(sent.id)) throw poolNotFound(sent.pointer);
    return next;
  }

  async function views(caller: Caller, orgs: readonly Organization[], known?: Standing): Promise<OrganizationView[]> {
    const defaults = await deps.projectAccess.defaultProjectIds(orgs.map((o) => o.id));
    const standings = known ? [known] : await caller.standings(orgs);
    return orgs.map((org, i) => ({ org, permissions: organizationPermissions({ standing: standings[i]! }), defaultProjectId: defaults.get(org.id) ?? null }));
  }

  const viewOf = async (caller: Caller, org: Organization, known?: Standing) => (await views(caller, [org], known))[0]!;

  /** Any organization by name, for a site admin (TFE's admin API); 404 when there is none. */
  async function adminShow(caller: Caller, name: string): Promise<Organization> {
    authorize({ principal: caller.principal }, 'administer-site');
    const org = await store.findOrganizationByName(db, name);
    if (!org) throw errors.notFound();
    return org;
  }

  /** The organization, everything in it (the schema's cascades) and the account its token acts as, in one transaction. */
  const deleteWithServiceUser = (org: Organization) =>
    database.transaction(async (trx) => {
      await store.deleteOrganization(trx, org.id);
      await deps.users.deleteServiceUser(trx, org.serviceUserId);
    });

  return {
    /** Registers what must be created with every organization, in the same transaction. */
    onCreated(hook: OrganizationCreatedHook): void {
      createdHooks.push(hook);
    },

    /** How to tell which ids are the organization's agent pools (registered by the agent pools domain). */
    useAgentPoolCheck(check: AgentPoolCheck): void {
      agentPoolsIn = check;
    },

    /** Any user may create an organization and becomes a member of its owners team. */
    async create(caller: Caller, input: OrganizationInput & { name: string; email: string }): Promise<OrganizationView> {
      authorize({ principal: caller.principal }, 'create-organization');
      checkNameAndEmail(input);
      // A new organization has no agent pools: `agent` cannot be its default yet.
      const execution = executionDefaults(input, { defaultExecutionMode: 'remote', defaultAgentPoolId: null });
      if (input.defaultAgentPool?.id) throw poolNotFound(input.defaultAgentPool.pointer);
      // Only users pass create-organization, and a user is its own author.
      const creator = { userId: actingUserId(caller.principal)! };
      const org = await guarded(
        database.transaction(async (trx) => {
          const serviceUser = await deps.users.createServiceUser(trx, input.name);
          const org: Organization = {
            ...DEFAULT_SETTINGS,
            ...sentSettings(input),
            ...execution,
            id: newId('org'),
            name: input.name,
            email: input.email,
            serviceUserId: serviceUser.id,
            createdAt: now(),
          };
          await store.insertOrganization(trx, org);
          for (const hook of createdHooks) await hook(trx, org, creator);
          return org;
        }),
        { unique: () => errors.taken('name') },
      );
      return viewOf(caller, org);
    },

    async list(caller: Caller, search: OrganizationSearch, page: Page) {
      const { items, total } = await store.listOrganizations(db, organizationFilter(caller.principal), search, page);
      return { items: await views(caller, items), total };
    },

    async show(caller: Caller, name: string): Promise<OrganizationView> {
      const { org, standing } = await organizationLookup.find(caller, name);
      return viewOf(caller, org, standing);
    },

    async update(caller: Caller, name: string, input: OrganizationInput): Promise<OrganizationView> {
      const { org } = await organizationLookup.find(caller, name, 'update-organization');
      checkNameAndEmail(input);
      const settings = { ...sentSettings(input), ...(await checkedExecution(input, org)) };
      await guarded(store.updateOrganization(db, org.id, { ...settings, name: input.name, email: input.email }), {
        unique: () => errors.taken('name'),
        // The pool was deleted a moment ago.
        foreignKey: () => poolNotFound(input.defaultAgentPool?.pointer ?? MODE),
      });
      const updated: Organization = { ...org, ...settings, name: input.name ?? org.name, email: input.email ?? org.email };
      return viewOf(caller, updated);
    },

    /** Deletes the organization and, through the schema's cascades, everything in it. */
    async destroy(caller: Caller, name: string): Promise<void> {
      const { org } = await organizationLookup.find(caller, name, 'destroy-organization');
      await deleteWithServiceUser(org);
    },

    /** TFE's admin API (site admins): every organization, searched by name or notification e-mail. */
    async adminList(caller: Caller, query: string | undefined, page: Page): Promise<{ items: Organization[]; total: number }> {
      authorize({ principal: caller.principal }, 'administer-site');
      return store.listOrganizations(db, null, { search: query }, page);
    },

    adminShow,

    /** Deletes any organization, as `destroy` does, for a site admin. */
    async adminDestroy(caller: Caller, name: string): Promise<void> {
      await deleteWithServiceUser(await adminShow(caller, name));
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;

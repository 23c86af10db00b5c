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
import { checkAttributes, Email, OrganizationName } from '../values.ts';
import type { OrganizationLookup } from './lookup.ts';
import * as store from './store.ts';
import { DEFAULT_SETTINGS, SETTINGS, type Organization, type OrganizationSearch, type OrganizationSettings } from './store.ts';

export type { Organization, OrganizationSearch };

/** What a create or update may set; an attribute left undefined is not sent (create: TFE's default). */
export type OrganizationInput = { name?: string; email?: string } & Partial<OrganizationSettings>;

/** The settings `input` sends, and only those: an undefined one is absent, not a value. */
function sentSettings(input: OrganizationInput): Partial<OrganizationSettings> {
  const sent: Partial<Record<keyof OrganizationSettings, unknown>> = {};
  for (const key of SETTINGS) if (input[key] !== undefined) sent[key] = input[key];
  return sent as Partial<OrganizationSettings>;
}

const checkNameAndEmail = (input: OrganizationInput) =>
  checkAttributes({ name: [OrganizationName, input.name], email: [Email, input.email] });

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

  async function views(caller: Caller, orgs: readonly Organization[], known?: Standing): Promise<OrganizationView[]> {
    const defaults = await deps.projectAccess.defaultProjectIds(orgs.map((o) => o.id));
    const standings = known ? [known] : await caller.standings(orgs);
    return orgs.map((org, i) => ({ org, permissions: organizationPermissions({ standing: standings[i]! }), defaultProjectId: defaults.get(org.id) ?? null }));
  }

  const viewOf = async (caller: Caller, org: Organization, known?: Standing) => (await views(caller, [org], known))[0]!;

  return {
    /** Registers what must be created with every organization, in the same transaction. */
    onCreated(hook: OrganizationCreatedHook): void {
      createdHooks.push(hook);
    },

    /** Any user may create an organization and becomes a member of its owners team. */
    async create(caller: Caller, input: OrganizationInput & { name: string; email: string }): Promise<OrganizationView> {
      authorize({ principal: caller.principal }, 'create-organization');
      checkNameAndEmail(input);
      // Only users pass create-organization, and a user is its own author.
      const creator = { userId: actingUserId(caller.principal)! };
      const org = await guarded(
        database.transaction(async (trx) => {
          const serviceUser = await deps.users.createServiceUser(trx, input.name);
          const org: Organization = {
            ...DEFAULT_SETTINGS,
            ...sentSettings(input),
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
      const settings = sentSettings(input);
      await guarded(store.updateOrganization(db, org.id, { ...settings, name: input.name, email: input.email }), { unique: () => errors.taken('name') });
      const updated: Organization = { ...org, ...settings, name: input.name ?? org.name, email: input.email ?? org.email };
      return viewOf(caller, updated);
    },

    /** Deletes the organization and, through the schema's cascades, everything in it. */
    async destroy(caller: Caller, name: string): Promise<void> {
      const { org } = await organizationLookup.find(caller, name, 'destroy-organization');
      await database.transaction(async (trx) => {
        await store.deleteOrganization(trx, org.id);
        await deps.users.deleteServiceUser(trx, org.serviceUserId);
      });
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;

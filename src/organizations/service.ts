import type { Database } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import type { Caller } from '../auth/caller.ts';
import { can, type OrganizationAction, type Standing } from '../auth/permissions.ts';
import { errors } from '../jsonapi/errors.ts';
import { newId } from '../ids.ts';
import { now } from '../time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { ProjectsService } from '../projects/service.ts';
import type { TeamsService } from '../teams/service.ts';
import type { UsersService } from '../users/service.ts';
import * as store from './store.ts';
import type { Organization } from './store.ts';

export type { Organization };

export const ORGANIZATION_NAME = /^[A-Za-z0-9_-]{1,255}$/;
const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');

export interface Resolved {
  org: Organization;
  standing: Standing;
}

/** How a member who may not perform the action is answered; some TFE endpoints hide with 404. */
export type Deny = 403 | 404;

/**
 * Finding an organization on behalf of a caller. Every domain starts here: a caller without
 * standing gets 404 (the organization might as well not exist); one that may see it but not
 * perform `action` gets 403.
 */
export function createOrganizationLookup({ database }: { database: Database }) {
  const db = database.db;

  async function check(caller: Caller, org: Organization | undefined, action?: OrganizationAction, deny: Deny = 403): Promise<Resolved> {
    if (!org) throw errors.notFound();
    const standing = await caller.standing(org);
    if (!standing.member) throw errors.notFound();
    if (action && !can(standing, action)) throw deny === 404 ? errors.notFound() : errors.forbidden();
    return { org, standing };
  }

  return {
    resolve: async (caller: Caller, name: string, action?: OrganizationAction, deny?: Deny) =>
      check(caller, await store.findOrganizationByName(db, name), action, deny),
    resolveById: async (caller: Caller, id: string, action?: OrganizationAction, deny?: Deny) =>
      check(caller, await store.findOrganizationById(db, id), action, deny),
  };
}

export type OrganizationLookup = ReturnType<typeof createOrganizationLookup>;

export interface OrganizationView {
  org: Organization;
  standing: Standing;
  defaultProjectId: string | null;
}

export function createOrganizationsService(deps: {
  database: Database;
  lookup: OrganizationLookup;
  users: UsersService;
  teams: TeamsService;
  projects: ProjectsService;
}) {
  const { database, lookup } = deps;
  const db = database.db;

  async function withDefaultProject(r: Resolved): Promise<OrganizationView> {
    const ids = await deps.projects.defaultProjectIds([r.org.id]);
    return { ...r, defaultProjectId: ids.get(r.org.id) ?? null };
  }

  function checkName(name: string) {
    if (!ORGANIZATION_NAME.test(name)) {
      throw errors.invalidAttribute('/data/attributes/name', 'Name may only contain letters, numbers, "-" and "_"');
    }
  }

  return {
    /** Any user may create an organization and becomes a member of its owners team. */
    async create(caller: Caller, input: { name: string; email: string }): Promise<OrganizationView> {
      if (caller.principal.kind !== 'user') throw errors.forbidden('Only users can create organizations');
      checkName(input.name);
      const creator = caller.principal.user;
      try {
        const org = await database.transaction(async (trx) => {
          const serviceUser = await deps.users.createServiceUser(trx, input.name);
          const org: Organization = {
            id: newId('org'),
            name: input.name,
            email: input.email,
            serviceUserId: serviceUser.id,
            createdAt: now(),
          };
          await store.insertOrganization(trx, org);
          await deps.teams.createOwnersTeam(trx, org.id, creator.id);
          await deps.projects.createDefaultProject(trx, org.id);
          return org;
        });
        return withDefaultProject({ org, standing: await caller.standing(org) });
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
    },

    async list(caller: Caller, page: Page) {
      const p = caller.principal;
      let ids: string[] | null;
      if (p.kind === 'organization') ids = [p.organizationId];
      else if (p.user.isSiteAdmin) ids = null;
      else ids = await deps.teams.organizationIdsOf(p.user.id);
      const { items, total } = await store.listOrganizations(db, ids, page);
      const defaults = await deps.projects.defaultProjectIds(items.map((o) => o.id));
      const standings = await caller.standings(items);
      return { items: items.map((org, i) => ({ org, standing: standings[i]!, defaultProjectId: defaults.get(org.id) ?? null })), total };
    },

    show: async (caller: Caller, name: string) => withDefaultProject(await lookup.resolve(caller, name)),

    async update(caller: Caller, name: string, input: { name?: string; email?: string }): Promise<OrganizationView> {
      const { org } = await lookup.resolve(caller, name, 'update');
      if (input.name !== undefined) checkName(input.name);
      try {
        await store.updateOrganization(db, org.id, input);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      const updated = { ...org, name: input.name ?? org.name, email: input.email ?? org.email };
      return withDefaultProject({ org: updated, standing: await caller.standing(updated) });
    },

    /** Deletes the organization and, through the schema's cascades, everything in it. */
    async destroy(caller: Caller, name: string): Promise<void> {
      const { org } = await lookup.resolve(caller, name, 'destroy');
      await database.transaction(async (trx) => {
        await store.deleteOrganization(trx, org.id);
        await deps.users.deleteServiceUser(trx, org.serviceUserId);
      });
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;

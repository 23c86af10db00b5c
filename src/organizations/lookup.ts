// Finding an organization on behalf of a caller: where every domain starts. The caller's standing
// is loaded once per organization per request (auth/caller.ts); what it may do there is asked of
// auth/ with the action the caller is about to perform.
import type { Caller } from '../auth/caller.ts';
import { authorize, type ActionOn } from '../auth/authorize.ts';
import type { Standing } from '../auth/organization.ts';
import { GenerationCache } from '../db/changes.ts';
import type { Database } from '../db/index.ts';
import { errors } from '../jsonapi/errors.ts';
import * as store from './store.ts';
import type { Organization } from './store.ts';

/** Actions checked against the caller's standing in the organization. */
export type OrganizationAction = ActionOn<'organization'>;

export interface FoundOrganization {
  org: Organization;
  standing: Standing;
}

export function createOrganizationLookup({ database }: { database: Database }) {
  const db = database.db;
  // Organization rows by id and by name, until any organization (or anything else authentication
  // reads) changes (db/changes.ts). The rows are shared between requests, so frozen.
  const byIdCache = new GenerationCache<Organization | null>(database.changes, 10_000);
  const byName = new GenerationCache<Organization | null>(database.changes, 10_000);
  const frozen = (o: Organization | undefined) => (o ? Object.freeze(o) : null);
  const rowById = async (id: string) => (await byIdCache.get(id, async () => frozen(await store.findOrganizationById(db, id)))) ?? undefined;
  const rowByName = async (name: string) => (await byName.get(name, async () => frozen(await store.findOrganizationByName(db, name)))) ?? undefined;

  /**
   * The organization and the caller's standing in it; undefined when it does not exist or the
   * caller is certainly no member. Every organization action is hidden from non-members, so
   * both are the same 404, and a non-member's costs no query beyond finding the row: another
   * organization's object takes exactly the work of a missing one, and timing tells them apart
   * no more than the answer does.
   */
  async function withStanding(caller: Caller, org: Organization | undefined): Promise<FoundOrganization | undefined> {
    return org && caller.mayBelongTo(org.id) ? { org, standing: await caller.standing(org) } : undefined;
  }

  /** The organization by id, unless the caller is certainly no member (then not even looked up). */
  const byId = async (caller: Caller, id: string) => (caller.mayBelongTo(id) ? withStanding(caller, await rowById(id)) : undefined);

  function authorized(found: FoundOrganization | undefined, action: OrganizationAction): FoundOrganization {
    if (!found) throw errors.notFound();
    authorize(found, action);
    return found;
  }

  return {
    /** The organization named `name` if the caller may perform `action` there; 404 or 403 (as auth/ says) otherwise. */
    find: async (caller: Caller, name: string, action: OrganizationAction = 'read-organization') =>
      authorized(await withStanding(caller, await rowByName(name)), action),

    /** The same, by the organization's internal id (for things that belong to one). */
    findById: async (caller: Caller, id: string, action: OrganizationAction = 'read-organization') => authorized(await byId(caller, id), action),

    /** The organization with this id, without any check: for naming one the caller is invited to. */
    organizationById: rowById,

    /** The organization and the caller's standing in it, without any check; undefined when it does not exist or the caller is no member. */
    standingIn: byId,
  };
}

export type OrganizationLookup = ReturnType<typeof createOrganizationLookup>;

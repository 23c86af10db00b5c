// The authenticated caller of one request. Services take a Caller and ask it for the caller's
// standing in an organization; the answer is loaded once per organization per request.
import type { Principal } from './principal.ts';
import { emptyAccess, fullAccess, type OrganizationAccess } from '../grants.ts';
import { normaliseAccess, type Standing } from './organization.ts';

export interface OrganizationRef {
  id: string;
  name: string;
}

export interface TeamGrant {
  teamId: string;
  isOwners: boolean;
  access: OrganizationAccess;
}

/** Loads the teams a user belongs to in the given organizations (one query), by organization id. */
export type TeamGrantLoader = (userId: string, organizationIds: readonly string[]) => Promise<Map<string, TeamGrant[]>>;

export class Caller {
  readonly principal: Principal;
  readonly #loadGrants: TeamGrantLoader;
  readonly #cache = new Map<string, Promise<Standing>>();
  readonly #names: string[] = [];

  constructor(principal: Principal, loadGrants: TeamGrantLoader) {
    this.principal = principal;
    this.#loadGrants = loadGrants;
  }

  standing(org: OrganizationRef): Promise<Standing> {
    // Asked again for the same organization within a request (or once the first ask is under
    // way): the same promise, without the batching around it.
    return this.#cache.get(org.id) ?? this.standings([org]).then((s) => s[0]!);
  }

  /** Standings for several organizations at once: one query for all that are not cached yet. */
  standings(orgs: readonly OrganizationRef[]): Promise<Standing[]> {
    const missing = orgs.filter((o) => !this.#cache.has(o.id));
    if (missing.length > 0) {
      const grants = this.principal.kind === 'user' && !this.principal.user.isSiteAdmin
        ? this.#loadGrants(this.principal.user.id, missing.map((o) => o.id))
        : Promise.resolve(new Map<string, TeamGrant[]>());
      for (const org of missing) {
        this.#cache.set(org.id, grants.then((g) => this.#resolve(org, g.get(org.id) ?? [])));
        this.#names.push(org.name);
      }
    }
    return Promise.all(orgs.map((o) => this.#cache.get(o.id)!));
  }

  /**
   * False when the caller is certainly no member of the organization, known without a query: a
   * user on none of its teams when the request was authenticated, another organization's token.
   * True means only "perhaps": the standing decides.
   */
  mayBelongTo(organizationId: string): boolean {
    const p = this.principal;
    if (p.kind !== 'user') return p.organizationId === organizationId;
    return p.user.isSiteAdmin || p.memberOf === undefined || p.memberOf.has(organizationId);
  }

  /** The names of the organizations this request asked about, for the request log. */
  get organizations(): readonly string[] {
    return this.#names;
  }

  #resolve(org: OrganizationRef, grants: readonly TeamGrant[]): Standing {
    const base = { organizationId: org.id, organizationName: org.name };
    const p = this.principal;
    if (p.kind === 'organization') {
      const mine = p.organizationId === org.id;
      return { ...base, member: mine, owner: mine, viaOrganizationToken: mine, teamIds: [], access: mine ? fullAccess() : emptyAccess() };
    }
    // A team token is its team, and nothing else, in its team's organization.
    if (p.kind === 'team') {
      const mine = p.organizationId === org.id;
      const owner = mine && p.team.isOwners;
      return {
        ...base,
        member: mine,
        owner,
        viaOrganizationToken: false,
        teamIds: mine ? [p.team.id] : [],
        access: owner ? fullAccess() : mine ? normaliseAccess({ ...p.team.access }) : emptyAccess(),
      };
    }
    // Site admins administer the whole installation, every organization included.
    if (p.user.isSiteAdmin) {
      return { ...base, member: true, owner: true, viaOrganizationToken: false, teamIds: [], access: fullAccess() };
    }
    const owner = grants.some((g) => g.isOwners);
    const teamIds = grants.map((g) => g.teamId);
    if (owner) return { ...base, member: true, owner, viaOrganizationToken: false, teamIds, access: fullAccess() };
    const access = emptyAccess();
    for (const g of grants) for (const [k, v] of Object.entries(g.access)) if (v) access[k as keyof OrganizationAccess] = true;
    return { ...base, member: grants.length > 0, owner, viaOrganizationToken: false, teamIds, access: normaliseAccess(access) };
  }
}

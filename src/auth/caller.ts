// The authenticated caller of one request. Services take a Caller and ask it for the caller's
// standing in an organization; the answer is loaded once per organization per request.
import type { Principal } from './principal.ts';
import { PrincipalMemo } from './principal-memo.ts';
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

/** Shared between requests, so nothing may change it. */
function frozen(standing: Standing): Standing {
  Object.freeze(standing.access);
  Object.freeze(standing.teamIds);
  return Object.freeze(standing);
}

/** Standings by organization id, kept per principal (principal-memo.ts says for how long). */
const standingsOf = new PrincipalMemo<Standing>(1_000);

export class Caller {
  readonly principal: Principal;
  readonly #loadGrants: TeamGrantLoader;
  readonly #names: string[] = [];

  constructor(principal: Principal, loadGrants: TeamGrantLoader) {
    this.principal = principal;
    this.#loadGrants = loadGrants;
  }

  standing(org: OrganizationRef): Promise<Standing> {
    // Known already (from this request or an earlier one of the same principal): the same
    // promise, without the batching around it.
    const known = standingsOf.get(this.principal, org.id);
    if (!known) return this.standings([org]).then((s) => s[0]!);
    this.asked(org);
    return known;
  }

  /** Standings for several organizations at once: one query for all that are not known yet. */
  standings(orgs: readonly OrganizationRef[]): Promise<Standing[]> {
    const answers = orgs.map((o) => standingsOf.get(this.principal, o.id));
    const missing = orgs.filter((_, i) => !answers[i]);
    if (missing.length > 0) {
      const grants =
        this.principal.kind === 'user' && !this.principal.user.isSiteAdmin
          ? this.#loadGrants(
              this.principal.user.id,
              missing.map((o) => o.id),
            )
          : Promise.resolve(new Map<string, TeamGrant[]>());
      const loaded = new Map(
        missing.map((org) => [
          org.id,
          standingsOf.set(
            this.principal,
            org.id,
            grants.then((g) => frozen(this.#resolve(org, g.get(org.id) ?? []))),
          ),
        ]),
      );
      orgs.forEach((o, i) => (answers[i] ??= loaded.get(o.id)));
    }
    for (const org of orgs) this.asked(org);
    return Promise.all(answers as Promise<Standing>[]);
  }

  /** Notes that this request concerns `org`, for the request log (answers known before ask nothing else). */
  asked(org: OrganizationRef): void {
    if (!this.#names.includes(org.name)) this.#names.push(org.name);
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

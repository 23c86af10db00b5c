// Organization memberships: TFE's invitations. A membership is one user in one organization,
// `invited` until its user accepts it, then `active`. Rights come from teams alone, and only
// active members are on teams: the teams an invitation names wait beside it (store.invitedTeams)
// and are joined when it is accepted.
import { authorize, can, denied, type ActionOn } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import type { Standing } from '../auth/organization.ts';
import { seesMembershipTeam } from '../auth/teams.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { Team, TeamsService, TeamView } from '../teams/service.ts';
import { now } from '../time.ts';
import type { UsersService, UserView } from '../users/service.ts';
import * as store from './store.ts';
import type { Membership, MembershipStatus } from './store.ts';

export type { Membership, MembershipStatus };

export const MEMBERSHIP_INCLUDES = ['user', 'teams'] as const;
export type MembershipInclude = (typeof MEMBERSHIP_INCLUDES)[number];

export interface MembershipView {
  membership: Membership;
  organizationName: string;
  /** The teams its user is on (active) or will join (invited), those the caller may see. */
  teamIds: string[];
}

/** Memberships, and the users and teams they name when asked (`include=user,teams`). */
export interface MembershipsDocument<T> {
  memberships: T;
  users?: UserView[];
  teams?: TeamView[];
}

interface Found {
  membership: Membership;
  standing: Standing;
  own: boolean;
}

export function createOrganizationMembershipsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  organizations: OrganizationsService;
  teams: TeamsService;
  users: UsersService;
}) {
  const db = deps.database.db;
  const ownId = (caller: Caller) => (caller.principal.kind === 'user' ? caller.principal.user.id : null);

  /** A membership the caller may perform `action` on; 404 when it may not see it. */
  async function find(caller: Caller, id: string, action: ActionOn<'membership'> = 'read-membership'): Promise<Found> {
    const membership = await store.findMembership(db, id);
    if (!membership) throw errors.notFound();
    const org = await deps.organizationLookup.organizationById(membership.organizationId);
    if (!org) throw errors.notFound();
    const standing = await caller.standing(org);
    authorize({ principal: caller.principal, standing, membership }, action);
    return { membership, standing, own: membership.userId === ownId(caller) };
  }

  /** Each membership with the teams the caller may see it has: two queries for any number. */
  async function views(
    q: Queryable,
    caller: Caller,
    memberships: readonly Membership[],
    standings: ReadonlyMap<string, Standing>,
  ): Promise<{ views: MembershipView[]; teams: Map<string, Team> }> {
    const byOrg = new Map<string, Membership[]>();
    for (const m of memberships) byOrg.set(m.organizationId, [...(byOrg.get(m.organizationId) ?? []), m]);
    const invited = await store.invitedTeams(
      q,
      memberships.filter((m) => m.status === 'invited').map((m) => m.id),
    );
    const teamIds = new Map<string, string[]>();
    const teams = new Map<string, Team>();
    for (const [orgId, ms] of byOrg) {
      const active = await deps.teams.teamIdsOfUsers(
        q,
        orgId,
        ms.filter((m) => m.status === 'active').map((m) => m.userId),
      );
      for (const m of ms) teamIds.set(m.id, m.status === 'active' ? (active.get(m.userId) ?? []) : (invited.get(m.id) ?? []));
      for (const t of await deps.teams.inOrganization(
        q,
        orgId,
        ms.flatMap((m) => teamIds.get(m.id) ?? []),
      ))
        teams.set(t.id, t);
    }
    const me = ownId(caller);
    const result = memberships.map((membership) => {
      const standing = standings.get(membership.organizationId)!;
      const own = membership.userId === me;
      const visible = (teamIds.get(membership.id) ?? []).filter((id) => {
        const team = teams.get(id);
        return team !== undefined && seesMembershipTeam(standing, own, team);
      });
      return { membership, organizationName: standing.organizationName, teamIds: visible };
    });
    return { views: result, teams };
  }

  async function document<T>(
    caller: Caller,
    shape: T,
    shown: { views: MembershipView[]; teams: Map<string, Team> },
    include: readonly MembershipInclude[],
    standings: ReadonlyMap<string, Standing>,
  ): Promise<MembershipsDocument<T>> {
    const doc: MembershipsDocument<T> = { memberships: shape };
    if (include.includes('user')) doc.users = await deps.users.views(caller, [...new Set(shown.views.map((v) => v.membership.userId))]);
    if (include.includes('teams')) {
      const ids = new Set(shown.views.flatMap((v) => v.teamIds));
      const teams = [...ids].map((id) => shown.teams.get(id)).filter((t) => t !== undefined);
      doc.teams = [];
      for (const [orgId, standing] of standings)
        doc.teams.push(
          ...(await deps.teams.viewsOf(
            standing,
            teams.filter((t) => t.organizationId === orgId),
          )),
        );
    }
    return doc;
  }

  /** The teams an invitation names: teams of the organization the caller sees, each one it may put people on. */
  async function teamsToJoin(caller: Caller, standing: Standing, organizationId: string, ids: readonly string[]): Promise<Team[]> {
    const found = await deps.teams.inOrganization(db, organizationId, ids);
    const visible = new Map(found.filter((t) => seesMembershipTeam(standing, false, t)).map((t) => [t.id, t]));
    const problems = unknownIds(
      ids,
      (id) => visible.has(id),
      'Team',
      (i) => `/data/relationships/teams/data/${i}/id`,
    );
    if (problems.length) throw errors.invalid(problems);
    const teams = [...visible.values()];
    for (const team of teams) {
      authorize({ standing, team }, 'manage-owners-team-membership');
      await deps.teams.checkMembershipGift(standing, team);
    }
    return teams;
  }

  // The creator of an organization is its first active member (the teams domain puts them on
  // the owners team in the same transaction).
  deps.organizations.onCreated(async (q, org, creator) => {
    await store.insertMembership(q, { id: newId('ou'), organizationId: org.id, userId: creator.userId, status: 'active', createdAt: now() });
  });

  // Putting a user on a team by username: a user with no membership becomes an active member (as
  // before memberships existed); an invited one is invited to the team too, and joins on accepting.
  deps.teams.useMemberships({
    async admit(q, team, userIds, at) {
      const existing = new Map((await store.membershipsOfUsers(q, team.organizationId, userIds)).map((m) => [m.userId, m]));
      for (const userId of userIds) {
        if (!existing.has(userId))
          await store.insertMembership(q, { id: newId('ou'), organizationId: team.organizationId, userId, status: 'active', createdAt: at });
      }
      const invited = [...existing.values()].filter((m) => m.status === 'invited');
      await store.inviteToTeams(
        q,
        invited.map((m) => m.id),
        [team.id],
        at,
      );
      const waiting = new Set(invited.map((m) => m.userId));
      return userIds.filter((id) => !waiting.has(id));
    },
    async release(q, team, userIds) {
      const memberships = await store.membershipsOfUsers(q, team.organizationId, userIds);
      await store.uninviteFromTeam(
        q,
        memberships.filter((m) => m.status === 'invited').map((m) => m.id),
        team.id,
      );
    },
  });

  /** Memberships of the team's organization named by id: 422 naming each that is not one. */
  async function membershipsOnTeam(team: Team, ids: readonly string[]): Promise<Membership[]> {
    const found = (await store.findMemberships(db, ids)).filter((m) => m.organizationId === team.organizationId);
    const known = new Set(found.map((m) => m.id));
    const problems = unknownIds(
      ids,
      (id) => known.has(id),
      'Organization membership',
      (i) => `/data/${i}/id`,
    );
    if (problems.length) throw errors.invalid(problems);
    return found;
  }

  return {
    /** Of `userIds`, those with a membership (invited or active) in the organization: whom a notification may name. */
    async membersAmong(organizationId: string, userIds: readonly string[]): Promise<Set<string>> {
      return new Set((await store.membershipsOfUsers(db, organizationId, userIds)).map((m) => m.userId));
    },

    async list(
      caller: Caller,
      organizationName: string,
      filter: { emails?: string[]; status?: MembershipStatus; search?: string },
      page: Page,
      include: readonly MembershipInclude[],
    ): Promise<MembershipsDocument<MembershipView[]> & { total: number }> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'read-memberships');
      const { items, total } = await store.listMemberships(db, { organizationId: org.id, ...filter }, page);
      const standings = new Map([[org.id, standing]]);
      const shown = await views(db, caller, items, standings);
      return { ...(await document(caller, shown.views, shown, include, standings)), total };
    },

    /** `GET /organization-memberships`: the caller's own memberships, in every organization (invitations included). */
    async listOwn(caller: Caller, include: readonly MembershipInclude[]): Promise<MembershipsDocument<MembershipView[]>> {
      const me = ownId(caller);
      const mine = me === null ? [] : await store.membershipsOfUser(db, me);
      const orgs = await Promise.all([...new Set(mine.map((m) => m.organizationId))].map((id) => deps.organizationLookup.organizationById(id)));
      const present = orgs.filter((o) => o !== undefined);
      const standings = await caller.standings(present);
      const byId = new Map(present.map((o, i) => [o.id, standings[i]!]));
      const shown = await views(
        db,
        caller,
        mine.filter((m) => byId.has(m.organizationId)),
        byId,
      );
      return document(caller, shown.views, shown, include, byId);
    },

    async show(caller: Caller, id: string, include: readonly MembershipInclude[]): Promise<MembershipsDocument<MembershipView>> {
      const { membership, standing } = await find(caller, id);
      const standings = new Map([[membership.organizationId, standing]]);
      const shown = await views(db, caller, [membership], standings);
      return document(caller, shown.views[0]!, shown, include, standings);
    },

    /**
     * Invites the person with `email` (an existing user with the address, or a new one) to the
     * organization, optionally onto teams. Answered with the user included, as TFE does.
     */
    async invite(caller: Caller, organizationName: string, input: { email: string; teamIds: string[] }): Promise<MembershipsDocument<MembershipView>> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'invite-member');
      const teams = await teamsToJoin(caller, standing, org.id, input.teamIds);
      const at = now();
      const membership = await deps.database.transaction(async (trx) => {
        const user = await deps.users.forInvitation(trx, input.email);
        const m = { id: newId('ou'), organizationId: org.id, userId: user.id, status: 'invited' as const, createdAt: at };
        await guarded(store.insertMembership(trx, m), {
          unique: () => errors.invalidAttribute('/data/attributes/email', 'The user is already a member of the organization or invited to it'),
        });
        await store.inviteToTeams(
          trx,
          [m.id],
          teams.map((t) => t.id),
          at,
        );
        return { ...m, email: user.email };
      });
      const standings = new Map([[org.id, standing]]);
      const shown = await views(db, caller, [membership], standings);
      return document(caller, shown.views[0]!, shown, ['user'], standings);
    },

    /** Its user accepts an invitation: the membership becomes active and its user joins the teams it names. */
    async accept(caller: Caller, id: string): Promise<MembershipsDocument<MembershipView>> {
      const { membership } = await find(caller, id, 'accept-membership');
      await deps.database.transaction(async (trx) => {
        if (!(await store.activate(trx, membership.id))) throw errors.conflict('The invitation has already been accepted');
        const teamIds = (await store.invitedTeams(trx, [membership.id])).get(membership.id) ?? [];
        for (const teamId of teamIds) await deps.teams.putOn(trx, teamId, [membership.userId], now());
        await store.clearInvitedTeams(trx, membership.id);
      });
      // The user's standing changed with the teams: ask again.
      const accepted = await store.findMembership(db, id);
      if (!accepted) throw errors.notFound();
      const org = await deps.organizationLookup.organizationById(accepted.organizationId);
      if (!org) throw errors.notFound();
      const standings = new Map([[org.id, await caller.standing(org)]]);
      const shown = await views(db, caller, [accepted], standings);
      return document(caller, shown.views[0]!, shown, [], standings);
    },

    /**
     * Removes a member (or withdraws an invitation, or its user leaves): off every team of the
     * organization too. Only owners remove an owner; the owners team keeps one member.
     */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { membership, standing, own } = await find(caller, id, 'destroy-membership');
      await deps.database.transaction(async (trx) => {
        if (!own) {
          const teamIds = (await deps.teams.teamIdsOfUsers(trx, membership.organizationId, [membership.userId])).get(membership.userId) ?? [];
          // A 403 even where the owners team is hidden from the caller: the membership is not.
          for (const team of await deps.teams.inOrganization(trx, membership.organizationId, teamIds)) {
            if (!can({ standing, team }, 'manage-owners-team-membership')) throw denied('manage-owners-team-membership');
          }
        }
        await deps.teams.leaveOrganization(trx, membership.organizationId, membership.userId);
        await store.deleteMembership(trx, membership.id);
      });
    },

    /** `POST /teams/:id/relationships/organization-memberships`: active members join now, invited ones on accepting. */
    async addToTeam(caller: Caller, teamId: string, membershipIds: string[]): Promise<void> {
      const { team } = await deps.teams.forMembershipChange(caller, teamId, true);
      const memberships = await membershipsOnTeam(team, membershipIds);
      const at = now();
      await deps.database.transaction(async (trx) => {
        await deps.teams.putOn(
          trx,
          team.id,
          memberships.filter((m) => m.status === 'active').map((m) => m.userId),
          at,
        );
        await store.inviteToTeams(
          trx,
          memberships.filter((m) => m.status === 'invited').map((m) => m.id),
          [team.id],
          at,
        );
      });
    },

    async removeFromTeam(caller: Caller, teamId: string, membershipIds: string[]): Promise<void> {
      const { team } = await deps.teams.forMembershipChange(caller, teamId, false);
      const memberships = await membershipsOnTeam(team, membershipIds);
      await deps.database.transaction(async (trx) => {
        await deps.teams.takeOff(
          trx,
          team,
          memberships.filter((m) => m.status === 'active').map((m) => m.userId),
        );
        await store.uninviteFromTeam(
          trx,
          memberships.filter((m) => m.status === 'invited').map((m) => m.id),
          team.id,
        );
      });
    },

    /** The memberships on each team (members and invitees), for a team document's `organization-memberships`. */
    async ofTeams(
      caller: Caller,
      teams: ReadonlyArray<{ id: string; organizationId: string; memberIds: readonly string[] }>,
    ): Promise<{ byTeam: Map<string, string[]>; memberships: MembershipView[] }> {
      const byTeam = new Map<string, string[]>(teams.map((t) => [t.id, []]));
      if (teams.length === 0) return { byTeam, memberships: [] };
      const organizationId = teams[0]!.organizationId;
      const { standing } = await deps.organizationLookup.findById(caller, organizationId);
      const active = await store.membershipsOfUsers(
        db,
        organizationId,
        teams.flatMap((t) => t.memberIds),
      );
      const byUser = new Map(active.map((m) => [m.userId, m]));
      const invited = await store.invitationsToTeams(
        db,
        teams.map((t) => t.id),
      );
      const invitations = new Map((await store.findMemberships(db, [...invited.values()].flat())).map((m) => [m.id, m]));
      for (const t of teams) {
        const ids = t.memberIds.map((u) => byUser.get(u)?.id).filter((id) => id !== undefined);
        byTeam.set(t.id, [...ids, ...(invited.get(t.id) ?? []).filter((id) => invitations.has(id))]);
      }
      const all = [...new Map([...active, ...invitations.values()].map((m) => [m.id, m])).values()];
      const shown = await views(db, caller, all, new Map([[organizationId, standing]]));
      return { byTeam, memberships: shown.views };
    },
  };
}

export type OrganizationMembershipsService = ReturnType<typeof createOrganizationMembershipsService>;

import type { Caller, TeamGrant } from '../auth/caller.ts';
import { authorize, type ActionOn, type TeamSubject } from '../auth/authorize.ts';
import type { ProjectGift, WorkspaceGift } from '../auth/gifts.ts';
import type { Standing } from '../auth/organization.ts';
import { teamPermissions, type TeamPermissions } from '../auth/permission-sets.ts';
import { teamFilter } from '../auth/teams.ts';
import { guarded } from '../db/constraints.ts';
import { GenerationCache } from '../db/changes.ts';
import type { Database, Queryable } from '../db/index.ts';
import { emptyAccess, fullAccess, ORGANIZATION_ACCESS_KEYS, withAccess, type OrganizationAccess, type ProjectGrant } from '../grants.ts';
import { newId } from '../ids.ts';
import { ApiError, errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import type { UsersService, UserView } from '../users/service.ts';
import { checkAttributes, TeamName } from '../values.ts';
import * as store from './store.ts';
import type { Team } from './store.ts';

export type { Team };

export interface TeamInput {
  name?: string;
  visibility?: 'secret' | 'organization';
  organizationAccess?: Partial<OrganizationAccess>;
  /** null or "" clears it. */
  ssoTeamId?: string | null;
  allowMemberTokenManagement?: boolean;
}

export interface TeamView {
  team: Team;
  memberIds: string[];
  organizationName: string;
  permissions: TeamPermissions;
}

/** Related resources a team document can include. */
export const TEAM_INCLUDES = ['users', 'organization-memberships'] as const;
export type TeamInclude = (typeof TEAM_INCLUDES)[number];

/** Teams, and the users on them when asked for (`include=users`). */
export interface TeamsDocument<T> {
  teams: T;
  users?: UserView[];
}

/** What a new member of the team would gain on single workspaces, against what the caller holds there. */
export type WorkspaceGiftsLoader = (standing: Standing, teamId: string) => Promise<WorkspaceGift[]>;

/** Every grant one team holds, by project: what a new member of the team would gain. */
export type TeamGrantsLoader = (teamId: string) => Promise<Array<ProjectGrant & { projectId: string }>>;

const ssoTeamId = (value: string | null | undefined) => (value === '' ? null : value);

type FoundTeam = TeamSubject & { team: Team };

/**
 * Organization memberships, as the teams domain needs them (organization-memberships/ registers
 * it): who may go on a team now, and who is only invited to.
 */
export interface MembershipGate {
  /**
   * Of users about to be put on `team` by username, those to put on it now. Users without a
   * membership become active members; invited users are invited to the team instead (it waits
   * for them to accept), and are not returned.
   */
  admit(q: Queryable, team: Team, userIds: readonly string[], at: string): Promise<string[]>;
  /** Withdraws the invitations of these users to `team`. */
  release(q: Queryable, team: Team, userIds: readonly string[]): Promise<void>;
}

export function createTeamsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  organizations: OrganizationsService;
  projectAccess: ProjectAccess;
  teamGrants: TeamGrantsLoader;
  workspaceGifts: WorkspaceGiftsLoader;
  users: UsersService;
}) {
  const db = deps.database.db;
  const deleteHooks: Array<(q: Queryable, teamId: string) => Promise<void>> = [];

  /** A team the caller may perform `action` on; 404 when it may not see it, 403 otherwise. */
  async function find(caller: Caller, id: string, action: ActionOn<'team'> = 'read-team'): Promise<FoundTeam> {
    const team = await store.findTeamById(db, id);
    if (!team) throw errors.notFound();
    const { standing } = await deps.organizationLookup.findById(caller, team.organizationId);
    const found = { standing, team };
    authorize(found, action);
    return found;
  }

  /**
   * A team's permissions depend on the caller's standing and the team's id, visibility and
   * whether it is the owners team, nothing else (auth/permission-sets.ts): kept per standing
   * (a cached standing lives until anything it was read from changes, db/changes.ts), so that
   * a page read again by the same caller rebuilds none. Shared, so frozen.
   */
  const permissionsOf = new WeakMap<Standing, Map<string, TeamPermissions>>();
  function shownPermissions(standing: Standing, team: Team): TeamPermissions {
    let known = permissionsOf.get(standing);
    if (!known) permissionsOf.set(standing, (known = new Map()));
    const key = `${team.id} ${team.visibility} ${team.isOwners}`;
    let permissions = known.get(key);
    if (!permissions) known.set(key, (permissions = Object.freeze(teamPermissions({ standing, team }))));
    return permissions;
  }

  const viewOf = (team: Team, memberIds: string[], standing: Standing): TeamView => ({
    team,
    memberIds,
    organizationName: standing.organizationName,
    permissions: teamPermissions({ standing, team }),
  });

  async function view(team: Team, standing: Standing): Promise<TeamView> {
    const members = await store.members.of(db, [team.id]);
    return viewOf(team, members.get(team.id) ?? [], standing);
  }

  /**
   * Changing a team's organization access (as opposed to sending it unchanged) is its own
   * permission, and a flag turned on must be one the caller holds.
   */
  function checkGrant(standing: Standing, current: OrganizationAccess, requested: Partial<OrganizationAccess> | undefined) {
    if (!requested) return;
    const next = withAccess(current, requested);
    if (!ORGANIZATION_ACCESS_KEYS.some((k) => next[k] !== current[k])) return;
    authorize({ standing }, 'grant-organization-access');
    authorize({ standing, organizationAccess: ORGANIZATION_ACCESS_KEYS.filter((k) => next[k] && !current[k]), projects: [] }, 'give-access');
  }

  /** Whoever puts users on a team gives them what the team holds: its flags, its project and workspace grants. */
  async function checkMembershipGift({ standing, team }: FoundTeam): Promise<void> {
    const organizationAccess = ORGANIZATION_ACCESS_KEYS.filter((k) => team.organizationAccess[k]);
    // Owners may give anything: nothing to load.
    if (standing.owner) return authorize({ standing, organizationAccess, projects: [] }, 'give-access');
    const grants = await deps.teamGrants(team.id);
    const held = await deps.projectAccess.heldGrants(
      db,
      standing,
      grants.map((g) => g.projectId),
    );
    const projects = grants.map((to): ProjectGift => ({ projectId: to.projectId, to, held: held.get(to.projectId) ?? [] }));
    const workspaces = await deps.workspaceGifts(standing, team.id);
    authorize({ standing, organizationAccess, projects, workspaces }, 'give-access');
  }

  /**
   * A team whose token the caller may manage. Issuing one hands its holder everything the team
   * holds, exactly as joining the team would: the same rules as adding a member apply.
   */
  async function findForToken(caller: Caller, id: string, issuing: boolean): Promise<Team> {
    const found = await find(caller, id, 'manage-team-token');
    if (issuing) {
      authorize(found, 'manage-owners-team-membership');
      await checkMembershipGift(found);
    }
    return found.team;
  }

  /** The users on `views`' teams, when the request includes them: one query for all. */
  async function withUsers<T>(caller: Caller, teams: T, views: readonly TeamView[], include: readonly TeamInclude[]): Promise<TeamsDocument<T>> {
    if (!include.includes('users')) return { teams };
    return { teams, users: await deps.users.views(caller, [...new Set(views.flatMap((v) => v.memberIds))]) };
  }

  async function usersByName(usernames: readonly string[]): Promise<string[]> {
    const found = await deps.users.findByUsernames(usernames);
    const known = new Set(found.filter((u) => !u.isServiceAccount).map((u) => u.username.toLowerCase()));
    const problems = unknownIds(
      usernames,
      (name) => known.has(name.toLowerCase()),
      'User',
      (i) => `/data/${i}/id`,
    );
    if (problems.length) throw errors.invalid(problems);
    return found.map((u) => u.id);
  }

  /** A team whose members the caller may change: membership rights, and for the owners team, being an owner. */
  async function findForMembership(caller: Caller, id: string): Promise<FoundTeam> {
    const found = await find(caller, id, 'manage-team-membership');
    authorize(found, 'manage-owners-team-membership');
    return found;
  }

  let gate: MembershipGate | null = null;

  /** Takes users off a team; the owners team keeps at least one member. Run inside a transaction. */
  async function takeOff(trx: Queryable, team: Team, userIds: readonly string[]): Promise<void> {
    await store.lockTeam(trx, team.id);
    await store.members.remove(trx, team.id, userIds);
    // An organization without owners could never be managed again.
    if (team.isOwners && (await store.countMembers(trx, team.id)) === 0) {
      throw errors.conflict('The owners team must keep at least one member');
    }
  }

  // Every organization is born with its owners team, the creator in it.
  deps.organizations.onCreated(async (q, org, creator) => {
    const team: Team = {
      id: newId('team'),
      organizationId: org.id,
      name: 'owners',
      visibility: 'secret',
      isOwners: true,
      organizationAccess: fullAccess(),
      ssoTeamId: null,
      allowMemberTokenManagement: true,
      createdAt: now(),
    };
    await store.insertTeam(q, team);
    await store.members.add(q, team.id, [creator.userId], team.createdAt);
  });

  // The user's teams in one organization, per (user, organization), until any team, membership
  // or token changes (db/changes.ts): the standing behind nearly every request.
  const standings = new GenerationCache<TeamGrant[]>(deps.database.changes, 10_000);

  async function teamGrants(userId: string, organizationIds: readonly string[]): Promise<Map<string, TeamGrant[]>> {
    const byOrg = new Map<string, TeamGrant[]>();
    for (const t of await store.teamsOfUser(db, userId, organizationIds)) {
      const list = byOrg.get(t.organizationId) ?? [];
      list.push({ teamId: t.id, isOwners: t.isOwners, access: t.organizationAccess });
      byOrg.set(t.organizationId, list);
    }
    return byOrg;
  }

  return {
    useMemberships(g: MembershipGate): void {
      gate = g;
    },

    /**
     * A team whose members the caller may change (`adding`: and may give its new members what
     * the team holds): for changes by organization membership.
     */
    async forMembershipChange(caller: Caller, id: string, adding: boolean): Promise<{ team: Team; standing: Standing }> {
      const found = await findForMembership(caller, id);
      if (adding) await checkMembershipGift(found);
      return found;
    },

    /** Puts users (active members of the team's organization) on a team. */
    putOn: (q: Queryable, teamId: string, userIds: readonly string[], at: string) => store.members.add(q, teamId, userIds, at),

    takeOff,

    /** Teams as a caller with `standing` in their organization sees them (one query for their members). */
    async viewsOf(standing: Standing, teams: readonly Team[]): Promise<TeamView[]> {
      const members = await store.members.of(
        db,
        teams.map((t) => t.id),
      );
      return teams.map((team) => viewOf(team, members.get(team.id) ?? [], standing));
    },

    /** Takes a user off every team of an organization (leaving it); the owners team keeps one member. */
    async leaveOrganization(trx: Queryable, organizationId: string, userId: string): Promise<void> {
      const teams = await store.teamsOfUser(trx, userId, [organizationId]);
      for (const team of teams) await takeOff(trx, team, [userId]);
    },

    /** The teams each user is on in one organization (one query): user id → team ids. */
    async teamIdsOfUsers(q: Queryable, organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
      const result = new Map<string, string[]>(userIds.map((id) => [id, []]));
      for (const r of await store.teamsOfUsers(q, organizationId, userIds)) result.get(r.userId)?.push(r.teamId);
      return result;
    },

    /** Teams of one organization among `ids`, whatever their visibility (for invitations naming them). */
    /** For the site admin's organization views: the owners team's members of each organization, in one query. */
    async ownersOf(organizationIds: readonly string[]): Promise<Map<string, string[]>> {
      const owners = new Map<string, string[]>();
      for (const { organizationId, userId } of await store.ownersOf(db, organizationIds))
        owners.set(organizationId, [...(owners.get(organizationId) ?? []), userId]);
      return owners;
    },
    inOrganization: (q: Queryable, organizationId: string, ids: readonly string[]) => store.findTeamsByIds(q, organizationId, ids),

    /** A team the caller may perform `action` on (for things that belong to a team); 404 or 403 otherwise. */
    find,

    checkMembershipGift: async (standing: Standing, team: Team) => checkMembershipGift({ standing, team }),

    /**
     * A team of the organization, whatever its visibility: for granting it access to something
     * (a project admin names teams by id, secret ones included). Undefined when absent.
     */
    findForToken,

    /** Holds the team's row until the transaction ends (PostgreSQL), so that writes counting its things run one at a time. */
    hold: (q: Queryable, id: string) => store.lockTeam(q, id),

    /** Whether the caller may see and manage the team's token (`/authentication-tokens/:id`). */
    async mayManageToken(caller: Caller, id: string): Promise<boolean> {
      try {
        await find(caller, id, 'manage-team-token');
        return true;
      } catch (e) {
        if (e instanceof ApiError) return false;
        throw e;
      }
    },

    async findInOrganization(id: string, organizationId: string): Promise<Team | undefined> {
      const team = await store.findTeamById(db, id);
      return team?.organizationId === organizationId ? team : undefined;
    },

    /** The loader behind every caller's standing: the user's teams in some organizations (one query). */
    async grants(userId: string, organizationIds: readonly string[]): Promise<Map<string, TeamGrant[]>> {
      if (organizationIds.length === 1) {
        const id = organizationIds[0]!;
        const grants = await standings.get(`${userId} ${id}`, async () => (await teamGrants(userId, organizationIds)).get(id) ?? []);
        return new Map([[id, grants]]);
      }
      return teamGrants(userId, organizationIds);
    },

    async list(
      caller: Caller,
      organizationName: string,
      filter: { names?: string[]; search?: string },
      page: Page,
      include: readonly TeamInclude[] = [],
    ): Promise<TeamsDocument<TeamView[]> & { total: number }> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'read-teams');
      // One statement: the page, each team's members and the count (teams/store.ts).
      const { items, total } = await store.listTeams(db, { organizationId: org.id, ...filter, visible: teamFilter(standing) }, page);
      const views = items.map(({ team, memberIds }) => ({
        team,
        memberIds,
        organizationName: standing.organizationName,
        permissions: shownPermissions(standing, team),
      }));
      return { ...(await withUsers(caller, views, views, include)), total };
    },

    async create(caller: Caller, organizationName: string, input: TeamInput & { name: string }): Promise<TeamView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'create-team');
      checkAttributes({ name: [TeamName, input.name] });
      checkGrant(standing, emptyAccess(), input.organizationAccess);
      const team: Team = {
        id: newId('team'),
        organizationId: org.id,
        name: input.name,
        visibility: input.visibility ?? 'secret',
        isOwners: false,
        organizationAccess: withAccess(emptyAccess(), input.organizationAccess),
        ssoTeamId: ssoTeamId(input.ssoTeamId) ?? null,
        allowMemberTokenManagement: input.allowMemberTokenManagement ?? true,
        createdAt: now(),
      };
      await guarded(store.insertTeam(db, team), { unique: () => errors.taken('name') });
      return viewOf(team, [], standing);
    },

    async show(caller: Caller, id: string, include: readonly TeamInclude[] = []): Promise<TeamsDocument<TeamView>> {
      const { team, standing } = await find(caller, id);
      const shown = await view(team, standing);
      return withUsers(caller, shown, [shown], include);
    },

    async update(caller: Caller, id: string, input: TeamInput): Promise<TeamView> {
      const { team, standing } = await find(caller, id, 'update-team');
      if (team.isOwners) {
        if (input.name !== undefined && input.name !== team.name) {
          throw errors.invalidAttribute('/data/attributes/name', 'The owners team cannot be renamed');
        }
        const requested = input.organizationAccess;
        if (requested && ORGANIZATION_ACCESS_KEYS.some((k) => requested[k] === false)) {
          throw errors.invalidAttribute('/data/attributes/organization-access', 'The owners team always holds every permission');
        }
      }
      checkAttributes({ name: [TeamName, input.name] });
      if (!team.isOwners) checkGrant(standing, team.organizationAccess, input.organizationAccess);
      const organizationAccess = input.organizationAccess && !team.isOwners ? withAccess(team.organizationAccess, input.organizationAccess) : undefined;
      const patch = {
        name: input.name,
        visibility: input.visibility,
        organizationAccess,
        ssoTeamId: ssoTeamId(input.ssoTeamId),
        allowMemberTokenManagement: input.allowMemberTokenManagement,
      };
      await guarded(store.updateTeam(db, id, patch), { unique: () => errors.taken('name') });
      const updated = await store.findTeamById(db, id);
      if (!updated) throw errors.notFound();
      return view(updated, standing);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { team } = await find(caller, id, 'destroy-team');
      if (team.isOwners) throw errors.forbidden('The owners team cannot be deleted');
      await deps.database.transaction(async (trx) => {
        for (const hook of deleteHooks) await hook(trx, id);
        await store.deleteTeam(trx, id);
      });
    },

    /** What another domain must undo when a team goes (its locks), in the delete's transaction. */
    beforeDelete(hook: (q: Queryable, teamId: string) => Promise<void>): void {
      deleteHooks.push(hook);
    },

    async addUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const found = await findForMembership(caller, id);
      await checkMembershipGift(found);
      const { team } = found;
      const ids = await usersByName(usernames);
      const at = now();
      if (!gate) return store.members.add(db, team.id, ids, at);
      const g = gate;
      await deps.database.transaction(async (trx) => store.members.add(trx, team.id, await g.admit(trx, team, ids, at), at));
    },

    async removeUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const { team } = await findForMembership(caller, id);
      const ids = await usersByName(usernames);
      await deps.database.transaction(async (trx) => {
        await takeOff(trx, team, ids);
        await gate?.release(trx, team, ids);
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;

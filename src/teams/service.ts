import type { Database, Queryable } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import type { Caller, TeamGrant } from '../auth/caller.ts';
import { can, emptyAccess, fullAccess, ORGANIZATION_ACCESS_KEYS, withAccess, type OrganizationAccess, type Standing } from '../auth/permissions.ts';
import { errors, unknownIds } from '../jsonapi/errors.ts';
import { newId } from '../ids.ts';
import { now } from '../time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/service.ts';
import type { UsersService } from '../users/service.ts';
import * as store from './store.ts';
import type { Team } from './store.ts';

export type { Team };

const TEAM_NAME = /^[A-Za-z0-9_-]{1,255}$/;
const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');

export interface TeamInput {
  name?: string;
  visibility?: 'secret' | 'organization';
  organizationAccess?: Partial<OrganizationAccess>;
}

export interface TeamView {
  team: Team;
  memberIds: string[];
  standing: Standing;
}

export function createTeamsService(deps: { database: Database; users: UsersService; organizations: OrganizationLookup }) {
  const db = deps.database.db;

  function mayManageTeams(s: Standing) {
    return can(s, 'manage-teams');
  }

  /** Secret teams are visible to their members, owners and `access-secret-teams` only (as in TFE). */
  function canSee(s: Standing, team: Team) {
    return team.visibility === 'organization' || can(s, 'see-secret-teams') || s.teamIds.includes(team.id);
  }

  /** Granting organization permissions needs `manage-organization-access`, not just `manage-teams`. */
  function checkGrant(s: Standing, current: OrganizationAccess, requested: Partial<OrganizationAccess> | undefined) {
    if (!requested) return;
    const next = withAccess(current, requested);
    const changes = Object.keys(next).some((k) => next[k as keyof OrganizationAccess] !== current[k as keyof OrganizationAccess]);
    if (changes && !can(s, 'manage-organization-access')) {
      throw errors.forbidden('Changing organization access needs the manage-organization-access permission');
    }
  }

  /** A team the caller may see, with the caller's standing in its organization; 404 otherwise. */
  async function visibleTeam(caller: Caller, id: string): Promise<{ team: Team; standing: Standing }> {
    const team = await store.findTeamById(db, id);
    if (!team) throw errors.notFound();
    const { standing } = await deps.organizations.resolveById(caller, team.organizationId);
    if (!canSee(standing, team)) throw errors.notFound();
    return { team, standing };
  }

  /**
   * A team whose members the caller may change. Being on the owners team is being an owner, so
   * only owners decide who is on it: `manage-membership` and `manage-teams` stop short of it, or
   * they would be a way to become owner (and to remove the real owners).
   */
  async function mayChangeMembers(caller: Caller, id: string): Promise<{ team: Team; standing: Standing }> {
    const found = await visibleTeam(caller, id);
    if (!can(found.standing, 'manage-membership')) throw errors.forbidden('You are not allowed to manage team membership');
    if (found.team.isOwners && !found.standing.owner) throw errors.forbidden('Only owners may change who is on the owners team');
    return found;
  }

  async function view(team: Team, standing: Standing): Promise<TeamView> {
    const members = await store.membersOfTeams(db, [team.id]);
    return { team, memberIds: members.get(team.id) ?? [], standing };
  }

  function checkName(name: string) {
    if (!TEAM_NAME.test(name)) {
      throw errors.invalidAttribute('/data/attributes/name', 'Name may only contain letters, numbers, "-" and "_"');
    }
  }

  async function usersByName(usernames: readonly string[]): Promise<string[]> {
    const found = await deps.users.findByUsernames(usernames);
    const known = new Set(found.filter((u) => !u.isServiceAccount).map((u) => u.username.toLowerCase()));
    const problems = unknownIds(usernames, (name) => known.has(name.toLowerCase()), 'User', (i) => `/data/${i}/id`);
    if (problems.length) throw errors.invalid(problems);
    return found.map((u) => u.id);
  }

  return {
    visibleTeam,

    /**
     * A team of the organization, whatever its visibility: for granting it access to something
     * (a project admin names teams by id, secret ones included). Undefined when absent.
     */
    async findInOrganization(id: string, organizationId: string): Promise<Team | undefined> {
      const team = await store.findTeamById(db, id);
      return team?.organizationId === organizationId ? team : undefined;
    },

    /** The loader behind every caller's standing: the user's teams in one organization. */
    async grants(userId: string, organizationIds: readonly string[]): Promise<Map<string, TeamGrant[]>> {
      const byOrg = new Map<string, TeamGrant[]>();
      for (const t of await store.teamsOfUser(db, userId, organizationIds)) {
        const list = byOrg.get(t.organizationId) ?? [];
        list.push({ teamId: t.id, isOwners: t.isOwners, access: t.organizationAccess });
        byOrg.set(t.organizationId, list);
      }
      return byOrg;
    },

    organizationIdsOf: (userId: string) => store.organizationIdsOfUser(db, userId),

    /** Part of creating an organization: its owners team, with the creator (if a user) in it. */
    async createOwnersTeam(q: Queryable, organizationId: string, firstMemberId: string | null): Promise<Team> {
      const team: Team = {
        id: newId('team'),
        organizationId,
        name: 'owners',
        visibility: 'secret',
        isOwners: true,
        organizationAccess: fullAccess(),
        createdAt: now(),
      };
      await store.insertTeam(q, team);
      if (firstMemberId) await store.addMembers(q, team.id, [firstMemberId], team.createdAt);
      return team;
    },

    async list(caller: Caller, organizationName: string, filter: { names?: string[]; search?: string }, page: Page) {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName, 'read-teams');
      const all = can(standing, 'see-secret-teams');
      const { items, total } = await store.listTeams(
        db,
        { organizationId: org.id, ...filter, visibleTeamIds: all ? null : standing.teamIds },
        page,
      );
      const members = await store.membersOfTeams(db, items.map((t) => t.id));
      return { items: items.map((team) => ({ team, memberIds: members.get(team.id) ?? [], standing })), total };
    },

    async create(caller: Caller, organizationName: string, input: TeamInput & { name: string }): Promise<TeamView> {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName, 'manage-teams');
      checkName(input.name);
      checkGrant(standing, emptyAccess(), input.organizationAccess);
      const team: Team = {
        id: newId('team'),
        organizationId: org.id,
        name: input.name,
        visibility: input.visibility ?? 'secret',
        isOwners: false,
        organizationAccess: withAccess(emptyAccess(), input.organizationAccess),
        createdAt: now(),
      };
      try {
        await store.insertTeam(db, team);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      return { team, memberIds: [], standing };
    },

    async show(caller: Caller, id: string): Promise<TeamView> {
      const { team, standing } = await visibleTeam(caller, id);
      return view(team, standing);
    },

    async update(caller: Caller, id: string, input: TeamInput): Promise<TeamView> {
      const { team, standing } = await visibleTeam(caller, id);
      if (!mayManageTeams(standing)) throw errors.forbidden('You are not allowed to manage teams');
      if (team.isOwners) {
        if (input.name !== undefined && input.name !== team.name) {
          throw errors.invalidAttribute('/data/attributes/name', 'The owners team cannot be renamed');
        }
        const requested = input.organizationAccess;
        if (requested && ORGANIZATION_ACCESS_KEYS.some((k) => requested[k] === false)) {
          throw errors.invalidAttribute('/data/attributes/organization-access', 'The owners team always holds every permission');
        }
      }
      if (input.name !== undefined) checkName(input.name);
      if (!team.isOwners) checkGrant(standing, team.organizationAccess, input.organizationAccess);
      const organizationAccess = input.organizationAccess && !team.isOwners
        ? withAccess(team.organizationAccess, input.organizationAccess)
        : undefined;
      try {
        await store.updateTeam(db, id, { name: input.name, visibility: input.visibility, organizationAccess });
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      const updated = await store.findTeamById(db, id);
      if (!updated) throw errors.notFound();
      return view(updated, standing);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { team, standing } = await visibleTeam(caller, id);
      if (!mayManageTeams(standing)) throw errors.forbidden('You are not allowed to manage teams');
      if (team.isOwners) throw errors.forbidden('The owners team cannot be deleted');
      await store.deleteTeam(db, id);
    },

    async addUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const { team } = await mayChangeMembers(caller, id);
      const ids = await usersByName(usernames);
      await store.addMembers(db, team.id, ids, now());
    },

    async removeUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const { team } = await mayChangeMembers(caller, id);
      const ids = await usersByName(usernames);
      await deps.database.transaction(async (trx) => {
        await store.lockTeam(trx, team.id);
        await store.removeMembers(trx, team.id, ids);
        // An organization without owners could never be managed again.
        if (team.isOwners && (await store.countMembers(trx, team.id)) === 0) {
          throw errors.conflict('The owners team must keep at least one member');
        }
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;

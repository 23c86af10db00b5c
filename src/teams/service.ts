import type { Caller, TeamGrant } from '../auth/caller.ts';
import { authorize, type ActionOn, type TeamSubject } from '../auth/authorize.ts';
import type { Standing } from '../auth/organization.ts';
import { teamPermissions, type TeamPermissions } from '../auth/permission-sets.ts';
import { teamFilter } from '../auth/teams.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import { emptyAccess, fullAccess, ORGANIZATION_ACCESS_KEYS, withAccess, type OrganizationAccess } from '../grants.ts';
import { newId } from '../ids.ts';
import { errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import { now } from '../time.ts';
import type { UsersService } from '../users/service.ts';
import { checkAttributes, Name } from '../values.ts';
import * as store from './store.ts';
import type { Team } from './store.ts';

export type { Team };

export interface TeamInput {
  name?: string;
  visibility?: 'secret' | 'organization';
  organizationAccess?: Partial<OrganizationAccess>;
}

export interface TeamView {
  team: Team;
  memberIds: string[];
  organizationName: string;
  permissions: TeamPermissions;
}

type FoundTeam = TeamSubject & { team: Team };

export function createTeamsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  organizations: OrganizationsService;
  users: UsersService;
}) {
  const db = deps.database.db;

  /** A team the caller may perform `action` on; 404 when it may not see it, 403 otherwise. */
  async function find(caller: Caller, id: string, action: ActionOn<'team'> = 'read-team'): Promise<FoundTeam> {
    const team = await store.findTeamById(db, id);
    if (!team) throw errors.notFound();
    const { standing } = await deps.organizationLookup.findById(caller, team.organizationId);
    const found = { standing, team };
    authorize(found, action);
    return found;
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

  /** Changing a team's organization access (as opposed to sending it unchanged) is its own permission. */
  function checkGrant(standing: Standing, current: OrganizationAccess, requested: Partial<OrganizationAccess> | undefined) {
    if (!requested) return;
    const next = withAccess(current, requested);
    if (ORGANIZATION_ACCESS_KEYS.some((k) => next[k] !== current[k])) authorize({ standing }, 'grant-organization-access');
  }

  async function usersByName(usernames: readonly string[]): Promise<string[]> {
    const found = await deps.users.findByUsernames(usernames);
    const known = new Set(found.filter((u) => !u.isServiceAccount).map((u) => u.username.toLowerCase()));
    const problems = unknownIds(usernames, (name) => known.has(name.toLowerCase()), 'User', (i) => `/data/${i}/id`);
    if (problems.length) throw errors.invalid(problems);
    return found.map((u) => u.id);
  }

  /** A team whose members the caller may change: membership rights, and for the owners team, being an owner. */
  async function findForMembership(caller: Caller, id: string): Promise<FoundTeam> {
    const found = await find(caller, id, 'manage-team-membership');
    authorize(found, 'manage-owners-team-membership');
    return found;
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
      createdAt: now(),
    };
    await store.insertTeam(q, team);
    await store.members.add(q, team.id, [creator.userId], team.createdAt);
  });

  return {
    /**
     * A team of the organization, whatever its visibility: for granting it access to something
     * (a project admin names teams by id, secret ones included). Undefined when absent.
     */
    async findInOrganization(id: string, organizationId: string): Promise<Team | undefined> {
      const team = await store.findTeamById(db, id);
      return team?.organizationId === organizationId ? team : undefined;
    },

    /** The loader behind every caller's standing: the user's teams in some organizations (one query). */
    async grants(userId: string, organizationIds: readonly string[]): Promise<Map<string, TeamGrant[]>> {
      const byOrg = new Map<string, TeamGrant[]>();
      for (const t of await store.teamsOfUser(db, userId, organizationIds)) {
        const list = byOrg.get(t.organizationId) ?? [];
        list.push({ teamId: t.id, isOwners: t.isOwners, access: t.organizationAccess });
        byOrg.set(t.organizationId, list);
      }
      return byOrg;
    },

    async list(caller: Caller, organizationName: string, filter: { names?: string[]; search?: string }, page: Page) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'read-teams');
      const { items, total } = await store.listTeams(db, { organizationId: org.id, ...filter, visible: teamFilter(standing) }, page);
      const members = await store.members.of(db, items.map((t) => t.id));
      return { items: items.map((team) => viewOf(team, members.get(team.id) ?? [], standing)), total };
    },

    async create(caller: Caller, organizationName: string, input: TeamInput & { name: string }): Promise<TeamView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'create-team');
      checkAttributes({ name: [Name, input.name] });
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
      await guarded(store.insertTeam(db, team), { unique: () => errors.taken('name') });
      return viewOf(team, [], standing);
    },

    async show(caller: Caller, id: string): Promise<TeamView> {
      const { team, standing } = await find(caller, id);
      return view(team, standing);
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
      checkAttributes({ name: [Name, input.name] });
      if (!team.isOwners) checkGrant(standing, team.organizationAccess, input.organizationAccess);
      const organizationAccess = input.organizationAccess && !team.isOwners ? withAccess(team.organizationAccess, input.organizationAccess) : undefined;
      await guarded(store.updateTeam(db, id, { name: input.name, visibility: input.visibility, organizationAccess }), {
        unique: () => errors.taken('name'),
      });
      const updated = await store.findTeamById(db, id);
      if (!updated) throw errors.notFound();
      return view(updated, standing);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { team } = await find(caller, id, 'destroy-team');
      if (team.isOwners) throw errors.forbidden('The owners team cannot be deleted');
      await store.deleteTeam(db, id);
    },

    async addUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const { team } = await findForMembership(caller, id);
      const ids = await usersByName(usernames);
      await store.members.add(db, team.id, ids, now());
    },

    async removeUsers(caller: Caller, id: string, usernames: string[]): Promise<void> {
      const { team } = await findForMembership(caller, id);
      const ids = await usersByName(usernames);
      await deps.database.transaction(async (trx) => {
        await store.lockTeam(trx, team.id);
        await store.members.remove(trx, team.id, ids);
        // An organization without owners could never be managed again.
        if (team.isOwners && (await store.countMembers(trx, team.id)) === 0) {
          throw errors.conflict('The owners team must keep at least one member');
        }
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;

import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
import type { WorkspaceGift } from '../auth/gifts.ts';
import type { Standing } from '../auth/organization.ts';
import { workspaceTeamGrantFilter } from '../auth/teams.ts';
import { workspaceGrant, type WorkspaceGrantLoader } from '../auth/workspace-grants.ts';
import { GenerationCache } from '../db/changes.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import type { CustomWorkspaceAccess, WorkspaceAccessLevel, WorkspaceGrant } from '../grants.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { TeamsService } from '../teams/service.ts';
import { now } from '../time.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { TeamWorkspace } from './store.ts';

export type { TeamWorkspace };

/**
 * The loader behind every caller's authority over single workspaces (one query per call). The
 * grants of a set of workspaces read outside a transaction are cached until any grant, team or
 * membership changes (db/changes.ts), as project grants are; reads in a transaction (which may
 * hold locks) always go to the database. A workspace's deletion drops its grants by cascade
 * without moving the feed on SQLite, but grants of a workspace that no longer exists are never
 * asked for: every lookup starts from the workspace row, which is not cached.
 */
export function createWorkspaceGrantLoader(database: Database): WorkspaceGrantLoader {
  const cache = new GenerationCache<Map<string, TeamWorkspace[]>>(database.changes, 10_000);
  return (q, teamIds, workspaceIds) => {
    if (q !== database.db) return store.grantsOf(q, teamIds, workspaceIds);
    return cache.get(`${workspaceIds.join(',')} ${teamIds.join(' ')}`, () => store.grantsOf(q, teamIds, workspaceIds));
  };
}

/**
 * What putting someone on a team (or issuing its token) gives on single workspaces: every grant
 * the team holds, against what the caller holds on each workspace. Four queries.
 */
export function createWorkspaceGiftsLoader(deps: { database: Database; workspaces: WorkspacesService }) {
  return async (standing: Standing, teamId: string): Promise<WorkspaceGift[]> => {
    const grants = await store.grantsOfTeam(deps.database.db, teamId);
    if (grants.length === 0) return [];
    const held = await deps.workspaces.heldOn(
      standing,
      grants.map((g) => g.workspaceId),
    );
    return grants.map((to) => ({ workspaceId: to.workspaceId, to, held: held.get(to.workspaceId) ?? [] }));
  };
}

export interface TeamWorkspaceInput {
  access?: WorkspaceAccessLevel;
  custom: CustomWorkspaceAccess;
}

/** Custom permissions only make sense with `access: custom`; elsewhere the level decides. */
function effective(input: TeamWorkspaceInput, current?: WorkspaceGrant): WorkspaceGrant {
  const access = input.access ?? current?.access ?? 'read';
  if (access !== 'custom') {
    const sent = Object.entries(input.custom).filter(([, v]) => v !== undefined);
    if (sent.length) {
      // TFE's wording, which go-tfe's tests compare: "Runs is read-only when access level is 'read'; …".
      const label = (k: string) => k.charAt(0).toUpperCase() + k.slice(1).replaceAll('-', ' ');
      throw errors.invalid(
        sent.map(([k]) => ({
          pointer: `/data/attributes/${k}`,
          detail: `${label(k)} is read-only when access level is '${access}'; use the 'custom' access level to set this attribute.`,
        })),
      );
    }
  }
  return workspaceGrant(access, input.custom, current?.access === 'custom' ? current : undefined);
}

export function createTeamWorkspacesService(deps: { database: Database; workspaces: WorkspacesService; teams: TeamsService }) {
  const db = deps.database.db;

  /** A grant the caller may see, with the caller's authority over its workspace; 404 otherwise. */
  async function find(caller: Caller, id: string) {
    const teamWorkspace = hasPrefix(id, 'tws') ? await store.findTeamWorkspace(db, id) : undefined;
    if (!teamWorkspace) throw errors.notFound();
    const found = { ...(await deps.workspaces.find(caller, { id: teamWorkspace.workspaceId })), grant: teamWorkspace };
    authorize(found, 'read-workspace-team-grant');
    return found;
  }

  /** Nobody gives a permission on the workspace it does not hold itself (auth/gifts.ts). */
  async function checkGift(standing: Standing, workspaceId: string, to: WorkspaceGrant, from?: WorkspaceGrant) {
    const held = standing.owner ? [] : ((await deps.workspaces.heldOn(standing, [workspaceId])).get(workspaceId) ?? []);
    authorize({ standing, organizationAccess: [], projects: [], workspaces: [{ workspaceId, to, from, held }] }, 'give-access');
  }

  return {
    async list(caller: Caller, filter: { workspaceId: string }, page: Page) {
      const { workspace, standing, authority } = await deps.workspaces.find(caller, { id: filter.workspaceId });
      return store.listTeamWorkspaces(db, { workspaceId: workspace.id, visible: workspaceTeamGrantFilter(standing, authority) }, page);
    },

    async create(caller: Caller, input: TeamWorkspaceInput & { access: WorkspaceAccessLevel; workspaceId: string; teamId: string }) {
      const { workspace, standing } = await deps.workspaces.find(caller, { id: input.workspaceId }, 'manage-workspace-team-access');
      const team = await deps.teams.findInOrganization(input.teamId, workspace.organizationId);
      if (!team) throw errors.invalidAttribute('/data/relationships/team/data/id', 'Team not found');
      const grant = effective(input);
      await checkGift(standing, workspace.id, grant);
      const teamWorkspace: TeamWorkspace = { id: newId('tws'), teamId: team.id, workspaceId: workspace.id, createdAt: now(), ...grant };
      await guarded(store.insertTeamWorkspace(db, teamWorkspace), {
        unique: () => errors.invalidAttribute('/data/relationships/team/data/id', 'Team already has access to this workspace'),
        // The team or the workspace was deleted a moment ago.
        foreignKey: () => errors.notFound(),
      });
      return teamWorkspace;
    },

    show: async (caller: Caller, id: string) => (await find(caller, id)).grant,

    async update(caller: Caller, id: string, input: TeamWorkspaceInput): Promise<TeamWorkspace> {
      const found = await find(caller, id);
      authorize(found, 'manage-workspace-team-access');
      const grant = effective(input, found.grant);
      await checkGift(found.standing, found.workspace.id, grant, found.grant);
      // Deleted since we read it: answer as if it had never been there.
      if ((await store.updateTeamWorkspace(db, id, grant)) === 0) throw errors.notFound();
      return { ...found.grant, ...grant };
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      authorize(await find(caller, id), 'manage-workspace-team-access');
      await store.deleteTeamWorkspace(db, id);
    },
  };
}

export type TeamWorkspacesService = ReturnType<typeof createTeamWorkspacesService>;

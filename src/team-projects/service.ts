import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
import { projectGrant } from '../auth/project-grants.ts';
import type { ProjectGrantLoader } from '../auth/project-scope.ts';
import { teamGrantFilter } from '../auth/teams.ts';
import { GenerationCache } from '../db/changes.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { CustomAccess, ProjectAccessLevel, ProjectGrant } from '../grants.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { ProjectAccess } from '../projects/access.ts';
import type { TeamGrantsLoader, TeamsService } from '../teams/service.ts';
import { now } from '../time.ts';
import * as store from './store.ts';
import type { TeamProject } from './store.ts';

export type { TeamProject };

/**
 * The loader behind every caller's authority over projects (one query per call). One project's
 * grants read outside a transaction are cached until any grant, team or membership changes
 * (db/changes.ts); reads in a transaction (which may hold locks) always go to the database.
 */
export function createProjectGrantLoader(database: Database): ProjectGrantLoader {
  const cache = new GenerationCache<Map<string, ProjectGrant[]>>(database.changes, 10_000);
  // A show asks for one project, a list page for its page's: each set is kept until the next
  // write to grants, teams or memberships (db/changes.ts), so a page read again costs no query.
  return (q, teamIds, projectIds) => {
    if (q !== database.db) return store.grantsOf(q, teamIds, projectIds);
    return cache.get(`${projectIds.join(',')} ${teamIds.join(' ')}`, () => store.grantsOf(q, teamIds, projectIds));
  };
}

/** Every grant one team holds, on any project: what a new member of the team would gain. */
export function createTeamGrantsLoader(database: Database): TeamGrantsLoader {
  return (teamId) => store.grantsOfTeam(database.db, teamId);
}

export interface TeamProjectInput {
  access?: ProjectAccessLevel;
  projectAccess?: CustomAccess['project'];
  workspaceAccess?: CustomAccess['workspace'];
}

/** Custom sub-objects only make sense with `access: custom`; elsewhere the level decides. */
function effective(input: TeamProjectInput, current?: ProjectGrant): ProjectGrant {
  const access = input.access ?? current?.access ?? 'read';
  if (access !== 'custom') {
    const problems = [];
    if (input.projectAccess && Object.keys(input.projectAccess).length) {
      problems.push({ pointer: '/data/attributes/project-access', detail: 'Project access can only be set when access is custom' });
    }
    if (input.workspaceAccess && Object.keys(input.workspaceAccess).length) {
      problems.push({ pointer: '/data/attributes/workspace-access', detail: 'Workspace access can only be set when access is custom' });
    }
    if (problems.length) throw errors.invalid(problems);
  }
  // A custom grant that stays custom keeps the values the request does not mention.
  return projectGrant(access, { project: input.projectAccess, workspace: input.workspaceAccess }, current?.access === 'custom' ? current : undefined);
}

export function createTeamProjectsService(deps: { database: Database; projectAccess: ProjectAccess; teams: TeamsService }) {
  const db = deps.database.db;

  /** A grant the caller may see, with the caller's authority over its project; 404 otherwise. */
  async function find(caller: Caller, id: string) {
    const teamProject = hasPrefix(id, 'tprj') ? await store.findTeamProject(db, id) : undefined;
    if (!teamProject) throw errors.notFound();
    const found = { ...(await deps.projectAccess.find(caller, teamProject.projectId)), grant: teamProject };
    authorize(found, 'read-team-grant');
    return found;
  }

  return {
    countByProject: (q: Queryable, projectIds: readonly string[]) => store.countTeams(q, projectIds),

    async list(caller: Caller, filter: { projectId: string; teamId?: string }, page: Page) {
      const { project, standing, authority } = await deps.projectAccess.find(caller, filter.projectId);
      return store.listTeamProjects(db, { projectId: project.id, teamId: filter.teamId, visible: teamGrantFilter(standing, authority) }, page);
    },

    async create(caller: Caller, input: TeamProjectInput & { access: ProjectAccessLevel; projectId: string; teamId: string }) {
      const { project, standing, grants } = await deps.projectAccess.find(caller, input.projectId, 'manage-team-access');
      const team = await deps.teams.findInOrganization(input.teamId, project.organizationId);
      if (!team) throw errors.notFound();
      const grant = effective(input);
      authorize({ standing, organizationAccess: [], projects: [{ projectId: project.id, to: grant, held: grants }] }, 'give-access');
      const teamProject: TeamProject = { id: newId('tprj'), teamId: team.id, projectId: project.id, createdAt: now(), ...grant };
      await guarded(store.insertTeamProject(db, teamProject), {
        unique: () => errors.invalidAttribute('/data/relationships/team/data/id', 'Team already has access to this project'),
        // The team or the project was deleted a moment ago.
        foreignKey: () => errors.notFound(),
      });
      return teamProject;
    },

    show: async (caller: Caller, id: string) => (await find(caller, id)).grant,

    async update(caller: Caller, id: string, input: TeamProjectInput): Promise<TeamProject> {
      const found = await find(caller, id);
      authorize(found, 'manage-team-access');
      const grant = effective(input, found.grant);
      const gift = { projectId: found.project.id, to: grant, from: found.grant, held: found.grants };
      authorize({ standing: found.standing, organizationAccess: [], projects: [gift] }, 'give-access');
      // Deleted since we read it: answer as if it had never been there.
      if ((await store.updateTeamProject(db, id, grant)) === 0) throw errors.notFound();
      return { ...found.grant, ...grant };
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      authorize(await find(caller, id), 'manage-team-access');
      await store.deleteTeamProject(db, id);
    },
  };
}

export type TeamProjectsService = ReturnType<typeof createTeamProjectsService>;

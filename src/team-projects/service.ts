import type { Database, Queryable } from '../db/index.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/index.ts';
import type { Caller } from '../auth/caller.ts';
import { projectGrant, type CustomAccess, type ProjectAccessLevel, type ProjectAuthority, type ProjectGrant } from '../auth/permissions.ts';
import { errors } from '../jsonapi/errors.ts';
import { hasPrefix, newId } from '../ids.ts';
import { now } from '../time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { ProjectGrantLoader, ProjectLookup } from '../projects/service.ts';
import type { TeamsService } from '../teams/service.ts';
import * as store from './store.ts';
import type { TeamProject } from './store.ts';

export type { TeamProject };

/** The loader behind every caller's authority over projects (one query per call). */
export function createProjectGrantLoader(): ProjectGrantLoader {
  return (q, teamIds, projectIds) => store.grantsOf(q, teamIds, projectIds);
}

export interface TeamProjectInput {
  access?: ProjectAccessLevel;
  projectAccess?: Record<string, unknown>;
  workspaceAccess?: Record<string, unknown>;
}

/** Custom sub-objects only make sense with `access: custom`; elsewhere the level decides. */
function effective(input: TeamProjectInput, current?: ProjectGrant): ProjectGrant {
  const access = input.access ?? current?.access ?? 'read';
  const custom: CustomAccess = {
    project: input.projectAccess as CustomAccess['project'],
    workspace: input.workspaceAccess as CustomAccess['workspace'],
  };
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
  return projectGrant(access, custom, current?.access === 'custom' ? current : undefined);
}


export function createTeamProjectsService(deps: { database: Database; projects: ProjectLookup; teams: TeamsService }) {
  const db = deps.database.db;

  /**
   * Anyone who may read the project sees its grants to their own teams; those who may read the
   * project's teams (admins, `manage-projects`, `manage-teams`) see all of them.
   */
  function seesGrant(authority: ProjectAuthority, teamIds: readonly string[], grant: TeamProject) {
    return authority.readTeams || teamIds.includes(grant.teamId);
  }

  async function visible(caller: Caller, id: string) {
    const teamProject = hasPrefix(id, 'tprj') ? await store.findTeamProject(db, id) : undefined;
    if (!teamProject) throw errors.notFound();
    const { authority, standing } = await deps.projects.visible(caller, teamProject.projectId);
    if (!seesGrant(authority, standing.teamIds, teamProject)) throw errors.notFound();
    return { teamProject, authority };
  }

  const forbidden = () => errors.forbidden("You are not allowed to manage this project's team access");

  return {
    countByProject: (q: Queryable, projectIds: readonly string[]) => store.countTeams(q, projectIds),

    async list(caller: Caller, filter: { projectId: string; teamId?: string }, page: Page) {
      const { project, authority, standing } = await deps.projects.visible(caller, filter.projectId);
      return store.listTeamProjects(
        db,
        { projectId: project.id, teamId: filter.teamId, visibleTeamIds: authority.readTeams ? null : standing.teamIds },
        page,
      );
    },

    async create(caller: Caller, input: TeamProjectInput & { access: ProjectAccessLevel; projectId: string; teamId: string }) {
      const { project, authority } = await deps.projects.visible(caller, input.projectId);
      if (!authority.manageTeams) throw forbidden();
      const team = await deps.teams.findInOrganization(input.teamId, project.organizationId);
      if (!team) throw errors.notFound();
      const teamProject: TeamProject = { id: newId('tprj'), teamId: team.id, projectId: project.id, createdAt: now(), ...effective(input) };
      try {
        await store.insertTeamProject(db, teamProject);
      } catch (e) {
        if (isUniqueViolation(e)) {
          throw errors.invalidAttribute('/data/relationships/team/data/id', 'Team already has access to this project');
        }
        // The team or the project was deleted a moment ago.
        if (isForeignKeyViolation(e)) throw errors.notFound();
        throw e;
      }
      return teamProject;
    },

    show: async (caller: Caller, id: string) => (await visible(caller, id)).teamProject,

    async update(caller: Caller, id: string, input: TeamProjectInput): Promise<TeamProject> {
      const { teamProject, authority } = await visible(caller, id);
      if (!authority.manageTeams) throw forbidden();
      const grant = effective(input, teamProject);
      // Deleted since we read it: answer as if it had never been there.
      if ((await store.updateTeamProject(db, id, grant)) === 0) throw errors.notFound();
      return { ...teamProject, ...grant };
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { authority } = await visible(caller, id);
      if (!authority.manageTeams) throw forbidden();
      await store.deleteTeamProject(db, id);
    },
  };
}

export type TeamProjectsService = ReturnType<typeof createTeamProjectsService>;

import type { Caller } from '../auth/caller.ts';
import type { Standing } from '../auth/organization.ts';
import { projectPermissions, type ProjectPermissions } from '../auth/permission-sets.ts';
import { projectFilter, type ProjectAuthority } from '../auth/project-scope.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { TeamProjectsService } from '../team-projects/service.ts';
import { now } from '../time.ts';
import { AutoDestroyDuration, checkAttributes, Description, ProjectName } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { ProjectAccess } from './access.ts';
import * as store from './store.ts';
import type { Project, ProjectSort } from './store.ts';

export type { Project, ProjectSort };

export interface ProjectInput {
  name?: string;
  description?: string | null;
  autoDestroyActivityDuration?: string | null;
}

const validate = (input: ProjectInput) =>
  checkAttributes({
    name: [ProjectName, input.name],
    description: [Description(256), input.description],
    'auto-destroy-activity-duration': [AutoDestroyDuration, input.autoDestroyActivityDuration],
  });

export interface ProjectView {
  project: Project;
  organizationName: string;
  permissions: ProjectPermissions;
  workspaceCount: number;
  teamCount: number;
}

export interface ProjectListQuery {
  names?: string[];
  search?: string;
  canCreateWorkspace: boolean;
  canUpdate: boolean;
  sort: ProjectSort;
}

export function createProjectsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  organizations: OrganizationsService;
  workspaces: WorkspacesService;
  teamProjects: TeamProjectsService;
}) {
  const { database, projectAccess } = deps;
  const db = database.db;

  /**
   * Views of a page of projects: three queries (authorities, workspace and team counts), two
   * when the caller's authority is already known (a single project found through the lookup).
   */
  async function views(standing: Standing, projects: readonly Project[], known?: Map<string, ProjectAuthority>): Promise<ProjectView[]> {
    const ids = projects.map((p) => p.id);
    const [authority, workspaces, teams] = await Promise.all([
      known ?? projectAccess.authorities(db, standing, projects),
      deps.workspaces.countByProject(db, ids),
      deps.teamProjects.countByProject(db, ids),
    ]);
    return projects.map((project) => ({
      project,
      organizationName: standing.organizationName,
      permissions: projectPermissions({ standing, authority: authority.get(project.id)! }, project),
      workspaceCount: workspaces.get(project.id) ?? 0,
      teamCount: teams.get(project.id) ?? 0,
    }));
  }

  async function viewOf(standing: Standing, id: string): Promise<ProjectView> {
    const project = await store.findProjectById(db, id);
    if (!project) throw errors.notFound();
    return (await views(standing, [project]))[0]!;
  }

  // Every organization is born with one project, `Default Project`.
  deps.organizations.onCreated((q, org) => store.insertDefaultProject(q, { id: newId('prj'), organizationId: org.id, createdAt: now() }));

  return {
    async create(caller: Caller, organizationName: string, input: ProjectInput & { name: string }): Promise<ProjectView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'create-project');
      validate(input);
      const project: Project = {
        id: newId('prj'),
        organizationId: org.id,
        name: input.name,
        description: input.description ?? null,
        autoDestroyActivityDuration: input.autoDestroyActivityDuration ?? null,
        isDefault: false,
        createdAt: now(),
      };
      await guarded(store.insertProject(db, project), { unique: () => errors.taken('name') });
      return (await views(standing, [project]))[0]!;
    },

    /** One statement once the caller's token, standing and grants are cached (auth/, db/changes.ts). */
    async show(caller: Caller, id: string): Promise<ProjectView> {
      const found = hasPrefix(id, 'prj') ? await store.findProjectWithCounts(db, id) : undefined;
      const { project, standing, authority } = await projectAccess.authorized(caller, found?.project);
      const { workspaceCount, teamCount } = found!;
      const permissions = projectPermissions({ standing, authority }, project);
      return { project, organizationName: standing.organizationName, permissions, workspaceCount, teamCount };
    },

    async list(caller: Caller, organizationName: string, query: ProjectListQuery, page: Page) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const required = [];
      if (query.canCreateWorkspace) required.push(projectFilter(standing, 'createWorkspace'));
      if (query.canUpdate) required.push(projectFilter(standing, 'update'));
      const { items, total, matching } = await store.listProjects(
        db,
        { organizationId: org.id, visible: projectFilter(standing, 'read'), names: query.names, search: query.search, required, sort: query.sort },
        page,
      );
      return { items: await views(standing, items), total, matching };
    },

    /** The default project may be renamed like any other. */
    async update(caller: Caller, id: string, input: ProjectInput): Promise<ProjectView> {
      const { project, standing } = await projectAccess.find(caller, id, 'update-project');
      validate(input);
      await guarded(store.updateProject(db, project.id, input), { unique: () => errors.taken('name') });
      return viewOf(standing, project.id);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { project } = await projectAccess.find(caller, id, 'destroy-project');
      if (project.isDefault) throw errors.conflict("The organization's default project cannot be deleted");
      const holdsWorkspaces = () => errors.conflict('The project still contains workspaces; move or delete them first');
      await guarded(
        database.transaction(async (trx) => {
          // Waits for moves and creates into the project that are under way, then sees their rows.
          const locked = await store.findProjectById(trx, project.id, 'update');
          if (!locked) throw errors.notFound();
          const count = (await deps.workspaces.countByProject(trx, [project.id])).get(project.id) ?? 0;
          if (count > 0) throw holdsWorkspaces();
          await store.deleteProject(trx, project.id);
        }),
        // The schema's last word: a workspace arrived after all (SQLite has no row locks).
        { foreignKey: holdsWorkspaces },
      );
    },

    /** `POST /projects/:id/relationships/workspaces`; the workspaces domain owns the rows. */
    moveWorkspaces: (caller: Caller, projectId: string, workspaceIds: readonly string[]) => deps.workspaces.moveInto(caller, projectId, workspaceIds),
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

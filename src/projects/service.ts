import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
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
import type { ExecutionDefaults } from '../organizations/store.ts';
import type { TeamProjectsService } from '../team-projects/service.ts';
import { hasChange, type EffectiveBinding, type TagChange, type TagMatch, type TagsService } from '../tags/service.ts';
import { now } from '../time.ts';
import { AutoDestroyDuration, checkAttributes, Description, ProjectName } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { ProjectAccess } from './access.ts';
import * as store from './store.ts';
import type { CountedProject, Project, ProjectSort } from './store.ts';

export type { Project, ProjectSort };

export interface ProjectInput {
  name?: string;
  description?: string | null;
  autoDestroyActivityDuration?: string | null;
  /** `relationships.tag-bindings` (the tags domain applies it). */
  tags?: TagChange;
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
  /** Projects have no execution mode of their own yet: their workspaces follow the organization's. */
  execution: ExecutionDefaults;
  /** Its tag bindings, when the request includes them. */
  effectiveTags?: EffectiveBinding[];
}

export interface ProjectListQuery {
  names?: string[];
  search?: string;
  canCreateWorkspace: boolean;
  canUpdate: boolean;
  /** `filter[tagged]`: every one must be bound. */
  tagged?: TagMatch[];
  sort: ProjectSort;
}

/** What a project shows of its organization's execution defaults (its workspaces follow them). */
function executionOf(org: ExecutionDefaults): ExecutionDefaults {
  return { defaultExecutionMode: org.defaultExecutionMode, defaultAgentPoolId: org.defaultAgentPoolId };
}

export function createProjectsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  projectAccess: ProjectAccess;
  organizations: OrganizationsService;
  workspaces: WorkspacesService;
  teamProjects: TeamProjectsService;
  tags: TagsService;
}) {
  const { database, projectAccess } = deps;
  const db = database.db;

  /**
   * A show's `permissions`, kept per authority object. The authority a show gets is the one its
   * caller's rights entry holds (projects/access.ts), kept per principal and project until a
   * write replaces the principal; the permissions follow from it, the standing beside it and
   * whether the project is the default one, which never changes. So one object serves every show
   * of that project by that principal, and the rules are not walked per request.
   */
  const permissionsByAuthority = new WeakMap<ProjectAuthority, ProjectPermissions>();
  function shownPermissions(standing: Standing, authority: ProjectAuthority, project: Project): ProjectPermissions {
    let permissions = permissionsByAuthority.get(authority);
    if (!permissions) permissionsByAuthority.set(authority, (permissions = Object.freeze(projectPermissions({ standing, authority }, project))));
    return permissions;
  }

  /**
   * Views of projects read with their counts: the caller's authorities (a grants query, none when
   * grants cannot matter or the page's grants are cached) and the tags when asked for.
   */
  async function views(standing: Standing, org: ExecutionDefaults, found: readonly CountedProject[], withTags = false): Promise<ProjectView[]> {
    const projects = found.map((c) => c.project);
    const [authority, tags] = await Promise.all([
      projectAccess.authorities(db, standing, projects),
      withTags
        ? deps.tags.projectBindings(
            db,
            projects.map((p) => p.id),
          )
        : undefined,
    ]);
    const execution = executionOf(org);
    return found.map(({ project, workspaceCount, teamCount }) => ({
      project,
      organizationName: standing.organizationName,
      permissions: shownPermissions(standing, authority.get(project.id)!, project),
      workspaceCount,
      execution,
      teamCount,
      ...(tags ? { effectiveTags: tags.get(project.id) ?? [] } : {}),
    }));
  }

  async function viewOf(standing: Standing, org: ExecutionDefaults, id: string): Promise<ProjectView> {
    const found = await store.findProjectWithCounts(db, id);
    if (!found) throw errors.notFound();
    return (await views(standing, org, [found]))[0]!;
  }

  // Every organization is born with one project, `Default Project`.
  deps.organizations.onCreated((q, org) => store.insertDefaultProject(q, { id: newId('prj'), organizationId: org.id, createdAt: now() }));

  return {
    async create(caller: Caller, organizationName: string, input: ProjectInput & { name: string }): Promise<ProjectView> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName, 'create-project');
      validate(input);
      await deps.tags.checkNew(input.tags, org.id);
      const project: Project = {
        id: newId('prj'),
        organizationId: org.id,
        name: input.name,
        description: input.description ?? null,
        autoDestroyActivityDuration: input.autoDestroyActivityDuration ?? null,
        isDefault: false,
        createdAt: now(),
      };
      await guarded(
        database.transaction(async (trx) => {
          await store.insertProject(trx, project);
          await deps.tags.apply(trx, 'project', project, input.tags, true);
        }),
        { unique: () => errors.taken('name') },
      );
      // A new project holds no workspaces and no team yet.
      return (await views(standing, org, [{ project, workspaceCount: 0, teamCount: 0 }]))[0]!;
    },

    /** One statement once the caller's token, standing and grants are cached (auth/, db/changes.ts). */
    async show(caller: Caller, id: string, include?: { tags: boolean }): Promise<ProjectView> {
      const found = hasPrefix(id, 'prj') ? await store.findProjectWithCounts(db, id) : undefined;
      const { project, org, standing, authority } = await projectAccess.authorized(caller, found?.project);
      const { workspaceCount, teamCount } = found!;
      const permissions = shownPermissions(standing, authority, project);
      const execution = executionOf(org);
      const effectiveTags = include?.tags ? ((await deps.tags.projectBindings(db, [project.id])).get(project.id) ?? []) : undefined;
      return {
        project,
        organizationName: standing.organizationName,
        permissions,
        workspaceCount,
        teamCount,
        execution,
        ...(effectiveTags ? { effectiveTags } : {}),
      };
    },

    async list(caller: Caller, organizationName: string, query: ProjectListQuery, page: Page, include?: { tags: boolean }) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const required = [];
      if (query.canCreateWorkspace) required.push(projectFilter(standing, 'createWorkspace'));
      if (query.canUpdate) required.push(projectFilter(standing, 'update'));
      if (query.tagged?.length) required.push(deps.tags.projectFilter(query.tagged));
      const { items, total, matching } = await store.listProjects(
        db,
        { organizationId: org.id, visible: projectFilter(standing, 'read'), names: query.names, search: query.search, required, sort: query.sort },
        page,
      );
      return { items: await views(standing, org, items, include?.tags), total, matching };
    },

    /** The default project may be renamed like any other. */
    async update(caller: Caller, id: string, input: ProjectInput): Promise<ProjectView> {
      const changesAttributes = input.name !== undefined || input.description !== undefined || input.autoDestroyActivityDuration !== undefined;
      // Tags alone need only the right to manage them (go-tfe clears them with a body of nothing else).
      const changesTags = hasChange(input.tags);
      const found = await projectAccess.find(caller, id, changesAttributes || !changesTags ? 'update-project' : 'manage-project-tags');
      if (changesTags) authorize(found, 'manage-project-tags');
      const { project, org, standing } = found;
      validate(input);
      await guarded(
        database.transaction(async (trx) => {
          await store.updateProject(trx, project.id, input);
          await deps.tags.apply(trx, 'project', project, input.tags, false);
        }),
        { unique: () => errors.taken('name') },
      );
      return viewOf(standing, org, project.id);
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

import type { Database, Queryable } from '../db/index.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/index.ts';
import type { Caller } from '../auth/caller.ts';
import {
  can,
  projectAuthority,
  projectScope,
  type ProjectAuthority,
  type ProjectGrant,
  type Standing,
} from '../auth/permissions.ts';
import { errors, type Problem } from '../jsonapi/errors.ts';
import { hasPrefix, newId } from '../ids.ts';
import { now } from '../time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { Organization, OrganizationLookup } from '../organizations/service.ts';
import type { TeamProjectsService } from '../team-projects/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { Project, ProjectSort, RowLock } from './store.ts';

export type { Project, ProjectSort };

/** The caller's teams' grants on some projects, by project id; one query. */
export type ProjectGrantLoader = (q: Queryable, teamIds: readonly string[], projectIds: readonly string[]) => Promise<Map<string, ProjectGrant[]>>;

const PROJECT_NAME = /^[A-Za-z0-9 _-]+$/;
const AUTO_DESTROY_DURATION = /^(\d{1,4})[dh]$/;

/** `14d`, `36h`: one to four digits, greater than zero, then `d` or `h`. Shared with workspaces. */
export function autoDestroyDurationProblem(value: string | null | undefined): Problem | null {
  if (value === undefined || value === null) return null;
  const m = AUTO_DESTROY_DURATION.exec(value);
  if (m && Number(m[1]) > 0) return null;
  return {
    pointer: '/data/attributes/auto-destroy-activity-duration',
    detail: "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')",
  };
}

export interface ProjectInput {
  name?: string;
  description?: string | null;
  autoDestroyActivityDuration?: string | null;
}

function validate(input: ProjectInput): void {
  const problems: Problem[] = [];
  const name = input.name;
  if (name !== undefined) {
    const pointer = '/data/attributes/name';
    if (name.length < 3) problems.push({ pointer, detail: 'Name is too short (minimum is 3 characters)' });
    else if (name.length > 40) problems.push({ pointer, detail: 'Name is too long (maximum is 40 characters)' });
    else if (!PROJECT_NAME.test(name) || name.trim() !== name) {
      problems.push({ pointer, detail: 'Name may only contain letters, numbers, spaces, "-" and "_", and may not begin or end with a space' });
    }
  }
  if (input.description !== undefined && input.description !== null && input.description.length > 256) {
    problems.push({ pointer: '/data/attributes/description', detail: 'Description is too long (maximum is 256 characters)' });
  }
  const duration = autoDestroyDurationProblem(input.autoDestroyActivityDuration);
  if (duration) problems.push(duration);
  if (problems.length) throw errors.invalid(problems);
}

const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');

export interface VisibleProject {
  project: Project;
  org: Organization;
  standing: Standing;
  authority: ProjectAuthority;
}

/**
 * Finding projects on behalf of a caller, and what the caller may do with them. The workspaces
 * and team access domains start here, as every domain starts at the organization lookup.
 */
export function createProjectLookup(deps: { database: Database; organizations: OrganizationLookup; grants: ProjectGrantLoader }) {
  const db = deps.database.db;

  /** One grants query for all the projects, whatever their number; none when grants cannot matter. */
  async function authorities(q: Queryable, standing: Standing, projects: readonly Project[]): Promise<Map<string, ProjectAuthority>> {
    // Whoever may manage every project holds everything already: no grant can add to it.
    const grants = can(standing, 'manage-all-projects') ? new Map<string, ProjectGrant[]>() : await deps.grants(q, standing.teamIds, projects.map((p) => p.id));
    return new Map(projects.map((p) => [p.id, projectAuthority(standing, p, grants.get(p.id) ?? [])]));
  }

  /** A project the caller may read; 404 for everything else, so ids cannot be probed. */
  async function visible(caller: Caller, id: string): Promise<VisibleProject> {
    const project = hasPrefix(id, 'prj') ? await store.findProjectById(db, id) : undefined;
    if (!project) throw errors.notFound();
    const { org, standing } = await deps.organizations.resolveById(caller, project.organizationId);
    const authority = (await authorities(db, standing, [project])).get(project.id)!;
    if (!authority.read) throw errors.notFound();
    return { project, org, standing, authority };
  }

  return {
    visible,
    authorities,
    find: (q: Queryable, id: string, lock?: RowLock) => (hasPrefix(id, 'prj') ? store.findProjectById(q, id, lock) : Promise.resolve(undefined)),
    findMany: (q: Queryable, ids: readonly string[]) => store.findProjectsByIds(q, ids),
    findDefault: (q: Queryable, organizationId: string) => store.findDefaultProject(q, organizationId),
  };
}

export type ProjectLookup = ReturnType<typeof createProjectLookup>;

export interface ProjectView {
  project: Project;
  organizationName: string;
  authority: ProjectAuthority;
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
  organizations: OrganizationLookup;
  lookup: ProjectLookup;
  workspaces: WorkspacesService;
  teamProjects: TeamProjectsService;
}) {
  const { database, lookup } = deps;
  const db = database.db;

  /**
   * Views of a page of projects: three queries (authorities, workspace and team counts), two
   * when the caller's authority is already known (a single project found through the lookup).
   */
  async function views(standing: Standing, projects: readonly Project[], known?: Map<string, ProjectAuthority>): Promise<ProjectView[]> {
    const ids = projects.map((p) => p.id);
    const [authority, workspaces, teams] = await Promise.all([
      known ?? lookup.authorities(db, standing, projects),
      deps.workspaces.countByProject(db, ids),
      deps.teamProjects.countByProject(db, ids),
    ]);
    return projects.map((project) => ({
      project,
      organizationName: standing.organizationName,
      authority: authority.get(project.id)!,
      workspaceCount: workspaces.get(project.id) ?? 0,
      teamCount: teams.get(project.id) ?? 0,
    }));
  }

  async function viewOf(standing: Standing, id: string): Promise<ProjectView> {
    const project = await store.findProjectById(db, id);
    if (!project) throw errors.notFound();
    return (await views(standing, [project]))[0]!;
  }

  return {
    /** Every organization is born with one project, `Default Project` (part of its creation). */
    async createDefaultProject(q: Queryable, organizationId: string): Promise<string> {
      const id = newId('prj');
      await store.insertDefaultProject(q, { id, organizationId, createdAt: now() });
      return id;
    },

    defaultProjectIds: (organizationIds: readonly string[]) => store.defaultProjectIds(database.db, organizationIds),

    /** For domains that attach projects (policy sets): which ids are this organization's projects. */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = database.db) =>
      store.projectIdsInOrganization(q, organizationId, ids),

    async create(caller: Caller, organizationName: string, input: ProjectInput & { name: string }): Promise<ProjectView> {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName, 'create-project');
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
      try {
        await store.insertProject(db, project);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      return (await views(standing, [project]))[0]!;
    },

    async show(caller: Caller, id: string): Promise<ProjectView> {
      const { project, standing, authority } = await lookup.visible(caller, id);
      return (await views(standing, [project], new Map([[project.id, authority]])))[0]!;
    },

    async list(caller: Caller, organizationName: string, query: ProjectListQuery, page: Page) {
      const { org, standing } = await deps.organizations.resolve(caller, organizationName);
      const required = [];
      if (query.canCreateWorkspace) required.push(projectScope(standing, 'create-workspace'));
      if (query.canUpdate) required.push(projectScope(standing, 'update'));
      const { items, total, matching } = await store.listProjects(
        db,
        { organizationId: org.id, visible: projectScope(standing, 'read'), names: query.names, search: query.search, required, sort: query.sort },
        page,
      );
      return { items: await views(standing, items), total, matching };
    },

    /** The default project may be renamed like any other. */
    async update(caller: Caller, id: string, input: ProjectInput): Promise<ProjectView> {
      const { project, standing, authority } = await lookup.visible(caller, id);
      if (!authority.update) throw errors.forbidden('You are not allowed to update this project');
      validate(input);
      try {
        await store.updateProject(db, project.id, input);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      return viewOf(standing, project.id);
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { project, authority } = await lookup.visible(caller, id);
      if (!authority.destroy) throw errors.forbidden('You are not allowed to delete this project');
      if (project.isDefault) throw errors.conflict("The organization's default project cannot be deleted");
      const holdsWorkspaces = () => errors.conflict('The project still contains workspaces; move or delete them first');
      try {
        await database.transaction(async (trx) => {
          // Waits for moves and creates into the project that are under way, then sees their rows.
          const locked = await store.findProjectById(trx, project.id, 'update');
          if (!locked) throw errors.notFound();
          const count = (await deps.workspaces.countByProject(trx, [project.id])).get(project.id) ?? 0;
          if (count > 0) throw holdsWorkspaces();
          await store.deleteProject(trx, project.id);
        });
      } catch (e) {
        // The schema's last word: a workspace arrived after all (SQLite has no row locks).
        if (isForeignKeyViolation(e)) throw holdsWorkspaces();
        throw e;
      }
    },

    /** `POST /projects/:id/relationships/workspaces`; the workspaces domain owns the rows. */
    moveWorkspaces: (caller: Caller, projectId: string, workspaceIds: readonly string[]) =>
      deps.workspaces.moveInto(caller, projectId, workspaceIds),
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

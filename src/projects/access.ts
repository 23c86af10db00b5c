// Finding projects on behalf of a caller, and what the caller may do with them; and the row-level
// operations other domains need on projects (workspaces live in them, policy sets attach to
// them). The projects service builds on this, and so do the domains that must not depend on it.
import type { Caller } from '../auth/caller.ts';
import { authorize, type ActionOn } from '../auth/authorize.ts';
import { PrincipalMemo } from '../auth/principal-memo.ts';
import type { Standing } from '../auth/organization.ts';
import { needsGrants, projectAuthority, type ProjectAuthority, type ProjectGrantLoader } from '../auth/project-scope.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { ProjectGrant } from '../grants.ts';
import { hasPrefix } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { Organization } from '../organizations/store.ts';
import * as store from './store.ts';
import type { Project, RowLock } from './store.ts';

export type { Project };
export type ProjectAction = ActionOn<'project'>;

export interface FoundProject {
  project: Project;
  org: Organization;
  standing: Standing;
  authority: ProjectAuthority;
  /** The grants the caller's own teams hold on the project (none loaded when they cannot matter). */
  grants: readonly ProjectGrant[];
}

type ProjectRights = Omit<FoundProject, 'project'>;

export function createProjectAccess(deps: { database: Database; organizationLookup: OrganizationLookup; grants: ProjectGrantLoader }) {
  const db = deps.database.db;
  /** Rights by project id, kept per principal (auth/principal-memo.ts says for how long). */
  const rightsOf = new PrincipalMemo<ProjectRights>(1_000);

  /** The grants the caller's teams hold on each project: one query, none when grants cannot matter. */
  async function heldGrants(q: Queryable, standing: Standing, projectIds: readonly string[]): Promise<Map<string, ProjectGrant[]>> {
    return needsGrants(standing) && projectIds.length ? deps.grants(q, standing.teamIds, projectIds) : new Map();
  }

  /**
   * An authority depends on the standing, whether the project is the default one and the grants
   * held on it, nothing else: one object per such triple, so that a list page read again by the
   * same caller (cached standing and grants) rebuilds none, and the permissions kept per
   * authority object (projects/service.ts) are found again.
   */
  const authorityOf = new WeakMap<
    Standing,
    { default?: ProjectAuthority; other?: ProjectAuthority; granted: WeakMap<readonly ProjectGrant[], ProjectAuthority> }
  >();
  function sharedAuthority(standing: Standing, project: Project, grants: readonly ProjectGrant[] | undefined): ProjectAuthority {
    let known = authorityOf.get(standing);
    if (!known) authorityOf.set(standing, (known = { granted: new WeakMap() }));
    if (grants?.length) {
      let a = known.granted.get(grants);
      if (!a) known.granted.set(grants, (a = Object.freeze(projectAuthority(standing, project, grants))));
      // A grant list belongs to one project, but the default project's authority differs.
      return project.isDefault ? projectAuthority(standing, project, grants) : a;
    }
    const slot = project.isDefault ? 'default' : 'other';
    return (known[slot] ??= Object.freeze(projectAuthority(standing, project, [])));
  }

  /** The caller's authority over each project: one grants query whatever their number (none when grants cannot matter, or they are cached). */
  async function authorities(q: Queryable, standing: Standing, projects: readonly Project[]): Promise<Map<string, ProjectAuthority>> {
    const grants = await heldGrants(
      q,
      standing,
      projects.map((p) => p.id),
    );
    return new Map(projects.map((p) => [p.id, sharedAuthority(standing, p, grants.get(p.id))]));
  }

  /** A project the caller may perform `action` on; 404 when it may not see it, 403 or 404 (as auth/ says) otherwise. */
  async function find(caller: Caller, id: string, action: ProjectAction = 'read-project'): Promise<FoundProject> {
    const project = hasPrefix(id, 'prj') ? await store.findProjectById(db, id) : undefined;
    return authorized(caller, project, action);
  }

  /** The caller's standing, grants and authority for a project (404 when it is no member of the organization). */
  async function rights(caller: Caller, project: Project): Promise<ProjectRights> {
    const { org, standing } = await deps.organizationLookup.findById(caller, project.organizationId);
    const grants = Object.freeze((await heldGrants(db, standing, [project.id])).get(project.id) ?? []);
    return Object.freeze({ org, standing, grants, authority: Object.freeze(projectAuthority(standing, project, grants)) });
  }

  /** `find`, for a project row already read (undefined: none): the caller's standing, grants and authority, checked. */
  async function authorized(caller: Caller, project: Project | undefined, action: ProjectAction = 'read-project'): Promise<FoundProject> {
    if (!project) throw errors.notFound();
    // What decides them (the organization, the caller's teams and their grants, whether the
    // project is the default one) outlives the principal only through a write that replaces it.
    const known = rightsOf.get(caller.principal, project.id);
    const found = { project, ...(await (known ?? rightsOf.set(caller.principal, project.id, rights(caller, project)))) };
    if (known) caller.asked(found.org);
    authorize(found, action);
    return found;
  }

  return {
    find,
    authorized,
    authorities,
    heldGrants,
    /** The project row (locked until the transaction ends, on PostgreSQL, when `lock` is given). */
    row: (q: Queryable, id: string, lock?: RowLock) => (hasPrefix(id, 'prj') ? store.findProjectById(q, id, lock) : Promise.resolve(undefined)),
    rows: (q: Queryable, ids: readonly string[]) => store.findProjectsByIds(q, ids),
    /** A project from the columns of its row, read by another domain's query (a workspace list). */
    read: (columns: Record<string, unknown>): Project => store.readProject(columns as unknown as Parameters<typeof store.readProject>[0]),
    defaultProject: (q: Queryable, organizationId: string) => store.findDefaultProject(q, organizationId),
    /** organization id → its default project's id (one query). */
    defaultProjectIds: (organizationIds: readonly string[]) => store.defaultProjectIds(db, organizationIds),
    /** Which of `ids` are projects of the organization (one query). */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = db) => store.projectIdsInOrganization(q, organizationId, ids),
  };
}

export type ProjectAccess = ReturnType<typeof createProjectAccess>;

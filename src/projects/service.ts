import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../jsonapi/ids.ts';
import { now } from '../jsonapi/time.ts';
import * as store from './store.ts';

export function createProjectsService({ database }: { database: Database }) {
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
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, flag, includes, sortOf } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import {
  CreateProjectBody,
  ListProjectsQuery,
  MoveWorkspacesBody,
  PROJECT_INCLUDES,
  ProjectParams,
  ShowProjectQuery,
  UpdateProjectBody,
} from './schemas.ts';
import { tagChangeOf, taggedFilter } from '../tags/schemas.ts';
import { includedBindings } from '../tags/serialize.ts';
import { projectResource } from './serialize.ts';
import type { ProjectsService } from './service.ts';

export async function projectsRoutes(app: Api, { projects }: { projects: ProjectsService }): Promise<void> {
  app.post(
    '/organizations/:organization_name/projects',
    { schema: { params: OrganizationParams, body: CreateProjectBody } },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const view = await projects.create(request.caller, request.params.organization_name, {
        name: a.name,
        description: a.description,
        autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
        tags: tagChangeOf(request.body.data),
      });
      return reply.code(201).send({ data: projectResource(view) });
    },
  );

  app.get(
    '/organizations/:organization_name/projects',
    { schema: { params: OrganizationParams, querystring: ListProjectsQuery } },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const withTags = includes(query.include, PROJECT_INCLUDES).includes('effective_tag_bindings');
      const filter = {
        names: commaList(query['filter[names]']),
        search: query.q,
        canCreateWorkspace: flag(query['filter[permissions][create-workspace]']),
        canUpdate: flag(query['filter[permissions][update]']),
        tagged: taggedFilter(query),
        sort: sortOf(query.sort) ?? null,
      };
      const { items, total, matching } = await projects.list(request.caller, request.params.organization_name, filter, page, { tags: withTags });
      const { links, meta } = envelope(absoluteUrl(request, app.config.baseUrl), page, matching);
      return {
        data: items.map(projectResource),
        ...(withTags ? { included: includedBindings(items.map((p) => p.effectiveTags)) } : {}),
        links,
        meta: { ...meta, 'status-counts': { total, matching } },
      };
    },
  );

  app.get('/projects/:project_id', { schema: { params: ProjectParams, querystring: ShowProjectQuery } }, async (request) => {
    const withTags = includes(request.query.include, PROJECT_INCLUDES).includes('effective_tag_bindings');
    const view = await projects.show(request.caller, request.params.project_id, { tags: withTags });
    return { data: projectResource(view), ...(withTags ? { included: includedBindings([view.effectiveTags]) } : {}) };
  });

  app.patch('/projects/:project_id', { schema: { params: ProjectParams, body: UpdateProjectBody } }, async (request) => {
    const a = request.body.data.attributes ?? {};
    const view = await projects.update(request.caller, request.params.project_id, {
      name: a.name,
      description: a.description,
      autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
      tags: tagChangeOf(request.body.data),
    });
    return { data: projectResource(view) };
  });

  app.delete('/projects/:project_id', { schema: { params: ProjectParams } }, async (request, reply) => {
    await projects.destroy(request.caller, request.params.project_id);
    return reply.code(204).send();
  });

  app.post(
    '/projects/:project_id/relationships/workspaces',
    { schema: { params: ProjectParams, body: MoveWorkspacesBody } },
    async (request, reply) => {
      await projects.moveWorkspaces(request.caller, request.params.project_id, request.body.data.map((d) => d.id));
      return reply.code(204).send();
    },
  );
}

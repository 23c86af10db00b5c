import type { Api } from '../app.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, flagParam, includeParam, sortParam, stringParam, type Query } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { CreateProjectBody, MoveWorkspacesBody, ProjectParams, UpdateProjectBody } from './schemas.ts';
import { projectResource } from './serialize.ts';

/** go-tfe asks for tag bindings; Hangar has none to include, so the answer has no `included`. */
const INCLUDES = ['effective_tag_bindings'];

export async function projectsRoutes(app: Api): Promise<void> {
  const { projects } = app.services;

  app.post(
    '/organizations/:organization_name/projects',
    { schema: { params: OrganizationParams, body: CreateProjectBody } },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const view = await projects.create(request.caller, request.params.organization_name, {
        name: a.name,
        description: a.description,
        autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
      });
      return reply.code(201).send({ data: projectResource(view) });
    },
  );

  app.get('/organizations/:organization_name/projects', { schema: { params: OrganizationParams } }, async (request) => {
    const query = request.query as Query;
    const page = parsePage(query);
    includeParam(query, INCLUDES);
    const filter = {
      names: commaList(query, 'filter[names]'),
      search: stringParam(query, 'q'),
      canCreateWorkspace: flagParam(query, 'filter[permissions][create-workspace]'),
      canUpdate: flagParam(query, 'filter[permissions][update]'),
      sort: sortParam(query, ['name'] as const) ?? null,
    };
    const { items, total, matching } = await projects.list(request.caller, request.params.organization_name, filter, page);
    const { links, meta } = envelope(absoluteUrl(request, app.config.baseUrl), page, matching);
    return { data: items.map(projectResource), links, meta: { ...meta, 'status-counts': { total, matching } } };
  });

  app.get('/projects/:project_id', { schema: { params: ProjectParams } }, async (request) => {
    includeParam(request.query as Query, INCLUDES);
    return { data: projectResource(await projects.show(request.caller, request.params.project_id)) };
  });

  app.patch('/projects/:project_id', { schema: { params: ProjectParams, body: UpdateProjectBody } }, async (request) => {
    const a = request.body.data.attributes ?? {};
    const view = await projects.update(request.caller, request.params.project_id, {
      name: a.name,
      description: a.description,
      autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
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

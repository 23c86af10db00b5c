import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, flag, includes, sortOf } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import {
  CreateProjectBody,
  ProjectDocument,
  ProjectListDocument,
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

const tags = ['Projects'];

export async function projectsRoutes(app: Api, { projects }: { projects: ProjectsService }): Promise<void> {
  app.post(
    '/organizations/:organization_name/projects',
    { schema: { summary: 'Create a project', tags, params: OrganizationParams, body: CreateProjectBody, response: responses({ 201: ProjectDocument }) } },
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
    {
      schema: {
        summary: "List an organization's projects",
        description: 'Only the projects the caller can see; `status-counts` counts them all and those matching the filters.',
        tags,
        params: OrganizationParams,
        querystring: ListProjectsQuery,
        response: responses({ 200: ProjectListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const withTags = includes(query.include, PROJECT_INCLUDES).includes('effective_tag_bindings');
      const filter = {
        names: commaList(query['filter[names]'], 'filter[names]'),
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

  app.get(
    '/projects/:project_id',
    { schema: { summary: 'Show a project', tags, params: ProjectParams, querystring: ShowProjectQuery, response: responses({ 200: ProjectDocument }) } },
    async (request) => {
      const withTags = includes(request.query.include, PROJECT_INCLUDES).includes('effective_tag_bindings');
      const view = await projects.show(request.caller, request.params.project_id, { tags: withTags });
      return { data: projectResource(view), ...(withTags ? { included: includedBindings([view.effectiveTags]) } : {}) };
    },
  );

  app.patch(
    '/projects/:project_id',
    { schema: { summary: 'Update a project', tags, params: ProjectParams, body: UpdateProjectBody, response: responses({ 200: ProjectDocument }) } },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const view = await projects.update(request.caller, request.params.project_id, {
        name: a.name,
        description: a.description,
        autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
        tags: tagChangeOf(request.body.data),
      });
      return { data: projectResource(view) };
    },
  );

  app.delete(
    '/projects/:project_id',
    { schema: { summary: 'Delete a project (it must hold no workspaces)', tags, params: ProjectParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await projects.destroy(request.caller, request.params.project_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/projects/:project_id/relationships/workspaces',
    {
      schema: {
        summary: 'Move workspaces into the project',
        description: 'All or nothing: every workspace named must be movable by the caller.',
        tags,
        params: ProjectParams,
        body: MoveWorkspacesBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await projects.moveWorkspaces(
        request.caller,
        request.params.project_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );
}

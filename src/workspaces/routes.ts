import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { sortOf } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import {
  CreateWorkspaceBody,
  ListWorkspacesQuery,
  OrganizationWorkspaceParams,
  UpdateWorkspaceBody,
  WorkspaceDocument,
  WorkspaceListDocument,
  WorkspaceParams,
} from './schemas.ts';
import { workspaceResource } from './serialize.ts';
import type { WorkspaceInput, WorkspaceRef, WorkspacesService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

/** The modelled members of a create or update body, field by field; everything else is ignored. */
function input(body: Static<typeof UpdateWorkspaceBody>): WorkspaceInput {
  const a = body.data.attributes ?? {};
  return {
    name: a.name,
    description: a.description,
    autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
    inheritsProjectAutoDestroy: a['inherits-project-auto-destroy'],
    projectId: body.data.relationships?.project?.data?.id,
  };
}

const tags = ['Workspaces'];

export async function workspacesRoutes(app: Api, { workspaces }: { workspaces: WorkspacesService }): Promise<void> {
  app.post(
    '/organizations/:organization_name/workspaces',
    { schema: { summary: 'Create a workspace (in the default project unless one is given)', tags, params: OrganizationParams, body: CreateWorkspaceBody, response: responses({ 201: WorkspaceDocument }) } },
    async (request, reply) => {
      const view = await workspaces.create(request.caller, request.params.organization_name, {
        ...input(request.body),
        name: request.body.data.attributes.name,
      });
      return reply.code(201).send({ data: workspaceResource(view) });
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces',
    { schema: { summary: "List an organization's workspaces", tags, params: OrganizationParams, querystring: ListWorkspacesQuery, response: responses({ 200: WorkspaceListDocument }) } },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { search: query['search[name]'], projectId: query['filter[project][id]'], descending: sortOf(query.sort)?.descending ?? false };
      const { items, total } = await workspaces.list(request.caller, request.params.organization_name, filter, page);
      return { data: items.map(workspaceResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // go-tfe addresses a workspace both ways: by id, and by organization and name.
  const refOf = (p: Static<typeof WorkspaceParams> | Static<typeof OrganizationWorkspaceParams>): WorkspaceRef =>
    'workspace_id' in p ? { id: p.workspace_id } : { organizationName: p.organization_name, name: p.workspace_name };

  for (const [path, params, by] of [
    ['/workspaces/:workspace_id', WorkspaceParams, 'by id'],
    ['/organizations/:organization_name/workspaces/:workspace_name', OrganizationWorkspaceParams, 'by organization and name'],
  ] as const) {
    app.get(path, { schema: { summary: `Show a workspace, ${by}`, tags, params, response: responses({ 200: WorkspaceDocument }) } }, async (request) => {
      return { data: workspaceResource(await workspaces.show(request.caller, refOf(request.params))) };
    });
    app.patch(path, { schema: { summary: `Update a workspace, ${by}`, tags, params, body: UpdateWorkspaceBody, response: responses({ 200: WorkspaceDocument }) } }, async (request) => {
      return { data: workspaceResource(await workspaces.update(request.caller, refOf(request.params), input(request.body))) };
    });
    app.delete(path, { schema: { summary: `Delete a workspace, ${by}`, tags, params, response: responses({ 204: NoContent }) } }, async (request, reply) => {
      await workspaces.destroy(request.caller, refOf(request.params));
      return reply.code(204).send();
    });
  }
}

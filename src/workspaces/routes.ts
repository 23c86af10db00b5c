import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, sortOf } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { tagChangeOf, taggedFilter } from '../tags/schemas.ts';
import { includedBindings, includesEffectiveTags } from '../tags/serialize.ts';
import {
  CreateWorkspaceBody,
  ListWorkspacesQuery,
  OrganizationWorkspaceParams,
  ShowWorkspaceQuery,
  UpdateWorkspaceBody,
  WorkspaceParams,
} from './schemas.ts';
import { workspaceResource } from './serialize.ts';
import type { WorkspaceInput, WorkspaceRef, WorkspacesService } from './service.ts';

/** The modelled members of a create or update body, field by field; everything else is ignored. */
function input(body: Static<typeof UpdateWorkspaceBody>): WorkspaceInput {
  const a = body.data.attributes ?? {};
  return {
    name: a.name,
    description: a.description,
    autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
    inheritsProjectAutoDestroy: a['inherits-project-auto-destroy'],
    projectId: body.data.relationships?.project?.data?.id,
    tags: tagChangeOf(body.data),
  };
}

export async function workspacesRoutes(app: Api, { workspaces }: { workspaces: WorkspacesService }): Promise<void> {
  app.post(
    '/organizations/:organization_name/workspaces',
    { schema: { params: OrganizationParams, body: CreateWorkspaceBody } },
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
    { schema: { params: OrganizationParams, querystring: ListWorkspacesQuery } },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const effective = includesEffectiveTags(query.include);
      const tags = {
        all: [...taggedFilter(query), ...(commaList(query['search[tags]']) ?? []).map((key) => ({ key }))],
        none: (commaList(query['search[exclude-tags]']) ?? []).map((key) => ({ key })),
        effective,
      };
      const filter = { search: query['search[name]'], projectId: query['filter[project][id]'], descending: sortOf(query.sort)?.descending ?? false, tags };
      const { items, total } = await workspaces.list(request.caller, request.params.organization_name, filter, page);
      return {
        data: items.map(workspaceResource),
        ...(effective ? { included: includedBindings(items.map((v) => v.tags.effective)) } : {}),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
      };
    },
  );

  // go-tfe addresses a workspace both ways: by id, and by organization and name.
  const refOf = (p: Static<typeof WorkspaceParams> | Static<typeof OrganizationWorkspaceParams>): WorkspaceRef =>
    'workspace_id' in p ? { id: p.workspace_id } : { organizationName: p.organization_name, name: p.workspace_name };

  for (const [path, params] of [
    ['/workspaces/:workspace_id', WorkspaceParams],
    ['/organizations/:organization_name/workspaces/:workspace_name', OrganizationWorkspaceParams],
  ] as const) {
    app.get(path, { schema: { params, querystring: ShowWorkspaceQuery } }, async (request) => {
      const effective = includesEffectiveTags(request.query.include);
      const view = await workspaces.show(request.caller, refOf(request.params), { effective });
      return { data: workspaceResource(view), ...(effective ? { included: includedBindings([view.tags.effective]) } : {}) };
    });
    app.patch(path, { schema: { params, body: UpdateWorkspaceBody } }, async (request) => {
      return { data: workspaceResource(await workspaces.update(request.caller, refOf(request.params), input(request.body))) };
    });
    app.delete(path, { schema: { params } }, async (request, reply) => {
      await workspaces.destroy(request.caller, refOf(request.params));
      return reply.code(204).send();
    });
  }
}

import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { ListOrganizationTagsQuery, OrganizationTagListDocument, TagParams, TagRefsBody, WorkspaceRefsBody } from './schemas.ts';
import { organizationTagResource } from './serialize.ts';
import type { OrganizationTagsService } from './service.ts';

const tags = ['Tags'];

export async function organizationTagsRoutes(app: Api, { organizationTags: service }: { organizationTags: OrganizationTagsService }): Promise<void> {
  app.get(
    '/organizations/:organization_name/tags',
    {
      schema: {
        summary: "List an organization's tags, with how many workspaces carry each",
        tags,
        params: OrganizationParams,
        querystring: ListOrganizationTagsQuery,
        response: responses({ 200: OrganizationTagListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const filter = { search: request.query.q, excludeWorkspaceId: request.query['filter[exclude][taggable][id]'] };
      const { items, total } = await service.list(request.caller, request.params.organization_name, filter, page);
      return { data: items.map(organizationTagResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // The path go-tfe's OrganizationTags.Delete uses (so do the TFE documentation pages we could
  // read, v202207-2 and v202309-1). Were the documentation to name
  // /organizations/:name/relationships/tags, go-tfe would still win (docs/api.md, "Tags").
  app.delete(
    '/organizations/:organization_name/tags',
    {
      schema: {
        summary: 'Delete tags from every workspace of an organization (all or nothing)',
        tags,
        params: OrganizationParams,
        body: TagRefsBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await service.delete(
        request.caller,
        request.params.organization_name,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );

  app.post(
    '/tags/:tag_id/relationships/workspaces',
    {
      schema: {
        summary: 'Add a tag to workspaces (all or nothing)',
        tags,
        params: TagParams,
        body: WorkspaceRefsBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await service.addWorkspaces(
        request.caller,
        request.params.tag_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );
}

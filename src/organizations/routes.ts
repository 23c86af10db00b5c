import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { CreateOrganizationBody, ListOrganizationsQuery, OrganizationParams, UpdateOrganizationBody } from './schemas.ts';
import { entitlementSetResource, organizationResource } from './serialize.ts';
import type { OrganizationsService } from './service.ts';

export async function organizationsRoutes(app: Api, { organizations }: { organizations: OrganizationsService }): Promise<void> {
  app.get('/organizations', { schema: { querystring: ListOrganizationsQuery } }, async (request) => {
    const page = parsePage(request.query);
    const { items, total } = await organizations.list(request.caller, page);
    return { data: items.map(organizationResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });

  app.post('/organizations', { schema: { body: CreateOrganizationBody } }, async (request, reply) => {
    const a = request.body.data.attributes;
    const view = await organizations.create(request.caller, { name: a.name, email: a.email });
    return reply.code(201).send({ data: organizationResource(view) });
  });

  app.get('/organizations/:organization_name', { schema: { params: OrganizationParams } }, async (request) => {
    return { data: organizationResource(await organizations.show(request.caller, request.params.organization_name)) };
  });

  app.get('/organizations/:organization_name/entitlement-set', { schema: { params: OrganizationParams } }, async (request) => {
    return { data: entitlementSetResource(await organizations.show(request.caller, request.params.organization_name)) };
  });

  app.patch(
    '/organizations/:organization_name',
    { schema: { params: OrganizationParams, body: UpdateOrganizationBody } },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const view = await organizations.update(request.caller, request.params.organization_name, { name: a.name, email: a.email });
      return { data: organizationResource(view) };
    },
  );

  app.delete('/organizations/:organization_name', { schema: { params: OrganizationParams } }, async (request, reply) => {
    await organizations.destroy(request.caller, request.params.organization_name);
    return reply.code(204).send();
  });
}

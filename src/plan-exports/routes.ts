import type { Api } from '../api.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { Archive, CreatePlanExportBody, PlanExportDocument, PlanExportParams } from './schemas.ts';
import { planExportResource } from './serialize.ts';
import type { PlanExportsService } from './service.ts';

interface Deps {
  planExports: PlanExportsService;
}

export async function planExportsRoutes(app: Api, deps: Deps): Promise<void> {
  const { planExports } = deps;
  const tags = ['Plan exports'];

  app.post(
    '/plan-exports',
    {
      schema: {
        summary: "Export a finished plan's data: sentinel-mock-bundle-v0, Sentinel mocks of it",
        tags,
        body: CreatePlanExportBody,
        response: responses({ 201: PlanExportDocument }),
      },
    },
    async (request, reply) => {
      const { data } = request.body;
      const created = await planExports.create(request.caller, { planId: data.relationships?.plan?.data?.id, dataType: data.attributes?.['data-type'] });
      return reply.code(201).send({ data: planExportResource(created) });
    },
  );

  app.get(
    '/plan-exports/:plan_export_id',
    { schema: { summary: 'Show a plan export', tags, params: PlanExportParams, response: responses({ 200: PlanExportDocument }) } },
    async (request) => ({ data: planExportResource(await planExports.show(request.caller, request.params.plan_export_id)) }),
  );

  // TFE redirects to a short-lived URL of its archivist; the bytes are answered here, with the token.
  app.get(
    '/plan-exports/:plan_export_id/download',
    { schema: { summary: "Download a plan export's data (a .tar.gz)", tags, params: PlanExportParams, response: responses({ 200: Archive }) } },
    async (request, reply) => {
      const id = request.params.plan_export_id;
      const bytes = await planExports.download(request.caller, id);
      return reply.code(200).type('application/x-gzip').header('content-disposition', `attachment; filename="${id}.tar.gz"`).send(bytes);
    },
  );

  app.delete(
    '/plan-exports/:plan_export_id',
    { schema: { summary: 'Delete a plan export', tags, params: PlanExportParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await planExports.destroy(request.caller, request.params.plan_export_id);
      return reply.code(204).send();
    },
  );
}

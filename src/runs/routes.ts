import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { CreateRunBody, ListRunsQuery, RunParams } from './schemas.ts';
import { runResource } from './serialize.ts';
import type { RunsService } from './service.ts';

export async function runsRoutes(app: Api, { runs }: { runs: RunsService }): Promise<void> {
  app.post('/runs', { schema: { body: CreateRunBody } }, async (request, reply) => {
    const { attributes: a = {}, relationships: r } = request.body.data;
    const view = await runs.create(request.caller, {
      workspaceId: r.workspace.data.id,
      configurationVersionId: r['configuration-version']?.data.id,
      message: a.message,
      isDestroy: a['is-destroy'],
      refresh: a.refresh,
      refreshOnly: a['refresh-only'],
      planOnly: a['plan-only'],
      autoApply: a['auto-apply'],
    });
    return reply.code(201).send({ data: runResource(view) });
  });

  app.get('/runs/:run_id', { schema: { params: RunParams } }, async (request) => {
    return { data: runResource(await runs.show(request.caller, request.params.run_id)) };
  });

  app.get('/workspaces/:workspace_id/runs', { schema: { params: WorkspaceParams, querystring: ListRunsQuery } }, async (request) => {
    const page = parsePage(request.query);
    const { items, total } = await runs.list(request.caller, request.params.workspace_id, page);
    return { data: items.map(runResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });

  // 202 with no body, as in TFE. go-tfe sends `{"comment": …}`; Hangar keeps no comments, so
  // the body (any JSON, or none) is read by nobody and needs no schema.
  app.post('/runs/:run_id/actions/discard', { schema: { params: RunParams } }, async (request, reply) => {
    await runs.discard(request.caller, request.params.run_id);
    return reply.code(202).send();
  });

  app.post('/runs/:run_id/actions/cancel', { schema: { params: RunParams } }, async (request, reply) => {
    await runs.cancel(request.caller, request.params.run_id);
    return reply.code(202).send();
  });
}

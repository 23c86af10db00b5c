import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { CreateRunBody, ListRunsQuery, RunDocument, RunListDocument, RunParams } from './schemas.ts';

const tags = ['Runs'];
import { runResource } from './serialize.ts';
import type { RunsService } from './service.ts';

export async function runsRoutes(app: Api, { runs }: { runs: RunsService }): Promise<void> {
  app.post('/runs', { schema: { summary: 'Queue a run (it takes the workspace lock; Hangar executes nothing)', tags, body: CreateRunBody, response: responses({ 201: RunDocument }) } }, async (request, reply) => {
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

  app.get('/runs/:run_id', { schema: { summary: 'Show a run', tags, params: RunParams, response: responses({ 200: RunDocument }) } }, async (request) => {
    return { data: runResource(await runs.show(request.caller, request.params.run_id)) };
  });

  app.get('/workspaces/:workspace_id/runs', { schema: { summary: "List a workspace's runs", tags, params: WorkspaceParams, querystring: ListRunsQuery, response: responses({ 200: RunListDocument }) } }, async (request) => {
    const page = parsePage(request.query);
    const { items, total } = await runs.list(request.caller, request.params.workspace_id, page);
    return { data: items.map(runResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });

  // 202 with no body, as in TFE. go-tfe sends `{"comment": …}`; Hangar keeps no comments, so
  // the body (any JSON, or none) is read by nobody and needs no schema.
  app.post('/runs/:run_id/actions/discard', { schema: { summary: 'Discard a pending run, releasing its lock', tags, params: RunParams, response: responses({ 202: NoContent }) } }, async (request, reply) => {
    await runs.discard(request.caller, request.params.run_id);
    return reply.code(202).send();
  });

  app.post('/runs/:run_id/actions/cancel', { schema: { summary: 'Cancel a pending run, releasing its lock', tags, params: RunParams, response: responses({ 202: NoContent }) } }, async (request, reply) => {
    await runs.cancel(request.caller, request.params.run_id);
    return reply.code(202).send();
  });
}

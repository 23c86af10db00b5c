import type { Api } from '../api.ts';
import type { Caller } from '../auth/caller.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { includes } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import type { WorkspaceViewsService } from '../workspace-views/service.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import { CreateRunTriggerBody, ListRunTriggersQuery, RunTriggerDocument, RunTriggerListDocument, RunTriggerParams, ShowRunTriggerQuery } from './schemas.ts';
import { runTriggerResource } from './serialize.ts';
import type { RunTriggersService, RunTriggerView } from './service.ts';

const tags = ['Run triggers'];
const INCLUDES = ['workspace', 'sourceable'] as const;

interface Deps {
  runTriggers: RunTriggersService;
  workspaces: WorkspacesService;
  workspaceViews: WorkspaceViewsService;
}

export async function runTriggersRoutes(app: Api, deps: Deps): Promise<void> {
  const { runTriggers } = deps;

  /** The workspaces asked for that the caller may read (TFE: includes respect read permissions). */
  async function included(caller: Caller, wanted: readonly string[], views: readonly RunTriggerView[]) {
    const ids = new Set<string>();
    for (const v of views) {
      if (wanted.includes('workspace')) ids.add(v.trigger.workspaceId);
      if (wanted.includes('sourceable')) ids.add(v.trigger.sourceableId);
    }
    if (ids.size === 0) return {};
    const readable = await deps.workspaces.readable(caller, [...ids]);
    if (readable.length === 0) return {};
    return { included: (await deps.workspaceViews.complete(readable)).map(workspaceResource) };
  }

  app.post(
    '/workspaces/:workspace_id/run-triggers',
    {
      schema: {
        summary: 'Create a run trigger: successful applies in the source workspace queue runs in this one',
        tags,
        params: WorkspaceParams,
        body: CreateRunTriggerBody,
        response: responses({ 201: RunTriggerDocument }),
      },
    },
    async (request, reply) => {
      const sourceableId = request.body.data.relationships?.sourceable?.data?.id;
      const created = await runTriggers.create(request.caller, request.params.workspace_id, sourceableId);
      return reply.code(201).send({ data: runTriggerResource(created) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/run-triggers',
    {
      schema: {
        summary: "List a workspace's run triggers (filter[run-trigger][type]: inbound or outbound, required)",
        tags,
        params: WorkspaceParams,
        querystring: ListRunTriggersQuery,
        response: responses({ 200: RunTriggerListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const direction = request.query['filter[run-trigger][type]'];
      const { items, total } = await runTriggers.list(request.caller, request.params.workspace_id, direction, page);
      // As TFE: only inbound lists include related workspaces.
      const wanted = direction === 'inbound' ? includes(request.query.include, INCLUDES) : [];
      return {
        data: items.map(runTriggerResource),
        ...(await included(request.caller, wanted, items)),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
      };
    },
  );

  app.get(
    '/run-triggers/:run_trigger_id',
    {
      schema: {
        summary: 'Show a run trigger',
        tags,
        params: RunTriggerParams,
        querystring: ShowRunTriggerQuery,
        response: responses({ 200: RunTriggerDocument }),
      },
    },
    async (request) => {
      const view = await runTriggers.show(request.caller, request.params.run_trigger_id);
      return { data: runTriggerResource(view), ...(await included(request.caller, includes(request.query.include, INCLUDES), [view])) };
    },
  );

  app.delete(
    '/run-triggers/:run_trigger_id',
    { schema: { summary: 'Delete a run trigger', tags, params: RunTriggerParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await runTriggers.destroy(request.caller, request.params.run_trigger_id);
      return reply.code(204).send();
    },
  );
}

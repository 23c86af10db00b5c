import type { Api } from '../api.ts';
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import { configurationVersionResource } from '../configuration-versions/serialize.ts';
import type { JobsService } from '../jobs/service.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, includes, sortOf } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import type { Caller } from '../auth/caller.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { userResource } from '../users/serialize.ts';
import type { UsersService } from '../users/service.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import { organizationResource } from '../organizations/serialize.ts';
import { policyCheckResource } from '../policy-checks/serialize.ts';
import type { PolicyChecksService } from '../policy-checks/service.ts';
import type { WorkspaceViewsService, WorkspaceView } from '../workspace-views/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import {
  ApplyDocument,
  AdminRunsQuery,
  AdminWorkspaceDocument,
  AdminWorkspaceListDocument,
  AdminWorkspaceParams,
  AdminWorkspacesQuery,
  ApplyParams,
  CommentDocument,
  CommentListDocument,
  CommentParams,
  CreateCommentBody,
  RunEventsQuery,
  Bytes,
  CreateRunBody,
  ListRunsQuery,
  LogParams,
  LogQuery,
  PlanDocument,
  PlanParams,
  QueueQuery,
  RunDocument,
  RunEventDocument,
  RunEventListDocument,
  RunEventParams,
  RunListDocument,
  RunParams,
  ShowRunQuery,
} from './schemas.ts';
import { commentResource, phaseResource, runEventResource, runResource } from './serialize.ts';
import type { ListedRunView, RunEvent, RunListFilter, RunsService, RunView } from './service.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Static } from 'typebox';
import { RUN_STATUSES } from './statuses.ts';

const tags = ['Runs'];
const EVENT_INCLUDES = ['actor', 'comment'] as const;
export const LOG_PREFIX = '/_archivist/v1/logs';
// TFE's includes of a run; those naming what Hangar does not keep (task stages, cost estimates,
// comments) include nothing, as for a run that has none.
const RUN_INCLUDES = [
  'plan',
  'apply',
  'workspace',
  'created_by',
  'confirmed_by',
  'configuration_version',
  'configuration_version.ingress_attributes',
  'task_stages',
  'cost_estimate',
  'policy_checks',
  'run_events',
  'comments',
] as const;
/** The organization queue: runs waiting for, or holding, their workspace. */
const QUEUE_STATUSES = [
  'pending',
  'plan_queued',
  'planning',
  'planned',
  'planned_and_saved',
  'policy_checking',
  'policy_override',
  'policy_checked',
  'confirmed',
  'apply_queued',
  'applying',
];

interface Deps {
  runs: RunsService;
  jobs: JobsService;
  workspaces: WorkspacesService;
  workspaceViews: WorkspaceViewsService;
  users: UsersService;
  configurationVersions: ConfigurationVersionsService;
  policyChecks: PolicyChecksService;
  terraformVersion: () => string;
}

export async function runsRoutes(app: Api, deps: Deps): Promise<void> {
  const { runs, jobs } = deps;
  const context = () => ({ terraformVersion: deps.terraformVersion() });
  const logUrl = (request: Parameters<typeof absoluteUrl>[0], jobId: string) =>
    new URL(`${LOG_PREFIX}/${jobs.logObject(jobId)}`, absoluteUrl(request, app.config.baseUrl)).toString();

  async function included(
    caller: Caller,
    request: Parameters<typeof absoluteUrl>[0],
    wanted: readonly string[],
    views: ReadonlyArray<ListedRunView | RunView>,
  ) {
    const out: unknown[] = [];
    const phases = wanted.includes('plan') || wanted.includes('apply') ? await runs.phasesOf(views) : undefined;
    if (wanted.includes('plan')) out.push(...views.map((v) => phaseResource(phases!.get(v.run.id)!.plan, v, logUrl(request, v.plan.id))));
    if (wanted.includes('apply')) out.push(...views.map((v) => phaseResource(phases!.get(v.run.id)!.apply, v, logUrl(request, v.apply.id))));
    if (wanted.includes('workspace')) {
      const shown = await deps.workspaces.readable(
        caller,
        views.map((v) => v.run.workspaceId),
      );
      out.push(...(await deps.workspaceViews.complete(shown)).map(workspaceResource));
    }
    if (wanted.includes('configuration_version')) {
      for (const id of new Set(views.map((v) => v.run.configurationVersionId)))
        out.push(configurationVersionResource(await deps.configurationVersions.show(caller, id)));
    }
    if (wanted.includes('policy_checks')) out.push(...(await deps.policyChecks.ofRuns(caller, views)).map(policyCheckResource));
    if (wanted.includes('created_by')) {
      const ids = [...new Set(views.flatMap((v) => (v.run.createdByUserId ? [v.run.createdByUserId] : [])))];
      out.push(...(await deps.users.views(caller, ids)).map(userResource));
    }
    return out.length ? { included: out } : {};
  }

  app.post(
    '/runs',
    {
      schema: {
        summary: 'Create a run (queued on its workspace; speculative runs plan at once)',
        tags,
        body: CreateRunBody,
        response: responses({ 201: RunDocument }),
      },
    },
    async (request, reply) => {
      const { attributes: a = {}, relationships: r } = request.body.data;
      const view = await runs.create(request.caller, {
        workspaceId: r.workspace.data.id,
        configurationVersionId: r['configuration-version']?.data?.id ?? null,
        message: a.message,
        isDestroy: a['is-destroy'],
        refresh: a.refresh,
        refreshOnly: a['refresh-only'],
        planOnly: a['plan-only'],
        autoApply: a['auto-apply'],
        allowEmptyApply: a['allow-empty-apply'],
        savePlan: a['save-plan'],
        targetAddrs: a['target-addrs'],
        replaceAddrs: a['replace-addrs'],
        variables: a.variables?.map((v) => ({ key: v.key, value: v.value })),
        terraformVersion: a['terraform-version'],
      });
      return reply.code(201).send({ data: runResource(view, context()) });
    },
  );

  app.get(
    '/runs/:run_id',
    { schema: { summary: 'Show a run', tags, params: RunParams, querystring: ShowRunQuery, response: responses({ 200: RunDocument }) } },
    async (request) => {
      const wanted = includes(request.query.include, RUN_INCLUDES);
      const view = await runs.show(request.caller, request.params.run_id);
      return { data: runResource(view, context()), ...(await included(request.caller, request, wanted, [view])) };
    },
  );

  app.get(
    '/workspaces/:workspace_id/runs',
    {
      schema: { summary: "List a workspace's runs", tags, params: WorkspaceParams, querystring: ListRunsQuery, response: responses({ 200: RunListDocument }) },
    },
    async (request) => {
      const page = parsePage(request.query);
      const wanted = includes(request.query.include, RUN_INCLUDES);
      const { items, total } = await runs.list(request.caller, request.params.workspace_id, page, listFilter(request.query));
      return {
        data: items.map((v) => runResource(v, context())),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
        ...(await included(request.caller, request, wanted, items)),
      };
    },
  );

  app.get(
    '/organizations/:organization_name/runs',
    {
      schema: {
        summary: "List an organization's runs",
        tags,
        params: OrganizationParams,
        querystring: ListRunsQuery,
        response: responses({ 200: RunListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const wanted = includes(request.query.include, RUN_INCLUDES);
      const { items, total } = await runs.listForOrganization(request.caller, request.params.organization_name, page, listFilter(request.query));
      return {
        data: items.map((v) => runResource(v, context())),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
        ...(await included(request.caller, request, wanted, items)),
      };
    },
  );

  app.get(
    '/organizations/:organization_name/runs/queue',
    {
      schema: {
        summary: "An organization's run queue",
        tags,
        params: OrganizationParams,
        querystring: QueueQuery,
        response: responses({ 200: RunListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await runs.listForOrganization(request.caller, request.params.organization_name, page, { statuses: QUEUE_STATUSES });
      return { data: items.map((v) => runResource(v, context())), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // 202 with no body, as in TFE. go-tfe sends `{"comment": …}`: read by nobody, so no schema.
  // The optional `{"comment": …}` becomes a comment on the run (noteOf checks it field by field).
  const action = (name: string, summary: string, act: (caller: Caller, id: string, note?: string) => Promise<void>) =>
    app.post(
      `/runs/:run_id/actions/${name}`,
      { schema: { summary, tags, params: RunParams, response: responses({ 202: NoContent }) } },
      async (request, reply) => {
        await act(request.caller, request.params.run_id, noteOf(request.body));
        return reply.code(202).send();
      },
    );
  action('apply', 'Confirm a planned run: its apply is queued', (c, id, note) => runs.apply(c, id, note));
  action('discard', 'Discard a run waiting in the queue or for confirmation', (c, id, note) => runs.discard(c, id, note));
  action('cancel', 'Cancel a run: a queued one at once; a planning or applying one is asked to stop (terraform is interrupted)', (c, id, note) =>
    runs.cancel(c, id, note),
  );
  action('force-cancel', 'End a planning or applying run at once, after a cancel and its cool-off (409 before)', (c, id, note) =>
    runs.forceCancel(c, id, note),
  );
  action('force-execute', 'Start a pending run now, ending the run that holds its workspace', (c, id) => runs.forceExecute(c, id));

  async function eventIncludes(caller: Caller, wanted: readonly string[], events: readonly RunEvent[]) {
    const out: unknown[] = [];
    if (wanted.includes('actor')) {
      const ids = [...new Set(events.flatMap((e) => (e.actorUserId ? [e.actorUserId] : [])))];
      out.push(...(await deps.users.views(caller, ids)).map(userResource));
    }
    if (wanted.includes('comment')) {
      const ids = events.flatMap((e) => (e.commentId ? [e.commentId] : []));
      out.push(...(await runs.commentsById(ids)).map(commentResource));
    }
    return out.length ? { included: out } : {};
  }

  // TFE's site-admin view of every run (site admins only; 404 for anyone else).
  app.get(
    '/admin/runs',
    { schema: { summary: 'List every run (site admins)', tags, querystring: AdminRunsQuery, response: responses({ 200: RunListDocument }) } },
    async (request) => {
      const page = parsePage(request.query);
      const wanted = includes(request.query.include, ['workspace', 'workspace.organization']);
      const { items, total } = await runs.listAll(request.caller, page, {
        statuses: listFilter(request.query).statuses,
        from: isoTime(request.query['filter[from]'], 'filter[from]'),
        to: isoTime(request.query['filter[to]'], 'filter[to]'),
        query: request.query.q || undefined,
      });
      const out: unknown[] = [];
      if (wanted.length > 0) {
        const views = await deps.workspaceViews.complete(
          await deps.workspaces.readable(
            request.caller,
            items.map((v) => v.run.workspaceId),
          ),
        );
        out.push(...views.map(workspaceResource));
        if (wanted.includes('workspace.organization')) {
          const seen = new Set<string>();
          for (const view of views) {
            if (seen.has(view.organizationName)) continue;
            seen.add(view.organizationName);
            out.push(organizationResource(await deps.workspaces.includedOrganization(view)));
          }
        }
      }
      return {
        data: items.map((v) => runResource(v, context())),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
        ...(out.length ? { included: out } : {}),
      };
    },
  );

  app.post(
    '/admin/runs/:run_id/actions/force-cancel',
    { schema: { summary: 'End any unfinished run (site admins)', tags, params: RunParams, response: responses({ 202: NoContent }) } },
    async (request, reply) => {
      await runs.adminForceCancel(request.caller, request.params.run_id, noteOf(request.body));
      return reply.code(202).send();
    },
  );

  // TFE's site-admin view of every workspace (site admins only; 404 for anyone else).
  async function adminIncluded(caller: Caller, wanted: readonly string[], views: readonly WorkspaceView[]) {
    const out: unknown[] = [];
    if (wanted.includes('organization')) {
      const seen = new Set<string>();
      for (const view of views) {
        if (seen.has(view.organizationName)) continue;
        seen.add(view.organizationName);
        out.push(organizationResource(await deps.workspaces.includedOrganization(view)));
      }
    }
    if (wanted.includes('current_run')) {
      const ids = views.flatMap((v) => (v.runs.current ? [v.runs.current] : []));
      if (ids.length) out.push(...(await runs.adminViews(caller, ids)).map((v) => runResource(v, context())));
    }
    return out.length ? { included: out } : {};
  }

  app.get(
    '/admin/workspaces',
    {
      schema: {
        summary: 'List every workspace (site admins)',
        tags,
        querystring: AdminWorkspacesQuery,
        response: responses({ 200: AdminWorkspaceListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const wanted = includes(request.query.include, ['organization', 'current_run']);
      const statuses = commaList(request.query['filter[current_run][status]'], 'filter[current_run][status]');
      const sort = sortOf(request.query.sort);
      const { items, total } = await deps.workspaceViews.page(
        await runs.adminWorkspaces(request.caller, page, {
          query: request.query.q || undefined,
          ...(statuses ? { statuses: statuses.map((s) => ((RUN_STATUSES as readonly string[]).includes(s) ? s : '-')) } : {}),
          ...(sort ? { sort } : {}),
        }),
      );
      return {
        data: items.map(workspaceResource),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
        ...(await adminIncluded(request.caller, wanted, items)),
      };
    },
  );

  app.get(
    '/admin/workspaces/:workspace_id',
    { schema: { summary: 'Show any workspace (site admins)', tags, params: AdminWorkspaceParams, response: responses({ 200: AdminWorkspaceDocument }) } },
    async (request) => {
      return { data: workspaceResource(await deps.workspaceViews.one(await deps.workspaces.adminShow(request.caller, request.params.workspace_id))) };
    },
  );

  app.delete(
    '/admin/workspaces/:workspace_id',
    { schema: { summary: 'Delete any workspace (site admins)', tags, params: AdminWorkspaceParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await deps.workspaces.adminDestroy(request.caller, request.params.workspace_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/runs/:run_id/run-events',
    { schema: { summary: "A run's events", tags, params: RunParams, querystring: RunEventsQuery, response: responses({ 200: RunEventListDocument }) } },
    async (request) => {
      const wanted = includes(request.query.include, EVENT_INCLUDES);
      const events = await runs.events(request.caller, request.params.run_id);
      const page = { number: 1, size: Math.max(events.length, 1), offset: 0 };
      return {
        data: events.map(runEventResource),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, events.length),
        ...(await eventIncludes(request.caller, wanted, events)),
      };
    },
  );

  app.get(
    '/run-events/:run_event_id',
    { schema: { summary: 'Show a run event', tags, params: RunEventParams, querystring: RunEventsQuery, response: responses({ 200: RunEventDocument }) } },
    async (request) => {
      const wanted = includes(request.query.include, EVENT_INCLUDES);
      const event = await runs.event(request.caller, request.params.run_event_id);
      return { data: runEventResource(event), ...(await eventIncludes(request.caller, wanted, [event])) };
    },
  );

  app.post(
    '/runs/:run_id/comments',
    { schema: { summary: 'Comment on a run', tags, params: RunParams, body: CreateCommentBody, response: responses({ 201: CommentDocument }) } },
    async (request, reply) => {
      const c = await runs.comment(request.caller, request.params.run_id, request.body.data.attributes.body);
      return reply.code(201).send({ data: commentResource(c) });
    },
  );

  app.get(
    '/runs/:run_id/comments',
    { schema: { summary: "A run's comments, oldest first", tags, params: RunParams, response: responses({ 200: CommentListDocument }) } },
    async (request) => {
      const comments = await runs.comments(request.caller, request.params.run_id);
      const page = { number: 1, size: Math.max(comments.length, 1), offset: 0 };
      return { data: comments.map(commentResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, comments.length) };
    },
  );

  app.get(
    '/comments/:comment_id',
    { schema: { summary: 'Show a comment', tags, params: CommentParams, response: responses({ 200: CommentDocument }) } },
    async (request) => {
      return { data: commentResource(await runs.findComment(request.caller, request.params.comment_id)) };
    },
  );

  app.get('/plans/:plan_id', { schema: { summary: 'Show a plan', tags, params: PlanParams, response: responses({ 200: PlanDocument }) } }, async (request) => {
    const { job, view } = await runs.phase(request.caller, request.params.plan_id, 'plan');
    return { data: phaseResource(job, view, logUrl(request, job.id)) };
  });

  app.get(
    '/applies/:apply_id',
    { schema: { summary: 'Show an apply', tags, params: ApplyParams, response: responses({ 200: ApplyDocument }) } },
    async (request) => {
      const { job, view } = await runs.phase(request.caller, request.params.apply_id, 'apply');
      return { data: phaseResource(job, view, logUrl(request, job.id)) };
    },
  );

  const jsonOutput = {
    summary: "A plan's JSON (`terraform show -json`), sensitive values redacted",
    tags,
    params: PlanParams,
    response: responses({ 200: Bytes }),
  };
  app.get('/plans/:plan_id/json-output', { schema: jsonOutput }, async (request, reply) => {
    const bytes = await runs.planJson(request.caller, request.params.plan_id);
    return reply.code(200).type('application/json').send(bytes);
  });
  app.get(
    '/plans/:plan_id/json-output-redacted',
    { schema: { ...jsonOutput, summary: "A plan's redacted JSON, as the Terraform CLI reads it", response: responses({ 200: Bytes }) } },
    async (request, reply) => {
      const bytes = await runs.planJson(request.caller, request.params.plan_id);
      return reply.code(200).type('application/json').send(bytes);
    },
  );
}

/** TFE's run list filters and searches (a status Hangar does not know matches nothing). */
function listFilter(
  query: Pick<Static<typeof ListRunsQuery>, 'filter[status]' | 'filter[operation]' | 'filter[source]' | 'search[user]' | 'search[commit]' | 'search[basic]'>,
): RunListFilter {
  const statuses = commaList(query['filter[status]'], 'filter[status]');
  return {
    statuses: statuses?.map((s) => ((RUN_STATUSES as readonly string[]).includes(s) ? s : '-')),
    operations: commaList(query['filter[operation]'], 'filter[operation]'),
    sources: commaList(query['filter[source]'], 'filter[source]'),
    user: query['search[user]'] || undefined,
    commit: query['search[commit]'] || undefined,
    basic: query['search[basic]'] || undefined,
  };
}

/** A time in a query, as Hangar stores times (so that text order is time order); 400 if it is none. */
function isoTime(value: string | undefined, parameter: string): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw errors.badRequest(`${parameter} must be an ISO 8601 time`, parameter);
  return new Date(t).toISOString();
}

/** The optional `comment` go-tfe sends with a run action (`{"comment": "…"}`), or none. */
function noteOf(body: unknown): string | undefined {
  const comment = typeof body === 'object' && body !== null ? (body as { comment?: unknown }).comment : undefined;
  if (comment === undefined || comment === null || comment === '') return undefined;
  if (typeof comment !== 'string') throw errors.invalidAttribute('/comment', 'must be a string');
  if (comment.length > 10_000) throw errors.invalidAttribute('/comment', 'must be at most 10000 characters');
  return comment;
}

/** The log URL: no token (the URL is the credential), `offset`/`limit` over STX + log + ETX. */
export async function logRoutes(app: Api, { jobs }: { jobs: JobsService }): Promise<void> {
  app.get(
    `${LOG_PREFIX}/:object`,
    {
      schema: {
        summary: "Read a plan's or apply's log (the URL is the credential; no token)",
        tags,
        params: LogParams,
        querystring: LogQuery,
        response: responses({ 200: Bytes }),
      },
    },
    async (request, reply) => {
      const id = jobs.checkLogObject(request.params.object);
      const job = await jobs.show(id);
      const offset = Number(request.query.offset ?? 0);
      const limit = Math.min(Number(request.query.limit ?? 1024 * 1024), 10 * 1024 * 1024);
      return reply
        .code(200)
        .type('text/plain')
        .send(await jobs.readLog(job, offset, limit));
    },
  );
}

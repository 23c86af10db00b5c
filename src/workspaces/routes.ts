import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, includes, sortOf } from '../jsonapi/query.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import { stateVersionResource, workspaceOutputResource } from '../state-versions/serialize.ts';
import type { RunsService } from '../runs/service.ts';
import { runResource } from '../runs/serialize.ts';
import { RUN_STATUSES } from '../runs/statuses.ts';
import type { FastifyRequest } from 'fastify';
import { OrganizationParams } from '../organizations/schemas.ts';
import { organizationResource } from '../organizations/serialize.ts';
import { tagChangeOf, taggedFilter } from '../tags/schemas.ts';
import { includedBindings } from '../tags/serialize.ts';
import {
  CreateWorkspaceBody,
  ListWorkspacesQuery,
  OrganizationWorkspaceParams,
  RemoteStateConsumersBody,
  RemoteStateConsumersDocument,
  RemoteStateConsumersQuery,
  ShowWorkspaceQuery,
  UpdateWorkspaceBody,
  WORKSPACE_INCLUDES,
  WorkspaceDocument,
  WorkspaceListDocument,
  WorkspaceParams,
} from './schemas.ts';
import { workspaceResource } from './serialize.ts';
import type { WorkspaceViewsService, WorkspaceView } from '../workspace-views/service.ts';
import type { WorkspaceInput, WorkspaceRef, WorkspacesService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

/** The modelled members of a create or update body, field by field; everything else is ignored. */
function input(body: Static<typeof UpdateWorkspaceBody>): WorkspaceInput {
  const a = body.data.attributes ?? {};
  const overwrites = a['setting-overwrites'];
  return {
    name: a.name,
    description: a.description,
    autoDestroyActivityDuration: a['auto-destroy-activity-duration'],
    inheritsProjectAutoDestroy: a['inherits-project-auto-destroy'],
    projectId: body.data.relationships?.project?.data?.id,
    settings: {
      autoApply: a['auto-apply'],
      autoApplyRunTrigger: a['auto-apply-run-trigger'],
      allowDestroyPlan: a['allow-destroy-plan'],
      assessmentsEnabled: a['assessments-enabled'],
      fileTriggersEnabled: a['file-triggers-enabled'],
      globalRemoteState: a['global-remote-state'],
      queueAllRuns: a['queue-all-runs'],
      speculativeEnabled: a['speculative-enabled'],
      structuredRunOutputEnabled: a['structured-run-output-enabled'],
      terraformVersion: a['terraform-version'],
      workingDirectory: a['working-directory'],
      triggerPrefixes: a['trigger-prefixes'],
      triggerPatterns: a['trigger-patterns'],
      autoDestroyAt: a['auto-destroy-at'],
    },
    executionMode: a['execution-mode'],
    operations: a.operations,
    agentPoolId: a['agent-pool-id'],
    overwrites: overwrites && { executionMode: overwrites['execution-mode'], agentPool: overwrites['agent-pool'] },
    tags: tagChangeOf(body.data),
  };
}

const tags = ['Workspaces'];

export async function workspacesRoutes(
  app: Api,
  {
    workspaces,
    workspaceViews,
    stateVersions,
    runs,
    terraformVersion,
  }: {
    workspaces: WorkspacesService;
    workspaceViews: WorkspaceViewsService;
    stateVersions: StateVersionsService;
    runs: RunsService;
    terraformVersion: () => string;
  },
): Promise<void> {
  /** `included` for the views (all of one organization), as `include` asked. */
  async function included(wanted: readonly string[], views: readonly WorkspaceView[], request?: FastifyRequest) {
    const out: unknown[] = [];
    if (wanted.includes('organization') && views.length > 0) out.push(organizationResource(await workspaces.includedOrganization(views[0]!)));
    if (wanted.includes('effective_tag_bindings')) out.push(...includedBindings(views.map((v) => v.tags.effective)));
    if (wanted.includes('current_run')) out.push(...(await runs.currentOfViews(views)).map((r) => runResource(r, { terraformVersion: terraformVersion() })));
    if (request && wanted.includes('current-state-version')) {
      const origin = absoluteUrl(request, app.config.baseUrl).origin;
      out.push(...(await stateVersions.currentOfViews(views)).map((sv) => stateVersionResource(sv, origin)));
    }
    return out.length ? { included: out } : {};
  }

  app.post(
    '/organizations/:organization_name/workspaces',
    {
      schema: {
        summary: 'Create a workspace (in the default project unless one is given)',
        tags,
        params: OrganizationParams,
        body: CreateWorkspaceBody,
        response: responses({ 201: WorkspaceDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const given = input(request.body);
      const view = await workspaceViews.one(
        await workspaces.create(request.caller, request.params.organization_name, {
          ...given,
          name: a.name,
          settings: { ...given.settings, sourceName: a['source-name'], sourceUrl: a['source-url'] },
        }),
      );
      return reply.code(201).send({ data: workspaceResource(view) });
    },
  );

  app.get(
    '/organizations/:organization_name/workspaces',
    {
      schema: {
        summary: "List an organization's workspaces",
        tags,
        params: OrganizationParams,
        querystring: ListWorkspacesQuery,
        response: responses({ 200: WorkspaceListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const wanted = includes(query.include, WORKSPACE_INCLUDES);
      // A status Hangar does not know matches nothing.
      const statuses = commaList(query['filter[current-run][status]'], 'filter[current-run][status]')?.map((s) =>
        (RUN_STATUSES as readonly string[]).includes(s) ? s : '-',
      );
      const tagQuery = {
        all: [...taggedFilter(query), ...(commaList(query['search[tags]'], 'search[tags]') ?? []).map((key) => ({ key }))],
        none: (commaList(query['search[exclude-tags]'], 'search[exclude-tags]') ?? []).map((key) => ({ key })),
        effective: wanted.includes('effective_tag_bindings'),
      };
      const filter = {
        search: query['search[name]'],
        wildcardName: query['search[wildcard-name]'] || undefined,
        projectId: query['filter[project][id]'],
        descending: sortOf(query.sort)?.descending ?? false,
        tags: tagQuery,
        ...(query.sort ? { sort: sortOf(query.sort)!.field } : {}),
        ...(statuses ? { currentRunStatuses: statuses } : {}),
      };
      const { items, total } = await workspaceViews.page(
        await workspaces.list(request.caller, request.params.organization_name, filter, page, workspaceViews.beside),
      );
      return {
        data: items.map(workspaceResource),
        ...(await included(wanted, items, request)),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
      };
    },
  );

  // go-tfe addresses a workspace both ways: by id, and by organization and name.
  const refOf = (p: Static<typeof WorkspaceParams> | Static<typeof OrganizationWorkspaceParams>): WorkspaceRef =>
    'workspace_id' in p ? { id: p.workspace_id } : { organizationName: p.organization_name, name: p.workspace_name };

  for (const [path, params, by] of [
    ['/workspaces/:workspace_id', WorkspaceParams, 'by id'],
    ['/organizations/:organization_name/workspaces/:workspace_name', OrganizationWorkspaceParams, 'by organization and name'],
  ] as const) {
    app.get(
      path,
      { schema: { summary: `Show a workspace, ${by}`, tags, params, querystring: ShowWorkspaceQuery, response: responses({ 200: WorkspaceDocument }) } },
      async (request) => {
        const wanted = includes(request.query.include, WORKSPACE_INCLUDES);
        const view = await workspaceViews.one(
          await workspaces.show(request.caller, refOf(request.params), { effective: wanted.includes('effective_tag_bindings') }),
        );
        const data = workspaceResource(view);
        const { included: others = [] } = await included(wanted, [view], request);
        if (!wanted.includes('outputs')) return { data, ...(others.length ? { included: others } : {}) };
        // The current state's outputs, sensitive values null (state-versions owns them).
        const outputs = (await stateVersions.visibleCurrentOutputs(request.caller, data.id)).map(workspaceOutputResource);
        return {
          data: { ...data, relationships: { ...data.relationships, outputs: { data: outputs.map((o) => ({ id: o.id, type: o.type })) } } },
          included: [...others, ...outputs],
        };
      },
    );
    app.patch(
      path,
      { schema: { summary: `Update a workspace, ${by}`, tags, params, body: UpdateWorkspaceBody, response: responses({ 200: WorkspaceDocument }) } },
      async (request) => {
        return { data: workspaceResource(await workspaceViews.one(await workspaces.update(request.caller, refOf(request.params), input(request.body)))) };
      },
    );
    app.delete(path, { schema: { summary: `Delete a workspace, ${by}`, tags, params, response: responses({ 204: NoContent }) } }, async (request, reply) => {
      await workspaces.destroy(request.caller, refOf(request.params));
      return reply.code(204).send();
    });
  }

  const consumers = '/workspaces/:workspace_id/relationships/remote-state-consumers';
  app.get(
    consumers,
    {
      schema: {
        summary: "List the workspaces that may read the workspace's state",
        tags,
        params: WorkspaceParams,
        querystring: RemoteStateConsumersQuery,
        response: responses({ 200: RemoteStateConsumersDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await workspaceViews.page(await workspaces.remoteStateConsumers(request.caller, request.params.workspace_id, page));
      return { data: items.map(workspaceResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );
  // Adding, replacing and removing take the same body and answer 204.
  const changes = { tags, params: WorkspaceParams, body: RemoteStateConsumersBody } as const;
  const ids = (body: Static<typeof RemoteStateConsumersBody>) => body.data.map((d) => d.id);
  app.post(consumers, { schema: { ...changes, summary: 'Add remote state consumers', response: responses({ 204: NoContent }) } }, async (request, reply) => {
    await workspaces.changeRemoteStateConsumers(request.caller, request.params.workspace_id, ids(request.body), 'add');
    return reply.code(204).send();
  });
  app.patch(
    consumers,
    { schema: { ...changes, summary: 'Replace the remote state consumers', response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await workspaces.changeRemoteStateConsumers(request.caller, request.params.workspace_id, ids(request.body), 'replace');
      return reply.code(204).send();
    },
  );
  app.delete(
    consumers,
    { schema: { ...changes, summary: 'Remove remote state consumers', response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await workspaces.changeRemoteStateConsumers(request.caller, request.params.workspace_id, ids(request.body), 'remove');
      return reply.code(204).send();
    },
  );
}

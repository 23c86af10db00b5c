import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { includes } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { ProjectParams } from '../projects/schemas.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import {
  ApplyProjectsBody,
  ApplyWorkspacesBody,
  CreateVariableSetBody,
  ListVariableSetsQuery,
  ShowVariableSetQuery,
  UpdateVariableSetBody,
  VARIABLE_SET_INCLUDES,
  VariableSetDocument,
  VariableSetListDocument,
  VariableSetParams,
} from './schemas.ts';
import { variableSetResource } from './serialize.ts';
import type { VariableSetInput, VariableSetsService, VariableSetView } from './service.ts';

/** The modelled members of a create or update body, field by field; everything else is ignored. */
function input(data: Static<typeof UpdateVariableSetBody>['data']): VariableSetInput {
  const a = data.attributes ?? {};
  const r = data.relationships ?? {};
  return {
    name: a.name,
    description: a.description,
    global: a.global,
    priority: a.priority,
    workspaceIds: r.workspaces?.data.map((w) => w.id),
    projectIds: r.projects?.data.map((p) => p.id),
  };
}

const tags = ['Variable sets'];

export async function variableSetsRoutes(app: Api, { variableSets }: { variableSets: VariableSetsService }): Promise<void> {
  async function page(
    request: { query: Static<typeof ListVariableSetsQuery> } & Parameters<typeof absoluteUrl>[0],
    list: (search: string | undefined, p: ReturnType<typeof parsePage>) => Promise<{ items: VariableSetView[]; total: number }>,
  ) {
    includes(request.query.include, VARIABLE_SET_INCLUDES);
    const p = parsePage(request.query);
    const { items, total } = await list(request.query.q || undefined, p);
    return { data: items.map(variableSetResource), ...envelope(absoluteUrl(request, app.config.baseUrl), p, total) };
  }

  app.get(
    '/organizations/:organization_name/varsets',
    {
      schema: {
        summary: "List an organization's variable sets",
        tags,
        params: OrganizationParams,
        querystring: ListVariableSetsQuery,
        response: responses({ 200: VariableSetListDocument }),
      },
    },
    async (request) => page(request, (search, p) => variableSets.list(request.caller, request.params.organization_name, search, p)),
  );

  app.get(
    '/workspaces/:workspace_id/varsets',
    {
      schema: {
        summary: 'List the variable sets that apply to a workspace (global ones included)',
        tags,
        params: WorkspaceParams,
        querystring: ListVariableSetsQuery,
        response: responses({ 200: VariableSetListDocument }),
      },
    },
    async (request) => page(request, (search, p) => variableSets.listForWorkspace(request.caller, request.params.workspace_id, search, p)),
  );

  app.get(
    '/projects/:project_id/varsets',
    {
      schema: {
        summary: 'List the variable sets a project owns or has applied',
        tags,
        params: ProjectParams,
        querystring: ListVariableSetsQuery,
        response: responses({ 200: VariableSetListDocument }),
      },
    },
    async (request) => page(request, (search, p) => variableSets.listForProject(request.caller, request.params.project_id, search, p)),
  );

  app.post(
    '/organizations/:organization_name/varsets',
    {
      schema: {
        summary: 'Create a variable set',
        tags,
        params: OrganizationParams,
        body: CreateVariableSetBody,
        response: responses({ 201: VariableSetDocument }),
      },
    },
    async (request, reply) => {
      const data = request.body.data;
      const parent = data.relationships?.parent?.data;
      const created = await variableSets.create(request.caller, request.params.organization_name, {
        ...input(data),
        name: data.attributes.name,
        ...(parent?.type === 'projects' ? { parentProjectId: parent.id } : {}),
      });
      return reply.code(201).send({ data: variableSetResource(created) });
    },
  );

  app.get(
    '/varsets/:varset_id',
    {
      schema: {
        summary: 'Show a variable set',
        tags,
        params: VariableSetParams,
        querystring: ShowVariableSetQuery,
        response: responses({ 200: VariableSetDocument }),
      },
    },
    async (request) => {
      includes(request.query.include, VARIABLE_SET_INCLUDES);
      const { set, organizationName } = await variableSets.find(request.caller, request.params.varset_id, 'read');
      return { data: variableSetResource(await variableSets.view(set, organizationName)) };
    },
  );

  app.patch(
    '/varsets/:varset_id',
    {
      schema: {
        summary: 'Update a variable set (relationships given replace its workspaces or projects)',
        tags,
        params: VariableSetParams,
        querystring: ShowVariableSetQuery,
        body: UpdateVariableSetBody,
        response: responses({ 200: VariableSetDocument }),
      },
    },
    async (request) => {
      includes(request.query.include, VARIABLE_SET_INCLUDES);
      return { data: variableSetResource(await variableSets.update(request.caller, request.params.varset_id, input(request.body.data))) };
    },
  );

  app.delete(
    '/varsets/:varset_id',
    { schema: { summary: 'Delete a variable set and its variables', tags, params: VariableSetParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await variableSets.destroy(request.caller, request.params.varset_id);
      return reply.code(204).send();
    },
  );

  for (const [relation, body] of [
    ['workspaces', ApplyWorkspacesBody],
    ['projects', ApplyProjectsBody],
  ] as const) {
    const noun = relation === 'workspaces' ? 'workspaces' : 'projects';
    app.post(
      `/varsets/:varset_id/relationships/${relation}`,
      { schema: { summary: `Apply a variable set to ${noun}`, tags, params: VariableSetParams, body, response: responses({ 204: NoContent }) } },
      async (request, reply) => {
        await variableSets.apply(
          request.caller,
          request.params.varset_id,
          relation,
          request.body.data.map((d) => d.id),
        );
        return reply.code(204).send();
      },
    );
    app.delete(
      `/varsets/:varset_id/relationships/${relation}`,
      { schema: { summary: `Remove a variable set from ${noun}`, tags, params: VariableSetParams, body, response: responses({ 204: NoContent }) } },
      async (request, reply) => {
        await variableSets.remove(
          request.caller,
          request.params.varset_id,
          relation,
          request.body.data.map((d) => d.id),
        );
        return reply.code(204).send();
      },
    );
  }
}

import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage, type Page, type PageQuery } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import {
  CreateVariableBody,
  EffectiveVariableListDocument,
  LegacyCreateVariableBody,
  LegacyListVariablesQuery,
  LegacyVariableParams,
  ListVariablesQuery,
  SetVariableParams,
  SetVariablesParams,
  UpdateVariableBody,
  VariableDocument,
  VariableListDocument,
  WorkspaceVariableParams,
} from './schemas.ts';
import { variableResource } from './serialize.ts';
import type { Variable, VariableInput, VariablesService } from './service.ts';

/**
 * Without page parameters: every variable, as one page this long. Should an owner hold more, the
 * first page comes with the envelope, so no response grows past the bound and the client sees
 * there is more.
 */
const WHOLE_LIST: Page = { number: 1, size: 1000, offset: 0 };

/** The modelled attributes of a body, field by field; everything else is ignored. */
function input(attributes: Static<typeof UpdateVariableBody>['data']['attributes'] = {}): VariableInput {
  return {
    key: attributes.key,
    value: attributes.value,
    description: attributes.description,
    category: attributes.category,
    hcl: attributes.hcl,
    sensitive: attributes.sensitive,
  };
}

const tags = ['Variables'];

export async function variablesRoutes(app: Api, { variables }: { variables: VariablesService }): Promise<void> {
  async function listed(url: URL, query: PageQuery, list: (page: Page) => Promise<{ items: Variable[]; total: number }>) {
    const paged = wantsPage(query);
    const page = paged ? parsePage(query) : WHOLE_LIST;
    const { items, total } = await list(page);
    const data = items.map(variableResource);
    return paged || total > items.length ? { data, ...envelope(url, page, total) } : { data };
  }
  const url = (request: Parameters<typeof absoluteUrl>[0]) => absoluteUrl(request, app.config.baseUrl);

  // ---- a workspace's own variables

  app.get(
    '/workspaces/:workspace_id/vars',
    {
      schema: {
        summary: "List a workspace's variables (unpaginated unless a page is asked for)",
        tags,
        params: WorkspaceParams,
        querystring: ListVariablesQuery,
        response: responses({ 200: VariableListDocument }),
      },
    },
    async (request) => listed(url(request), request.query, (page) => variables.list(request.caller, request.params.workspace_id, page)),
  );

  app.post(
    '/workspaces/:workspace_id/vars',
    {
      schema: {
        summary: 'Create a workspace variable (a sensitive value is never shown again)',
        tags,
        params: WorkspaceParams,
        body: CreateVariableBody,
        response: responses({ 201: VariableDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const created = await variables.create(request.caller, request.params.workspace_id, { ...input(a), key: a.key, category: a.category });
      return reply.code(201).send({ data: variableResource(created) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/vars/:variable_id',
    { schema: { summary: 'Show a workspace variable', tags, params: WorkspaceVariableParams, response: responses({ 200: VariableDocument }) } },
    async (request) => ({
      data: variableResource(await variables.show(request.caller, request.params.workspace_id, request.params.variable_id)),
    }),
  );

  app.patch(
    '/workspaces/:workspace_id/vars/:variable_id',
    {
      schema: {
        summary: 'Update a workspace variable',
        tags,
        params: WorkspaceVariableParams,
        body: UpdateVariableBody,
        response: responses({ 200: VariableDocument }),
      },
    },
    async (request) => {
      const { workspace_id, variable_id } = request.params;
      return { data: variableResource(await variables.update(request.caller, workspace_id, variable_id, input(request.body.data.attributes))) };
    },
  );

  app.delete(
    '/workspaces/:workspace_id/vars/:variable_id',
    { schema: { summary: 'Delete a workspace variable', tags, params: WorkspaceVariableParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await variables.destroy(request.caller, request.params.workspace_id, request.params.variable_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/workspaces/:workspace_id/all-vars',
    {
      schema: {
        summary: 'List the variables a run of the workspace gets: its own and its variable sets, after precedence',
        tags,
        params: WorkspaceParams,
        response: responses({ 200: EffectiveVariableListDocument }),
      },
    },
    async (request) => ({
      data: (await variables.effectiveFor(request.caller, request.params.workspace_id)).map(variableResource),
    }),
  );

  // ---- TFE's older routes for a workspace's variables, still served by TFE and used by old clients

  app.get(
    '/vars',
    {
      schema: {
        summary: "List a workspace's variables, the workspace named by organization and name (older form)",
        tags,
        querystring: LegacyListVariablesQuery,
        response: responses({ 200: VariableListDocument }),
      },
    },
    async (request) => {
      const q = request.query;
      return listed(url(request), q, (page) => variables.legacy.list(request.caller, q['filter[organization][name]'], q['filter[workspace][name]'], page));
    },
  );

  app.post(
    '/vars',
    {
      schema: {
        summary: 'Create a workspace variable, the workspace named in the body (older form)',
        tags,
        body: LegacyCreateVariableBody,
        response: responses({ 201: VariableDocument }),
      },
    },
    async (request, reply) => {
      const { attributes: a, relationships } = request.body.data;
      const created = await variables.create(request.caller, relationships.workspace.data.id, { ...input(a), key: a.key, category: a.category });
      return reply.code(201).send({ data: variableResource(created) });
    },
  );

  app.patch(
    '/vars/:variable_id',
    {
      schema: {
        summary: 'Update a workspace variable (older form)',
        tags,
        params: LegacyVariableParams,
        body: UpdateVariableBody,
        response: responses({ 200: VariableDocument }),
      },
    },
    async (request) => ({
      data: variableResource(await variables.legacy.update(request.caller, request.params.variable_id, input(request.body.data.attributes))),
    }),
  );

  app.delete(
    '/vars/:variable_id',
    { schema: { summary: 'Delete a workspace variable (older form)', tags, params: LegacyVariableParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await variables.legacy.destroy(request.caller, request.params.variable_id);
      return reply.code(204).send();
    },
  );

  // ---- a variable set's variables

  app.get(
    '/varsets/:varset_id/relationships/vars',
    {
      schema: {
        summary: "List a variable set's variables (unpaginated unless a page is asked for)",
        tags,
        params: SetVariablesParams,
        querystring: ListVariablesQuery,
        response: responses({ 200: VariableListDocument }),
      },
    },
    async (request) => listed(url(request), request.query, (page) => variables.inSet.list(request.caller, request.params.varset_id, page)),
  );

  app.post(
    '/varsets/:varset_id/relationships/vars',
    {
      schema: {
        summary: 'Add a variable to a variable set (a sensitive value is never shown again)',
        tags,
        params: SetVariablesParams,
        body: CreateVariableBody,
        response: responses({ 201: VariableDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const created = await variables.inSet.create(request.caller, request.params.varset_id, { ...input(a), key: a.key, category: a.category });
      return reply.code(201).send({ data: variableResource(created) });
    },
  );

  app.get(
    '/varsets/:varset_id/relationships/vars/:set_variable_id',
    { schema: { summary: "Show a variable set's variable", tags, params: SetVariableParams, response: responses({ 200: VariableDocument }) } },
    async (request) => ({
      data: variableResource(await variables.inSet.show(request.caller, request.params.varset_id, request.params.set_variable_id)),
    }),
  );

  app.patch(
    '/varsets/:varset_id/relationships/vars/:set_variable_id',
    {
      schema: {
        summary: "Update a variable set's variable",
        tags,
        params: SetVariableParams,
        body: UpdateVariableBody,
        response: responses({ 200: VariableDocument }),
      },
    },
    async (request) => {
      const { varset_id, set_variable_id } = request.params;
      return { data: variableResource(await variables.inSet.update(request.caller, varset_id, set_variable_id, input(request.body.data.attributes))) };
    },
  );

  app.delete(
    '/varsets/:varset_id/relationships/vars/:set_variable_id',
    { schema: { summary: "Delete a variable set's variable", tags, params: SetVariableParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await variables.inSet.destroy(request.caller, request.params.varset_id, request.params.set_variable_id);
      return reply.code(204).send();
    },
  );
}

import type { Api } from '../api.ts';
import type { Caller } from '../auth/caller.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { ProjectParams } from '../projects/schemas.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import {
  bindingsOf,
  EffectiveTagBindingList,
  FlatTagListDocument,
  FlatTagsBody,
  ListFlatTagsQuery,
  refsOf,
  TagBindingList,
  TagBindingsBody,
} from './schemas.ts';
import { bindingResource, effectiveBindingResource, flatTagResource } from './serialize.ts';
import type { TagsService } from './service.ts';

const tags = ['Tags'];

export async function tagsRoutes(app: Api, { tags: service, workspaces }: { tags: TagsService; workspaces: WorkspacesService }): Promise<void> {
  const workspace = (caller: Caller, id: string) => workspaces.find(caller, { id });

  // Tag bindings of a workspace: its own, and those in effect (its project's included).
  app.get(
    '/workspaces/:workspace_id/tag-bindings',
    { schema: { summary: "List a workspace's own tag bindings", tags, params: WorkspaceParams, response: responses({ 200: TagBindingList }) } },
    async (request) => {
      const bindings = await service.listWorkspace(await workspace(request.caller, request.params.workspace_id));
      return { data: bindings.map(bindingResource) };
    },
  );
  app.patch(
    '/workspaces/:workspace_id/tag-bindings',
    {
      schema: {
        summary: "Add to or change a workspace's tag bindings",
        tags,
        params: WorkspaceParams,
        body: TagBindingsBody,
        response: responses({ 200: TagBindingList }),
      },
    },
    async (request) => {
      const target = await workspace(request.caller, request.params.workspace_id);
      return { data: (await service.addWorkspaceBindings(target, bindingsOf(request.body.data))).map(bindingResource) };
    },
  );
  app.get(
    '/workspaces/:workspace_id/effective-tag-bindings',
    {
      schema: {
        summary: "List a workspace's tag bindings in effect (its own and its project's)",
        tags,
        params: WorkspaceParams,
        response: responses({ 200: EffectiveTagBindingList }),
      },
    },
    async (request) => {
      const bindings = await service.effectiveWorkspace(await workspace(request.caller, request.params.workspace_id));
      return { data: bindings.map(effectiveBindingResource) };
    },
  );

  // The flat tags of a workspace: the keys of its bindings.
  app.get(
    '/workspaces/:workspace_id/relationships/tags',
    {
      schema: {
        summary: "List a workspace's flat tags",
        tags,
        params: WorkspaceParams,
        querystring: ListFlatTagsQuery,
        response: responses({ 200: FlatTagListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const target = await workspace(request.caller, request.params.workspace_id);
      const { items, total } = await service.listFlatTags(target, request.query.name, page);
      return { data: items.map(flatTagResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );
  app.post(
    '/workspaces/:workspace_id/relationships/tags',
    { schema: { summary: 'Add flat tags to a workspace', tags, params: WorkspaceParams, body: FlatTagsBody, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await service.addFlatTags(await workspace(request.caller, request.params.workspace_id), refsOf(request.body.data));
      return reply.code(204).send();
    },
  );
  app.delete(
    '/workspaces/:workspace_id/relationships/tags',
    { schema: { summary: 'Remove flat tags from a workspace', tags, params: WorkspaceParams, body: FlatTagsBody, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await service.removeFlatTags(await workspace(request.caller, request.params.workspace_id), refsOf(request.body.data));
      return reply.code(204).send();
    },
  );

  // Tag bindings of a project; a project inherits none, so its effective bindings are its own.
  app.get(
    '/projects/:project_id/tag-bindings',
    { schema: { summary: "List a project's tag bindings", tags, params: ProjectParams, response: responses({ 200: TagBindingList }) } },
    async (request) => ({ data: (await service.listProject(request.caller, request.params.project_id)).map(bindingResource) }),
  );
  app.patch(
    '/projects/:project_id/tag-bindings',
    {
      schema: {
        summary: "Add to or change a project's tag bindings",
        tags,
        params: ProjectParams,
        body: TagBindingsBody,
        response: responses({ 200: TagBindingList }),
      },
    },
    async (request) => ({
      data: (await service.addProjectBindings(request.caller, request.params.project_id, bindingsOf(request.body.data))).map(bindingResource),
    }),
  );
  app.get(
    '/projects/:project_id/effective-tag-bindings',
    {
      schema: {
        summary: "List a project's tag bindings in effect (its own)",
        tags,
        params: ProjectParams,
        response: responses({ 200: EffectiveTagBindingList }),
      },
    },
    async (request) => ({ data: (await service.listProject(request.caller, request.params.project_id)).map(effectiveBindingResource) }),
  );
}

import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { ProjectParams } from '../projects/schemas.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { bindingsOf, FlatTagsBody, ListFlatTagsQuery, refsOf, TagBindingsBody } from './schemas.ts';
import { bindingResource, effectiveBindingResource, flatTagResource } from './serialize.ts';
import type { TagsService } from './service.ts';

export async function tagsRoutes(app: Api, { tags, workspaces }: { tags: TagsService; workspaces: WorkspacesService }): Promise<void> {
  const workspace = (caller: Parameters<WorkspacesService['findReadable']>[0], id: string) => workspaces.findReadable(caller, { id });

  // Tag bindings of a workspace: its own, and those in effect (its project's included).
  app.get('/workspaces/:workspace_id/tag-bindings', { schema: { params: WorkspaceParams } }, async (request) => {
    const bindings = await tags.listWorkspace(await workspace(request.caller, request.params.workspace_id));
    return { data: bindings.map(bindingResource) };
  });
  app.patch('/workspaces/:workspace_id/tag-bindings', { schema: { params: WorkspaceParams, body: TagBindingsBody } }, async (request) => {
    const target = await workspace(request.caller, request.params.workspace_id);
    return { data: (await tags.addWorkspaceBindings(target, bindingsOf(request.body.data))).map(bindingResource) };
  });
  app.get('/workspaces/:workspace_id/effective-tag-bindings', { schema: { params: WorkspaceParams } }, async (request) => {
    const bindings = await tags.effectiveWorkspace(await workspace(request.caller, request.params.workspace_id));
    return { data: bindings.map(effectiveBindingResource) };
  });

  // The flat tags of a workspace: the keys of its bindings.
  app.get('/workspaces/:workspace_id/relationships/tags', { schema: { params: WorkspaceParams, querystring: ListFlatTagsQuery } }, async (request) => {
    const page = parsePage(request.query);
    const target = await workspace(request.caller, request.params.workspace_id);
    const { items, total } = await tags.listFlatTags(target, request.query.name, page);
    return { data: items.map(flatTagResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });
  app.post('/workspaces/:workspace_id/relationships/tags', { schema: { params: WorkspaceParams, body: FlatTagsBody } }, async (request, reply) => {
    await tags.addFlatTags(await workspace(request.caller, request.params.workspace_id), refsOf(request.body.data));
    return reply.code(204).send();
  });
  app.delete('/workspaces/:workspace_id/relationships/tags', { schema: { params: WorkspaceParams, body: FlatTagsBody } }, async (request, reply) => {
    await tags.removeFlatTags(await workspace(request.caller, request.params.workspace_id), refsOf(request.body.data));
    return reply.code(204).send();
  });

  // Tag bindings of a project; a project inherits none, so its effective bindings are its own.
  app.get('/projects/:project_id/tag-bindings', { schema: { params: ProjectParams } }, async (request) => {
    return { data: (await tags.listProject(request.caller, request.params.project_id)).map(bindingResource) };
  });
  app.patch('/projects/:project_id/tag-bindings', { schema: { params: ProjectParams, body: TagBindingsBody } }, async (request) => {
    return { data: (await tags.addProjectBindings(request.caller, request.params.project_id, bindingsOf(request.body.data))).map(bindingResource) };
  });
  app.get('/projects/:project_id/effective-tag-bindings', { schema: { params: ProjectParams } }, async (request) => {
    return { data: (await tags.listProject(request.caller, request.params.project_id)).map(effectiveBindingResource) };
  });
}

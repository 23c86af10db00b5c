import type { Api } from '../api.ts';
import { responses } from '../jsonapi/schemas.ts';
import { WorkspaceDocument, WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import { LockBody } from './schemas.ts';
import type { WorkspaceLocksService } from './service.ts';

export async function workspaceLocksRoutes(app: Api, { workspaceLocks }: { workspaceLocks: WorkspaceLocksService }): Promise<void> {
  const tags = ['Workspace locks'];
  app.post('/workspaces/:workspace_id/actions/lock', { schema: { summary: 'Lock a workspace', tags, params: WorkspaceParams, body: LockBody, response: responses({ 200: WorkspaceDocument }) } }, async (request) => {
    const reason = request.body?.data?.attributes?.reason ?? null;
    return { data: workspaceResource(await workspaceLocks.lock(request.caller, { id: request.params.workspace_id }, reason)) };
  });
  app.post('/workspaces/:workspace_id/actions/unlock', { schema: { summary: "Unlock a workspace (the caller's own lock)", tags, params: WorkspaceParams, response: responses({ 200: WorkspaceDocument }) } }, async (request) => {
    return { data: workspaceResource(await workspaceLocks.unlock(request.caller, { id: request.params.workspace_id })) };
  });
  app.post('/workspaces/:workspace_id/actions/force-unlock', { schema: { summary: "Release anyone's lock (workspace admins)", tags, params: WorkspaceParams, response: responses({ 200: WorkspaceDocument }) } }, async (request) => {
    return { data: workspaceResource(await workspaceLocks.forceUnlock(request.caller, { id: request.params.workspace_id })) };
  });
}

import type { Api } from '../api.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import { LockBody } from './schemas.ts';
import type { WorkspaceLocksService } from './service.ts';

export async function workspaceLocksRoutes(app: Api, { workspaceLocks }: { workspaceLocks: WorkspaceLocksService }): Promise<void> {
  app.post('/workspaces/:workspace_id/actions/lock', { schema: { params: WorkspaceParams, body: LockBody } }, async (request) => {
    const reason = request.body?.data?.attributes?.reason ?? null;
    return { data: workspaceResource(await workspaceLocks.lock(request.caller, { id: request.params.workspace_id }, reason)) };
  });
  app.post('/workspaces/:workspace_id/actions/unlock', { schema: { params: WorkspaceParams } }, async (request) => {
    return { data: workspaceResource(await workspaceLocks.unlock(request.caller, { id: request.params.workspace_id })) };
  });
  app.post('/workspaces/:workspace_id/actions/force-unlock', { schema: { params: WorkspaceParams } }, async (request) => {
    return { data: workspaceResource(await workspaceLocks.forceUnlock(request.caller, { id: request.params.workspace_id })) };
  });
}

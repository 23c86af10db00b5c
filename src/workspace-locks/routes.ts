import type { Api } from '../api.ts';
import { responses } from '../jsonapi/schemas.ts';
import { WorkspaceDocument, WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import { LockBody } from './schemas.ts';
import type { WorkspaceViewsService } from '../workspace-views/service.ts';
import type { WorkspaceLocksService } from './service.ts';

const tags = ['Workspaces'];

export async function workspaceLocksRoutes(
  app: Api,
  { workspaceLocks, workspaceViews }: { workspaceLocks: WorkspaceLocksService; workspaceViews: WorkspaceViewsService },
): Promise<void> {
  app.post(
    '/workspaces/:workspace_id/actions/lock',
    {
      schema: {
        summary: 'Lock a workspace (409 when anyone holds the lock)',
        tags,
        params: WorkspaceParams,
        body: LockBody,
        response: responses({ 200: WorkspaceDocument }),
      },
    },
    async (request) => {
      const reason = request.body?.data?.attributes?.reason ?? null;
      return { data: workspaceResource(await workspaceViews.one(await workspaceLocks.lock(request.caller, { id: request.params.workspace_id }, reason))) };
    },
  );
  app.post(
    '/workspaces/:workspace_id/actions/unlock',
    { schema: { summary: 'Unlock a workspace the caller locked', tags, params: WorkspaceParams, response: responses({ 200: WorkspaceDocument }) } },
    async (request) => {
      return { data: workspaceResource(await workspaceViews.one(await workspaceLocks.unlock(request.caller, { id: request.params.workspace_id }))) };
    },
  );
  app.post(
    '/workspaces/:workspace_id/actions/force-unlock',
    { schema: { summary: 'Unlock a workspace whoever holds the lock', tags, params: WorkspaceParams, response: responses({ 200: WorkspaceDocument }) } },
    async (request) => {
      return { data: workspaceResource(await workspaceViews.one(await workspaceLocks.forceUnlock(request.caller, { id: request.params.workspace_id }))) };
    },
  );
}

import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { OrganizationWorkspaceParams, WorkspaceParams } from '../workspaces/schemas.ts';
import type { SafeDeleteService } from './service.ts';

export async function safeDeleteRoutes(app: Api, { safeDelete }: { safeDelete: SafeDeleteService }): Promise<void> {
  app.post('/workspaces/:workspace_id/actions/safe-delete', { schema: { params: WorkspaceParams } }, async (request, reply) => {
    await safeDelete.safeDelete(request.caller, { id: request.params.workspace_id });
    return reply.code(204).send();
  });
  app.post('/organizations/:organization_name/workspaces/:workspace_name/actions/safe-delete', { schema: { params: OrganizationWorkspaceParams } }, async (request, reply) => {
    const p: Static<typeof OrganizationWorkspaceParams> = request.params;
    await safeDelete.safeDelete(request.caller, { organizationName: p.organization_name, name: p.workspace_name });
    return reply.code(204).send();
  });
}

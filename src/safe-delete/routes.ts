import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationWorkspaceParams, WorkspaceParams } from '../workspaces/schemas.ts';

const tags = ['Workspaces'];
const summary = 'Delete a workspace unless it is locked or its state manages resources (409)';
import type { SafeDeleteService } from './service.ts';

export async function safeDeleteRoutes(app: Api, { safeDelete }: { safeDelete: SafeDeleteService }): Promise<void> {
  app.post(
    '/workspaces/:workspace_id/actions/safe-delete',
    { schema: { summary, tags, params: WorkspaceParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await safeDelete.safeDelete(request.caller, { id: request.params.workspace_id });
      return reply.code(204).send();
    },
  );
  app.post(
    '/organizations/:organization_name/workspaces/:workspace_name/actions/safe-delete',
    { schema: { summary, tags, params: OrganizationWorkspaceParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      const p: Static<typeof OrganizationWorkspaceParams> = request.params;
      await safeDelete.safeDelete(request.caller, { organizationName: p.organization_name, name: p.workspace_name });
      return reply.code(204).send();
    },
  );
}

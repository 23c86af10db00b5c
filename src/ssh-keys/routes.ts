import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import type { WorkspaceViewsService } from '../workspace-views/service.ts';
import { WorkspaceDocument, WorkspaceParams } from '../workspaces/schemas.ts';
import { workspaceResource } from '../workspaces/serialize.ts';
import { AssignSshKeyBody, CreateSshKeyBody, ListSshKeysQuery, SshKeyDocument, SshKeyListDocument, SshKeyParams, UpdateSshKeyBody } from './schemas.ts';
import { sshKeyResource } from './serialize.ts';
import type { SshKeysService } from './service.ts';

const tags = ['SSH keys'];

interface Deps {
  sshKeys: SshKeysService;
  workspaceViews: WorkspaceViewsService;
}

export async function sshKeysRoutes(app: Api, deps: Deps): Promise<void> {
  const { sshKeys } = deps;

  app.get(
    '/organizations/:organization_name/ssh-keys',
    {
      schema: {
        summary: "List the organization's SSH keys (names only)",
        tags,
        params: OrganizationParams,
        querystring: ListSshKeysQuery,
        response: responses({ 200: SshKeyListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await sshKeys.list(request.caller, request.params.organization_name, page);
      return { data: items.map(sshKeyResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.post(
    '/organizations/:organization_name/ssh-keys',
    {
      schema: {
        summary: 'Create an SSH key (its value, the private key, is write-only)',
        tags,
        params: OrganizationParams,
        body: CreateSshKeyBody,
        response: responses({ 201: SshKeyDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const created = await sshKeys.create(request.caller, request.params.organization_name, { name: a?.name, value: a?.value });
      return reply.code(201).send({ data: sshKeyResource(created) });
    },
  );

  app.get(
    '/ssh-keys/:ssh_key_id',
    { schema: { summary: 'Show an SSH key (its name; never its value)', tags, params: SshKeyParams, response: responses({ 200: SshKeyDocument }) } },
    async (request) => ({ data: sshKeyResource(await sshKeys.show(request.caller, request.params.ssh_key_id)) }),
  );

  app.patch(
    '/ssh-keys/:ssh_key_id',
    {
      schema: {
        summary: 'Rename an SSH key, or replace its value',
        tags,
        params: SshKeyParams,
        body: UpdateSshKeyBody,
        response: responses({ 200: SshKeyDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes;
      return { data: sshKeyResource(await sshKeys.update(request.caller, request.params.ssh_key_id, { name: a?.name, value: a?.value })) };
    },
  );

  app.delete(
    '/ssh-keys/:ssh_key_id',
    { schema: { summary: 'Delete an SSH key (and unassign it from every workspace)', tags, params: SshKeyParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await sshKeys.destroy(request.caller, request.params.ssh_key_id);
      return reply.code(204).send();
    },
  );

  app.patch(
    '/workspaces/:workspace_id/relationships/ssh-key',
    {
      schema: {
        summary: "Assign an SSH key to the workspace (attributes.id), or unassign it (attributes.id null): its runs' terraform init clones modules with it",
        tags,
        params: WorkspaceParams,
        body: AssignSshKeyBody,
        response: responses({ 200: WorkspaceDocument }),
      },
    },
    async (request) => {
      const base = await sshKeys.assign(request.caller, request.params.workspace_id, request.body.data.attributes?.id);
      return { data: workspaceResource(await deps.workspaceViews.one(base)) };
    },
  );
}

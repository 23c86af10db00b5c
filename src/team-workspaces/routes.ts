import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import {
  CreateTeamWorkspaceBody,
  ListTeamWorkspacesQuery,
  TeamWorkspaceDocument,
  TeamWorkspaceListDocument,
  TeamWorkspaceParams,
  UpdateTeamWorkspaceBody,
} from './schemas.ts';
import { teamWorkspaceResource } from './serialize.ts';
import type { TeamWorkspacesService } from './service.ts';

const tags = ['Team access to workspaces'];

type Attributes = NonNullable<Static<typeof UpdateTeamWorkspaceBody>['data']['attributes']>;

/** The custom permissions a body sets, field by field. */
const custom = (a: Attributes) => ({
  runs: a.runs,
  variables: a.variables,
  'state-versions': a['state-versions'],
  'sentinel-mocks': a['sentinel-mocks'],
  'workspace-locking': a['workspace-locking'],
  'run-tasks': a['run-tasks'],
});

export async function teamWorkspacesRoutes(app: Api, { teamWorkspaces }: { teamWorkspaces: TeamWorkspacesService }): Promise<void> {
  app.get(
    '/team-workspaces',
    {
      schema: {
        summary: "List teams' access to a workspace (filter[workspace][id] is required)",
        tags,
        querystring: ListTeamWorkspacesQuery,
        response: responses({ 200: TeamWorkspaceListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await teamWorkspaces.list(request.caller, { workspaceId: request.query['filter[workspace][id]'] }, page);
      return { data: items.map(teamWorkspaceResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // TFE answers 200 (go-tfe accepts any 2xx).
  app.post(
    '/team-workspaces',
    { schema: { summary: 'Give a team access to a workspace', tags, body: CreateTeamWorkspaceBody, response: responses({ 200: TeamWorkspaceDocument }) } },
    async (request) => {
      const { attributes: a, relationships: r } = request.body.data;
      const created = await teamWorkspaces.create(request.caller, {
        access: a.access,
        custom: custom(a),
        workspaceId: r.workspace.data.id,
        teamId: r.team.data.id,
      });
      return { data: teamWorkspaceResource(created) };
    },
  );

  app.get(
    '/team-workspaces/:team_workspace_id',
    { schema: { summary: "Show a team's access to a workspace", tags, params: TeamWorkspaceParams, response: responses({ 200: TeamWorkspaceDocument }) } },
    async (request) => {
      return { data: teamWorkspaceResource(await teamWorkspaces.show(request.caller, request.params.team_workspace_id)) };
    },
  );

  app.patch(
    '/team-workspaces/:team_workspace_id',
    {
      schema: {
        summary: "Change a team's access to a workspace",
        tags,
        params: TeamWorkspaceParams,
        body: UpdateTeamWorkspaceBody,
        response: responses({ 200: TeamWorkspaceDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const updated = await teamWorkspaces.update(request.caller, request.params.team_workspace_id, { access: a.access, custom: custom(a) });
      return { data: teamWorkspaceResource(updated) };
    },
  );

  app.delete(
    '/team-workspaces/:team_workspace_id',
    { schema: { summary: "Remove a team's access to a workspace", tags, params: TeamWorkspaceParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await teamWorkspaces.destroy(request.caller, request.params.team_workspace_id);
      return reply.code(204).send();
    },
  );
}

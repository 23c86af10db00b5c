import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import {
  CreateTeamProjectBody,
  ListTeamProjectsQuery,
  TeamProjectDocument,
  TeamProjectListDocument,
  TeamProjectParams,
  UpdateTeamProjectBody,
} from './schemas.ts';
import { teamProjectResource } from './serialize.ts';
import type { TeamProjectsService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

const tags = ['Team access to projects'];

export async function teamProjectsRoutes(app: Api, { teamProjects }: { teamProjects: TeamProjectsService }): Promise<void> {
  app.get(
    '/team-projects',
    {
      schema: {
        summary: "List teams' access to a project (filter[project][id] is required)",
        tags,
        querystring: ListTeamProjectsQuery,
        response: responses({ 200: TeamProjectListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { projectId: query['filter[project][id]'], teamId: query['filter[team][id]'] };
      const { items, total } = await teamProjects.list(request.caller, filter, page);
      return { data: items.map(teamProjectResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // 201 as in TFE's OpenAPI document (its prose says 200); go-tfe accepts any 2xx.
  app.post(
    '/team-projects',
    { schema: { summary: 'Give a team access to a project', tags, body: CreateTeamProjectBody, response: responses({ 201: TeamProjectDocument }) } },
    async (request, reply) => {
      const { attributes: a, relationships: r } = request.body.data;
      const created = await teamProjects.create(request.caller, {
        access: a.access,
        projectAccess: a['project-access'],
        workspaceAccess: a['workspace-access'],
        projectId: r.project.data.id,
        teamId: r.team.data.id,
      });
      return reply.code(201).send({ data: teamProjectResource(created) });
    },
  );

  app.get(
    '/team-projects/:team_project_id',
    { schema: { summary: "Show a team's access to a project", tags, params: TeamProjectParams, response: responses({ 200: TeamProjectDocument }) } },
    async (request) => {
      return { data: teamProjectResource(await teamProjects.show(request.caller, request.params.team_project_id)) };
    },
  );

  app.patch(
    '/team-projects/:team_project_id',
    {
      schema: {
        summary: "Change a team's access to a project",
        tags,
        params: TeamProjectParams,
        body: UpdateTeamProjectBody,
        response: responses({ 200: TeamProjectDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const updated = await teamProjects.update(request.caller, request.params.team_project_id, {
        access: a.access,
        projectAccess: a['project-access'],
        workspaceAccess: a['workspace-access'],
      });
      return { data: teamProjectResource(updated) };
    },
  );

  app.delete(
    '/team-projects/:team_project_id',
    { schema: { summary: "Remove a team's access to a project", tags, params: TeamProjectParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await teamProjects.destroy(request.caller, request.params.team_project_id);
      return reply.code(204).send();
    },
  );
}

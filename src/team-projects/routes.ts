import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { CreateTeamProjectBody, ListTeamProjectsQuery, TeamProjectParams, UpdateTeamProjectBody } from './schemas.ts';
import { teamProjectResource } from './serialize.ts';
import type { TeamProjectsService } from './service.ts';

export async function teamProjectsRoutes(app: Api, { teamProjects }: { teamProjects: TeamProjectsService }): Promise<void> {
  app.get('/team-projects', { schema: { querystring: ListTeamProjectsQuery } }, async (request) => {
    const query = request.query;
    const page = parsePage(query);
    const filter = { projectId: query['filter[project][id]'], teamId: query['filter[team][id]'] };
    const { items, total } = await teamProjects.list(request.caller, filter, page);
    return { data: items.map(teamProjectResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
  });

  // 201 as in TFE's OpenAPI document (its prose says 200); go-tfe accepts any 2xx.
  app.post('/team-projects', { schema: { body: CreateTeamProjectBody } }, async (request, reply) => {
    const { attributes: a, relationships: r } = request.body.data;
    const created = await teamProjects.create(request.caller, {
      access: a.access,
      projectAccess: a['project-access'],
      workspaceAccess: a['workspace-access'],
      projectId: r.project.data.id,
      teamId: r.team.data.id,
    });
    return reply.code(201).send({ data: teamProjectResource(created) });
  });

  app.get('/team-projects/:team_project_id', { schema: { params: TeamProjectParams } }, async (request) => {
    return { data: teamProjectResource(await teamProjects.show(request.caller, request.params.team_project_id)) };
  });

  app.patch('/team-projects/:team_project_id', { schema: { params: TeamProjectParams, body: UpdateTeamProjectBody } }, async (request) => {
    const a = request.body.data.attributes ?? {};
    const updated = await teamProjects.update(request.caller, request.params.team_project_id, {
      access: a.access,
      projectAccess: a['project-access'],
      workspaceAccess: a['workspace-access'],
    });
    return { data: teamProjectResource(updated) };
  });

  app.delete('/team-projects/:team_project_id', { schema: { params: TeamProjectParams } }, async (request, reply) => {
    await teamProjects.destroy(request.caller, request.params.team_project_id);
    return reply.code(204).send();
  });
}

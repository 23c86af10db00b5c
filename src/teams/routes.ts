import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { CreateTeamBody, ListTeamsQuery, TeamMembersBody, TeamParams, UpdateTeamBody } from './schemas.ts';
import { teamResource } from './serialize.ts';
import type { TeamsService } from './service.ts';

export async function teamsRoutes(app: Api, { teams }: { teams: TeamsService }): Promise<void> {
  app.get(
    '/organizations/:organization_name/teams',
    { schema: { params: OrganizationParams, querystring: ListTeamsQuery } },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { names: commaList(query['filter[names]']), search: query.q };
      const { items, total } = await teams.list(request.caller, request.params.organization_name, filter, page);
      return { data: items.map(teamResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // TFE answers a team create with 200, not 201 (its documentation and OpenAPI agree).
  app.post(
    '/organizations/:organization_name/teams',
    { schema: { params: OrganizationParams, body: CreateTeamBody } },
    async (request) => {
      const a = request.body.data.attributes;
      const view = await teams.create(request.caller, request.params.organization_name, {
        name: a.name,
        visibility: a.visibility,
        organizationAccess: a['organization-access'],
      });
      return { data: teamResource(view) };
    },
  );

  app.get('/teams/:team_id', { schema: { params: TeamParams } }, async (request) => {
    return { data: teamResource(await teams.show(request.caller, request.params.team_id)) };
  });

  app.patch('/teams/:team_id', { schema: { params: TeamParams, body: UpdateTeamBody } }, async (request) => {
    const a = request.body.data.attributes ?? {};
    const view = await teams.update(request.caller, request.params.team_id, {
      name: a.name,
      visibility: a.visibility,
      organizationAccess: a['organization-access'],
    });
    return { data: teamResource(view) };
  });

  app.delete('/teams/:team_id', { schema: { params: TeamParams } }, async (request, reply) => {
    await teams.destroy(request.caller, request.params.team_id);
    return reply.code(204).send();
  });

  app.post('/teams/:team_id/relationships/users', { schema: { params: TeamParams, body: TeamMembersBody } }, async (request, reply) => {
    await teams.addUsers(request.caller, request.params.team_id, request.body.data.map((d) => d.id));
    return reply.code(204).send();
  });

  app.delete('/teams/:team_id/relationships/users', { schema: { params: TeamParams, body: TeamMembersBody } }, async (request, reply) => {
    await teams.removeUsers(request.caller, request.params.team_id, request.body.data.map((d) => d.id));
    return reply.code(204).send();
  });
}

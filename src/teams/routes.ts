import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, includes } from '../jsonapi/query.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { CreateTeamBody, ListTeamsQuery, ShowTeamQuery, TeamDocument, TeamListDocument, TeamMembersBody, TeamParams, UpdateTeamBody } from './schemas.ts';
import { included, teamResource } from './serialize.ts';
import { TEAM_INCLUDES, type TeamInclude, type TeamInput, type TeamsDocument, type TeamsService, type TeamView } from './service.ts';
import type { Caller } from '../auth/caller.ts';
import { membershipResource } from '../organization-memberships/serialize.ts';
import type { OrganizationMembershipsService } from '../organization-memberships/service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

type Attributes = NonNullable<Static<typeof UpdateTeamBody>['data']['attributes']>;

/** The modelled attributes of a create or update body, one by one; everything else is ignored. */
const input = (a: Attributes): TeamInput => ({
  name: a.name,
  visibility: a.visibility,
  organizationAccess: a['organization-access'],
  ssoTeamId: a['sso-team-id'],
  allowMemberTokenManagement: a['allow-member-token-management'],
});

const teamIncludes = (value: string | undefined) => includes(value, TEAM_INCLUDES) as TeamInclude[];

const tags = ['Teams'];

/**
 * Teams as resources, with their `organization-memberships` (relationship and `included`) when
 * the request includes them: the memberships domain knows those.
 */
async function resources(
  caller: Caller,
  memberships: OrganizationMembershipsService,
  views: readonly TeamView[],
  include: readonly TeamInclude[],
  document: TeamsDocument<unknown>,
) {
  const base = included(document).included;
  if (!include.includes('organization-memberships')) {
    return { data: views.map((v) => teamResource(v)), ...(base ? { included: base } : {}) };
  }
  const linked = await memberships.ofTeams(
    caller,
    views.map((v) => ({ id: v.team.id, organizationId: v.team.organizationId, memberIds: v.memberIds })),
  );
  return {
    data: views.map((v) => teamResource(v, linked.byTeam.get(v.team.id) ?? [])),
    included: [...(base ?? []), ...linked.memberships.map(membershipResource)],
  };
}

export async function teamsRoutes(
  app: Api,
  { teams, organizationMemberships }: { teams: TeamsService; organizationMemberships: OrganizationMembershipsService },
): Promise<void> {
  app.get(
    '/organizations/:organization_name/teams',
    {
      schema: {
        summary: "List an organization's teams",
        tags,
        params: OrganizationParams,
        querystring: ListTeamsQuery,
        response: responses({ 200: TeamListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { names: commaList(query['filter[names]'], 'filter[names]'), search: query.q };
      const include = teamIncludes(query.include);
      const listed = await teams.list(request.caller, request.params.organization_name, filter, page, include);
      const shown = await resources(request.caller, organizationMemberships, listed.teams, include, listed);
      return { ...shown, ...envelope(absoluteUrl(request, app.config.baseUrl), page, listed.total) };
    },
  );

  // TFE answers a team create with 200, not 201 (its documentation and OpenAPI agree).
  app.post(
    '/organizations/:organization_name/teams',
    {
      schema: {
        summary: 'Create a team (answered 200, as TFE does)',
        tags,
        params: OrganizationParams,
        body: CreateTeamBody,
        response: responses({ 200: TeamDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes;
      const view = await teams.create(request.caller, request.params.organization_name, { ...input(a), name: a.name });
      return { data: teamResource(view) };
    },
  );

  app.get(
    '/teams/:team_id',
    { schema: { summary: 'Show a team', tags, params: TeamParams, querystring: ShowTeamQuery, response: responses({ 200: TeamDocument }) } },
    async (request) => {
      const include = teamIncludes(request.query.include);
      const shown = await teams.show(request.caller, request.params.team_id, include);
      const { data, ...rest } = await resources(request.caller, organizationMemberships, [shown.teams], include, shown);
      return { data: data[0]!, ...rest };
    },
  );

  app.patch(
    '/teams/:team_id',
    {
      schema: {
        summary: 'Update a team: name, visibility, organization access',
        tags,
        params: TeamParams,
        body: UpdateTeamBody,
        response: responses({ 200: TeamDocument }),
      },
    },
    async (request) => {
      const view = await teams.update(request.caller, request.params.team_id, input(request.body.data.attributes ?? {}));
      return { data: teamResource(view) };
    },
  );

  app.delete(
    '/teams/:team_id',
    { schema: { summary: 'Delete a team (not the owners team)', tags, params: TeamParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await teams.destroy(request.caller, request.params.team_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/teams/:team_id/relationships/users',
    {
      schema: { summary: 'Add users to a team (named by username)', tags, params: TeamParams, body: TeamMembersBody, response: responses({ 204: NoContent }) },
    },
    async (request, reply) => {
      await teams.addUsers(
        request.caller,
        request.params.team_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );

  app.delete(
    '/teams/:team_id/relationships/users',
    {
      schema: {
        summary: 'Remove users from a team (named by username)',
        tags,
        params: TeamParams,
        body: TeamMembersBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await teams.removeUsers(
        request.caller,
        request.params.team_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );
}

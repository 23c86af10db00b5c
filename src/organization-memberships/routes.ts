import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { commaList, includes } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { TeamParams } from '../teams/schemas.ts';
import {
  CreateMembershipBody,
  ListMembershipsQuery,
  MembershipDocument,
  MembershipListDocument,
  MembershipParams,
  OwnMembershipsDocument,
  ShowMembershipQuery,
  TeamMembershipsBody,
} from './schemas.ts';
import { included, membershipResource } from './serialize.ts';
import { MEMBERSHIP_INCLUDES, type MembershipInclude, type OrganizationMembershipsService } from './service.ts';

const membershipIncludes = (value: string | undefined) => includes(value, MEMBERSHIP_INCLUDES) as MembershipInclude[];

const tags = ['Organization memberships'];

export async function organizationMembershipsRoutes(
  app: Api,
  { organizationMemberships: memberships }: { organizationMemberships: OrganizationMembershipsService },
): Promise<void> {
  app.get(
    '/organizations/:organization_name/organization-memberships',
    {
      schema: {
        summary: "List an organization's members and invitations",
        tags,
        params: OrganizationParams,
        querystring: ListMembershipsQuery,
        response: responses({ 200: MembershipListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { emails: commaList(query['filter[email]'], 'filter[email]'), status: query['filter[status]'], search: query.q };
      const listed = await memberships.list(request.caller, request.params.organization_name, filter, page, membershipIncludes(query.include));
      return {
        data: listed.memberships.map(membershipResource),
        ...included(listed),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, listed.total),
      };
    },
  );

  app.post(
    '/organizations/:organization_name/organization-memberships',
    {
      schema: {
        summary: 'Invite someone to the organization by e-mail address, optionally onto teams',
        tags,
        params: OrganizationParams,
        body: CreateMembershipBody,
        response: responses({ 201: MembershipDocument }),
      },
    },
    async (request, reply) => {
      const data = request.body.data;
      const teamIds = (data.relationships?.teams?.data ?? []).map((t) => t.id);
      const invited = await memberships.invite(request.caller, request.params.organization_name, { email: data.attributes.email, teamIds });
      return reply.code(201).send({ data: membershipResource(invited.memberships), ...included(invited) });
    },
  );

  app.get(
    '/organization-memberships',
    {
      schema: {
        summary: "List the caller's own memberships and invitations, in every organization",
        tags,
        querystring: ShowMembershipQuery,
        response: responses({ 200: OwnMembershipsDocument }),
      },
    },
    async (request) => {
      const mine = await memberships.listOwn(request.caller, membershipIncludes(request.query.include));
      return { data: mine.memberships.map(membershipResource), ...included(mine) };
    },
  );

  app.get(
    '/organization-memberships/:membership_id',
    {
      schema: {
        summary: 'Show a membership',
        tags,
        params: MembershipParams,
        querystring: ShowMembershipQuery,
        response: responses({ 200: MembershipDocument }),
      },
    },
    async (request) => {
      const shown = await memberships.show(request.caller, request.params.membership_id, membershipIncludes(request.query.include));
      return { data: membershipResource(shown.memberships), ...included(shown) };
    },
  );

  app.post(
    '/organization-memberships/:membership_id/actions/accept',
    {
      schema: {
        summary: 'Accept an invitation (its invited user only): the membership becomes active and its teams joined',
        tags,
        params: MembershipParams,
        response: responses({ 200: MembershipDocument }),
      },
    },
    async (request) => {
      const accepted = await memberships.accept(request.caller, request.params.membership_id);
      return { data: membershipResource(accepted.memberships) };
    },
  );

  app.delete(
    '/organization-memberships/:membership_id',
    {
      schema: {
        summary: 'Remove a member from the organization and its teams (or withdraw an invitation, or leave)',
        tags,
        params: MembershipParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await memberships.destroy(request.caller, request.params.membership_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/teams/:team_id/relationships/organization-memberships',
    {
      schema: {
        summary: 'Add members to a team by organization membership (invited ones join when they accept)',
        tags,
        params: TeamParams,
        body: TeamMembershipsBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await memberships.addToTeam(
        request.caller,
        request.params.team_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );

  app.delete(
    '/teams/:team_id/relationships/organization-memberships',
    {
      schema: {
        summary: 'Remove members from a team by organization membership',
        tags,
        params: TeamParams,
        body: TeamMembershipsBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await memberships.removeFromTeam(
        request.caller,
        request.params.team_id,
        request.body.data.map((d) => d.id),
      );
      return reply.code(204).send();
    },
  );
}

import type { Static } from 'typebox';
import type { Caller } from '../auth/caller.ts';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import type { TeamsService } from '../teams/service.ts';
import { userResource } from '../users/serialize.ts';
import type { UsersService } from '../users/service.ts';
import { includes } from '../jsonapi/query.ts';
import {
  AdminOrganizationDocument,
  AdminOrganizationListDocument,
  AdminOrganizationParams,
  AdminOrganizationsQuery,
  CreateOrganizationBody,
  EntitlementSetDocument,
  ExecutionAttributes,
  ListOrganizationsQuery,
  OrganizationDocument,
  OrganizationListDocument,
  OrganizationParams,
  OrganizationRelationships,
  SettingsAttributes,
  UpdateOrganizationBody,
} from './schemas.ts';
import { adminOrganizationResource, entitlementSetResource, organizationResource } from './serialize.ts';
import type { OrganizationInput, OrganizationsService } from './service.ts';
import type { Organization } from './store.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

/** The settings a create or update body sends, member by member. */
function settingsOf(a: Static<typeof SettingsAttributes>): OrganizationInput {
  return {
    sessionTimeout: a['session-timeout'],
    sessionRemember: a['session-remember'],
    collaboratorAuthPolicy: a['collaborator-auth-policy'],
    costEstimationEnabled: a['cost-estimation-enabled'],
    sendPassingStatusesForUntriggeredSpeculativePlans: a['send-passing-statuses-for-untriggered-speculative-plans'],
    assessmentsEnforced: a['assessments-enforced'],
    allowForceDeleteWorkspaces: a['allow-force-delete-workspaces'],
    aggregatedCommitStatusEnabled: a['aggregated-commit-status-enabled'],
    speculativePlanManagementEnabled: a['speculative-plan-management-enabled'],
    ownersTeamSamlRoleId: a['owners-team-saml-role-id'],
  };
}

/** The default execution mode and agent pool a body sends; the relationship wins over the attribute. */
function executionOf(a: Static<typeof ExecutionAttributes>, body: Static<typeof OrganizationRelationships>): OrganizationInput {
  const relationship = body.relationships?.['default-agent-pool'];
  const pool =
    relationship !== undefined
      ? { id: relationship.data?.id ?? null, pointer: '/data/relationships/default-agent-pool/data' }
      : a['default-agent-pool-id'] !== undefined
        ? { id: a['default-agent-pool-id'], pointer: '/data/attributes/default-agent-pool-id' }
        : undefined;
  return { defaultExecutionMode: a['default-execution-mode'], defaultAgentPool: pool };
}

const tags = ['Organizations'];

export async function organizationsRoutes(app: Api, { organizations }: { organizations: OrganizationsService }): Promise<void> {
  app.get(
    '/organizations',
    { schema: { summary: 'List organizations', tags, querystring: ListOrganizationsQuery, response: responses({ 200: OrganizationListDocument }) } },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const search = { search: query.q || undefined, name: query['q[name]'] || undefined, email: query['q[email]'] || undefined };
      const { items, total } = await organizations.list(request.caller, search, page);
      return { data: items.map(organizationResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.post(
    '/organizations',
    {
      schema: {
        summary: 'Create an organization (the caller owns it)',
        tags,
        body: CreateOrganizationBody,
        response: responses({ 201: OrganizationDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const view = await organizations.create(request.caller, { ...settingsOf(a), ...executionOf(a, request.body.data), name: a.name, email: a.email });
      return reply.code(201).send({ data: organizationResource(view) });
    },
  );

  app.get(
    '/organizations/:organization_name',
    { schema: { summary: 'Show an organization', tags, params: OrganizationParams, response: responses({ 200: OrganizationDocument }) } },
    async (request) => {
      return { data: organizationResource(await organizations.show(request.caller, request.params.organization_name)) };
    },
  );

  app.get(
    '/organizations/:organization_name/entitlement-set',
    { schema: { summary: "Show an organization's entitlements", tags, params: OrganizationParams, response: responses({ 200: EntitlementSetDocument }) } },
    async (request) => {
      return { data: entitlementSetResource(await organizations.show(request.caller, request.params.organization_name)) };
    },
  );

  app.patch(
    '/organizations/:organization_name',
    {
      schema: {
        summary: 'Update an organization (name, e-mail address, settings)',
        tags,
        params: OrganizationParams,
        body: UpdateOrganizationBody,
        response: responses({ 200: OrganizationDocument }),
      },
    },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      const view = await organizations.update(request.caller, request.params.organization_name, {
        ...settingsOf(a),
        ...executionOf(a, request.body.data),
        name: a.name,
        email: a.email,
      });
      return { data: organizationResource(view) };
    },
  );

  app.delete(
    '/organizations/:organization_name',
    { schema: { summary: 'Delete an organization and everything in it', tags, params: OrganizationParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await organizations.destroy(request.caller, request.params.organization_name);
      return reply.code(204).send();
    },
  );
}

/**
 * TFE's admin API for organizations (site admins; to anyone else it does not exist): every
 * organization listed, shown and deleted, with its owners. What TFE's admin update changes
 * (beta tools, module consumers, disabling, per-organization timeouts) Hangar does not have, so
 * there is no update.
 */
export async function adminOrganizationsRoutes(
  app: Api,
  { organizations, teams, users }: { organizations: OrganizationsService; teams: TeamsService; users: UsersService },
): Promise<void> {
  const runTimeoutSeconds = app.config.runTimeoutMs / 1000;
  const adminTags = ['Organizations (site admins)'];
  /** The page's resources with their owners, and the owners themselves when asked: two queries. */
  async function documentOf(caller: Caller, orgs: readonly Organization[], include: string | undefined) {
    const wanted = includes(include, ['owners']);
    const owners = await teams.ownersOf(orgs.map((o) => o.id));
    const data = orgs.map((o) => adminOrganizationResource(o, owners.get(o.id) ?? [], runTimeoutSeconds));
    if (!wanted.includes('owners')) return { data };
    const ids = [...new Set([...owners.values()].flat())];
    return { data, included: (await users.adminViews(caller, ids)).map(userResource) };
  }

  app.get(
    '/admin/organizations',
    {
      schema: {
        summary: 'List every organization (site admins)',
        tags: adminTags,
        querystring: AdminOrganizationsQuery,
        response: responses({ 200: AdminOrganizationListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await organizations.adminList(request.caller, request.query.q || undefined, page);
      return { ...(await documentOf(request.caller, items, request.query.include)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get(
    '/admin/organizations/:organization_name',
    {
      schema: {
        summary: 'Show any organization (site admins)',
        tags: adminTags,
        params: AdminOrganizationParams,
        response: responses({ 200: AdminOrganizationDocument }),
      },
    },
    async (request) => {
      const { data } = await documentOf(request.caller, [await organizations.adminShow(request.caller, request.params.organization_name)], undefined);
      return { data: data[0] };
    },
  );

  app.delete(
    '/admin/organizations/:organization_name',
    {
      schema: {
        summary: 'Delete any organization and everything in it (site admins)',
        tags: adminTags,
        params: AdminOrganizationParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await organizations.adminDestroy(request.caller, request.params.organization_name);
      return reply.code(204).send();
    },
  );
}

import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage, type Page } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { TeamParams } from '../teams/schemas.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import {
  ListNotificationConfigurationsQuery,
  NotificationConfigurationBody,
  NotificationConfigurationDocument,
  NotificationConfigurationListDocument,
  NotificationConfigurationParams,
} from './schemas.ts';
import { notificationConfigurationResource } from './serialize.ts';
import { MAX_PER_SUBSCRIBABLE, type ConfigurationInput, type ConfigurationView, type NotificationConfigurationsService } from './service.ts';

const tags = ['Notification configurations'];

/** The body, member by member: attributes and relationships Hangar does not model are left behind. */
function inputOf(body: Static<typeof NotificationConfigurationBody>): ConfigurationInput {
  const a = body.data.attributes ?? {};
  const users = body.data.relationships?.users?.data.map((u) => u.id);
  return {
    name: a.name,
    destinationType: a['destination-type'],
    enabled: a.enabled,
    url: a.url,
    token: a.token,
    triggers: a.triggers,
    emailAddresses: a['email-addresses'],
    // Absent users are none: TFE replaces them on every update (go-tfe's tests expect none after an update naming none).
    emailUserIds: users ?? [],
  };
}

export async function notificationConfigurationsRoutes(
  app: Api,
  { notificationConfigurations }: { notificationConfigurations: NotificationConfigurationsService },
): Promise<void> {
  // go-tfe reads a list without page parameters as having no pagination (current page 0).
  const listed = async (
    request: { query: Static<typeof ListNotificationConfigurationsQuery> } & Parameters<typeof absoluteUrl>[0],
    list: (page: Page | null) => Promise<{ items: ConfigurationView[]; total: number }>,
  ) => {
    const page = wantsPage(request.query) ? parsePage(request.query) : null;
    const { items, total } = await list(page);
    const data = items.map(notificationConfigurationResource);
    return page ? { data, ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) } : { data };
  };

  app.get(
    '/workspaces/:workspace_id/notification-configurations',
    {
      schema: {
        summary: "List a workspace's notification configurations (unpaginated unless a page is asked for)",
        tags,
        params: WorkspaceParams,
        querystring: ListNotificationConfigurationsQuery,
        response: responses({ 200: NotificationConfigurationListDocument }),
      },
    },
    (request) => listed(request, (page) => notificationConfigurations.listOfWorkspace(request.caller, request.params.workspace_id, page)),
  );

  app.get(
    '/teams/:team_id/notification-configurations',
    {
      schema: {
        summary: "List a team's notification configurations (unpaginated unless a page is asked for)",
        tags,
        params: TeamParams,
        querystring: ListNotificationConfigurationsQuery,
        response: responses({ 200: NotificationConfigurationListDocument }),
      },
    },
    (request) => listed(request, (page) => notificationConfigurations.listOfTeam(request.caller, request.params.team_id, page)),
  );

  app.post(
    '/workspaces/:workspace_id/notification-configurations',
    {
      schema: {
        summary: `Create a notification configuration of a workspace (at most ${MAX_PER_SUBSCRIBABLE}; the token is never shown)`,
        tags,
        params: WorkspaceParams,
        body: NotificationConfigurationBody,
        response: responses({ 201: NotificationConfigurationDocument }),
      },
    },
    async (request, reply) => {
      const view = await notificationConfigurations.createForWorkspace(request.caller, request.params.workspace_id, inputOf(request.body));
      return reply.code(201).send({ data: notificationConfigurationResource(view) });
    },
  );

  app.post(
    '/teams/:team_id/notification-configurations',
    {
      schema: {
        summary: `Create a notification configuration of a team (at most ${MAX_PER_SUBSCRIBABLE}; the token is never shown)`,
        tags,
        params: TeamParams,
        body: NotificationConfigurationBody,
        response: responses({ 201: NotificationConfigurationDocument }),
      },
    },
    async (request, reply) => {
      const view = await notificationConfigurations.createForTeam(request.caller, request.params.team_id, inputOf(request.body));
      return reply.code(201).send({ data: notificationConfigurationResource(view) });
    },
  );

  app.get(
    '/notification-configurations/:notification_configuration_id',
    {
      schema: {
        summary: 'Show a notification configuration',
        tags,
        params: NotificationConfigurationParams,
        response: responses({ 200: NotificationConfigurationDocument }),
      },
    },
    async (request) => ({
      data: notificationConfigurationResource(await notificationConfigurations.show(request.caller, request.params.notification_configuration_id)),
    }),
  );

  app.patch(
    '/notification-configurations/:notification_configuration_id',
    {
      schema: {
        summary: 'Update a notification configuration (an update without users leaves it with none, as TFE)',
        tags,
        params: NotificationConfigurationParams,
        body: NotificationConfigurationBody,
        response: responses({ 200: NotificationConfigurationDocument }),
      },
    },
    async (request) => {
      const view = await notificationConfigurations.update(request.caller, request.params.notification_configuration_id, inputOf(request.body));
      return { data: notificationConfigurationResource(view) };
    },
  );

  app.delete(
    '/notification-configurations/:notification_configuration_id',
    {
      schema: { summary: 'Delete a notification configuration', tags, params: NotificationConfigurationParams, response: responses({ 204: NoContent }) },
    },
    async (request, reply) => {
      await notificationConfigurations.destroy(request.caller, request.params.notification_configuration_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/notification-configurations/:notification_configuration_id/actions/verify',
    {
      schema: {
        summary: 'Send a verification notification now; the answer holds its delivery response',
        tags,
        params: NotificationConfigurationParams,
        response: responses({ 200: NotificationConfigurationDocument }),
      },
    },
    async (request) => ({
      data: notificationConfigurationResource(await notificationConfigurations.verify(request.caller, request.params.notification_configuration_id)),
    }),
  );
}

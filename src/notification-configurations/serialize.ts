import { toOne } from '../jsonapi/relationships.ts';
import type { ConfigurationView } from './service.ts';

export function notificationConfigurationResource(v: ConfigurationView) {
  const c = v.configuration;
  return {
    id: c.id,
    type: 'notification-configurations',
    attributes: {
      name: c.name,
      'destination-type': c.destinationType,
      enabled: c.enabled,
      url: c.url,
      triggers: c.triggers,
      'email-addresses': c.emailAddresses,
      'delivery-responses': v.responses.map((r) => ({
        url: r.url,
        body: r.body,
        code: r.code,
        headers: r.headers,
        'sent-at': r.createdAt,
        successful: String(r.successful),
      })),
      'created-at': c.createdAt,
      'updated-at': c.updatedAt,
    },
    relationships: {
      subscribable: c.workspaceId ? toOne('workspaces', c.workspaceId) : toOne('teams', c.teamId!),
      users: { data: v.userIds.map((id) => ({ id, type: 'users' })) },
    },
    links: { self: `/api/v2/notification-configurations/${c.id}` },
  };
}

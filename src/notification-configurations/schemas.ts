import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Open, Resource, StringOrNull, Timestamp, ToMany } from '../jsonapi/schemas.ts';

export const NotificationConfigurationParams = Type.Object({ notification_configuration_id: Type.String() });

/** Unpaginated (every configuration: at most 20) unless a page is asked for, as go-tfe expects. */
export const ListNotificationConfigurationsQuery = Type.Object({ ...PageParams });

// Values are checked by the service after the caller is authorized (values.ts); the schema holds
// only types and sizes. The subscribable go-tfe sends is the path's workspace, and is not read.
const Attributes = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  'destination-type': Type.Optional(Type.String({ maxLength: 64 })),
  enabled: Type.Optional(Type.Boolean()),
  url: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  token: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  triggers: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  'email-addresses': Type.Optional(Type.Array(Type.String({ maxLength: 320 }), { maxItems: 100 })),
});

const Relationships = Type.Object({
  users: Type.Optional(
    Type.Object({
      data: Type.Array(Type.Object({ type: Type.Optional(Type.String()), id: Type.String({ minLength: 1, maxLength: 64 }) }), { maxItems: 100 }),
    }),
  ),
});

export const NotificationConfigurationBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.Literal('notification-configurations')),
    attributes: Type.Optional(Attributes),
    relationships: Type.Optional(Relationships),
  }),
});

// ---- responses

const DeliveryResponse = Open({
  url: Type.String(),
  body: Type.String(),
  code: Type.String({ description: "The receiver's HTTP status, empty when there was no answer" }),
  headers: Type.Record(Type.String(), Type.Array(Type.String())),
  'sent-at': Timestamp,
  successful: Type.String({ enum: ['true', 'false'], description: 'A string, as TFE (and go-tfe) have it' }),
});

export const NotificationConfigurationResource = Resource('NotificationConfiguration', 'notification-configurations', {
  description: 'The token is write-only: never part of any answer',
  attributes: {
    name: Type.String(),
    'destination-type': Type.String({ enum: ['generic', 'email', 'slack', 'microsoft-teams'] }),
    enabled: Type.Boolean(),
    url: StringOrNull(),
    triggers: Type.Array(Type.String()),
    'email-addresses': Type.Array(Type.String()),
    'delivery-responses': Type.Array(DeliveryResponse, { description: 'The newest outcomes first, at most 10' }),
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: {
    subscribable: Open({
      data: Open({ id: Type.String(), type: Type.String({ enum: ['workspaces', 'teams'] }) }),
      links: Open({ related: Type.String() }),
    }),
    users: ToMany('users'),
  },
});

export const NotificationConfigurationDocument = Document(NotificationConfigurationResource, 'The notification configuration');
export const NotificationConfigurationListDocument = ListDocument(
  NotificationConfigurationResource,
  "The workspace's notification configurations, in creation order",
  {
    paginated: 'when-asked',
  },
);

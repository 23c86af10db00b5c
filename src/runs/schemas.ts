import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { AlwaysNull, Document, Flags, ListDocument, Open, Resource, Timestamp, ToOne, ToOneOrNone } from '../jsonapi/schemas.ts';

export const RunParams = Type.Object({ run_id: Type.String() });
export const ListRunsQuery = Type.Object({ ...PageParams });

const Ref = (type: string) => Type.Object({ data: Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 64 }) }) });

/** The run options Hangar records; the others (targets, variables, …) are accepted and ignored. */
export const CreateRunBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('runs'),
    attributes: Type.Optional(
      Type.Object({
        message: Type.Optional(Type.String({ maxLength: 1000 })),
        'is-destroy': Type.Optional(Type.Boolean()),
        refresh: Type.Optional(Type.Boolean()),
        'refresh-only': Type.Optional(Type.Boolean()),
        'plan-only': Type.Optional(Type.Boolean()),
        'auto-apply': Type.Optional(Type.Boolean()),
      }),
    ),
    relationships: Type.Object({
      workspace: Ref('workspaces'),
      'configuration-version': Type.Optional(Ref('configuration-versions')),
    }),
  }),
});

export const RunResource = Resource('Run', 'runs', {
  description: 'A run. Hangar executes nothing: a run waits (`pending`, holding its workspace lock) until it is discarded or canceled.',
  attributes: {
    actions: Flags(['is-cancelable', 'is-confirmable', 'is-discardable', 'is-force-cancelable']),
    'allow-empty-apply': Type.Boolean(),
    'auto-apply': Type.Boolean(),
    'created-at': Timestamp,
    'has-changes': Type.Boolean(),
    'is-destroy': Type.Boolean(),
    message: Type.String(),
    permissions: Flags(['can-apply', 'can-cancel', 'can-discard', 'can-force-cancel', 'can-force-execute']),
    'plan-only': Type.Boolean(),
    'position-in-queue': Type.Integer(),
    refresh: Type.Boolean(),
    'refresh-only': Type.Boolean(),
    source: Type.String(),
    status: Type.Unsafe<string>(Type.Enum(['pending', 'discarded', 'canceled'])),
    'status-timestamps': Open({ 'discarded-at': Type.Optional(Timestamp), 'canceled-at': Type.Optional(Timestamp) }),
    'terraform-version': AlwaysNull('Hangar runs no Terraform'),
    variables: Type.Array(Type.Unknown(), { maxItems: 0 }),
  },
  relationships: {
    workspace: ToOne('workspaces'),
    'configuration-version': ToOne('configuration-versions'),
    'created-by': Type.Union([ToOne('users'), ToOneOrNone('users')]),
  },
});

export const RunDocument = Document(RunResource, 'The run');
export const RunListDocument = ListDocument(RunResource, "A page of the workspace's runs, newest first");

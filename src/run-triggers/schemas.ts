import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Resource, Timestamp, ToOne } from '../jsonapi/schemas.ts';
import { WorkspaceResource } from '../workspaces/schemas.ts';

export const RunTriggerParams = Type.Object({ run_trigger_id: Type.String() });

const INCLUDES = 'Comma-separated: workspace, sourceable (outbound lists include nothing, as TFE)';

export const ListRunTriggersQuery = Type.Object({
  ...PageParams,
  // TFE answers 400 when it is missing or neither value.
  'filter[run-trigger][type]': Type.Unsafe<'inbound' | 'outbound'>(Type.Enum(['inbound', 'outbound'], { description: 'inbound or outbound' })),
  include: Type.Optional(Type.String({ description: INCLUDES })),
});

export const ShowRunTriggerQuery = Type.Object({ include: Type.Optional(Type.String({ description: INCLUDES })) });

/** Only the source is read; the sourceable may be left out (422 with a pointer, not a schema error). */
export const CreateRunTriggerBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String()),
    relationships: Type.Optional(
      Type.Object({
        sourceable: Type.Optional(
          Type.Object({
            data: Type.Union([Type.Object({ type: Type.Optional(Type.Literal('workspaces')), id: Type.String({ minLength: 1, maxLength: 64 }) }), Type.Null()]),
          }),
        ),
      }),
    ),
  }),
});

export const RunTriggerResource = Resource('RunTrigger', 'run-triggers', {
  attributes: {
    'workspace-name': Type.String(),
    'sourceable-name': Type.String(),
    'created-at': Timestamp,
  },
  relationships: { workspace: ToOne('workspaces'), sourceable: ToOne('workspaces') },
});

export const RunTriggerDocument = Document(RunTriggerResource, 'The run trigger', WorkspaceResource);
export const RunTriggerListDocument = ListDocument(RunTriggerResource, "A page of the workspace's run triggers, in creation order", {
  included: WorkspaceResource,
});

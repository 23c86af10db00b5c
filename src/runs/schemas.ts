import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';

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

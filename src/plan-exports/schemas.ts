import { Type } from 'typebox';
import { Document, Resource, Timestamp, ToOne } from '../jsonapi/schemas.ts';

export const PlanExportParams = Type.Object({ plan_export_id: Type.String() });

/** The data type and the plan are checked by the service (422 with a pointer, not a schema error). */
export const CreatePlanExportBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Object({ 'data-type': Type.Optional(Type.String({ maxLength: 64 })) })),
    relationships: Type.Optional(
      Type.Object({
        plan: Type.Optional(
          Type.Object({
            data: Type.Union([Type.Object({ type: Type.Optional(Type.Literal('plans')), id: Type.String({ minLength: 1, maxLength: 64 }) }), Type.Null()]),
          }),
        ),
      }),
    ),
  }),
});

export const PlanExportResource = Resource('PlanExport', 'plan-exports', {
  attributes: {
    'data-type': Type.String({ description: 'sentinel-mock-bundle-v0' }),
    status: Type.String({ description: 'finished, or expired an hour after it finished' }),
    'status-timestamps': Type.Record(Type.String(), Timestamp),
  },
  relationships: { plan: ToOne('plans') },
  links: { download: Type.String({ description: 'Where the bundle is downloaded (with the token)' }) },
});

export const PlanExportDocument = Document(PlanExportResource, 'The plan export');

export const Archive = Type.Unsafe<unknown>({
  type: 'string',
  format: 'binary',
  description: 'A .tar.gz of the Sentinel mocks and a sentinel.hcl naming them',
});

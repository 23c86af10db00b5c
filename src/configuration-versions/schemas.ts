import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';

export const ConfigurationVersionParams = Type.Object({ configuration_version_id: Type.String() });
export const UploadParams = Type.Object({ secret: Type.String({ maxLength: 64 }) });
export const ListConfigurationVersionsQuery = Type.Object({ ...PageParams });

/** go-tfe sends its create options with attributes only; the body may be `{"data":{"type":...}}`. */
export const CreateConfigurationVersionBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('configuration-versions'),
    attributes: Type.Optional(
      Type.Object({
        'auto-queue-runs': Type.Optional(Type.Boolean()),
        speculative: Type.Optional(Type.Boolean()),
        provisional: Type.Optional(Type.Boolean()),
      }),
    ),
  }),
});

import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Required } from '../jsonapi/query.ts';

export const StateVersionParams = Type.Object({ state_version_id: Type.String() });
export const OutputParams = Type.Object({ state_version_output_id: Type.String() });
export const UploadParams = Type.Object({ state_version_id: Type.String(), kind: Type.Union([Type.Literal('state'), Type.Literal('json-state')]) });
export const UploadQuery = Type.Object({ expires: Required, signature: Required });

/** go-tfe's include values for state versions; only `outputs` adds anything. */
export const STATE_VERSION_INCLUDES = ['outputs', 'created_by', 'run', 'run.created_by', 'run.configuration_version'] as const;
export const IncludeQuery = Type.Object({ include: Type.Optional(Type.String()) });

export const ListStateVersionsQuery = Type.Object({
  ...PageParams,
  'filter[workspace][name]': Required,
  'filter[organization][name]': Required,
});
export const OutputsQuery = Type.Object({ ...PageParams });

/**
 * What a client sends to create a state version. go-tfe sends `run` as a relationship and, for
 * older servers, `state`; Terraform also sends `json-state-outputs`, which Hangar does not need
 * (the outputs come from the state itself) and ignores.
 */
export const CreateStateVersionBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.String()),
    attributes: Type.Object({
      serial: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      md5: Type.String(),
      lineage: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
      state: Type.Optional(Type.String()),
      'json-state': Type.Optional(Type.String()),
      force: Type.Optional(Type.Boolean()),
    }),
  }),
});

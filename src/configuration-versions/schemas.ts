import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { AlwaysNull, Document, ListDocument, Open, Resource, StringOrNull, Timestamp, ToOne } from '../jsonapi/schemas.ts';

export const ConfigurationVersionParams = Type.Object({ configuration_version_id: Type.String() });
/** The last segment of an upload URL, `<version id>.<credential>` (about 80 characters). */
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

export const ConfigurationVersionResource = Resource('ConfigurationVersion', 'configuration-versions', {
  attributes: {
    'auto-queue-runs': Type.Boolean(),
    error: AlwaysNull('Hangar unpacks nothing, so no upload errs'),
    'error-message': AlwaysNull('Hangar unpacks nothing, so no upload errs'),
    source: Type.String(),
    speculative: Type.Boolean(),
    provisional: Type.Boolean(),
    status: Type.Unsafe<string>(Type.Enum(['pending', 'uploaded', 'errored', 'archived'])),
    'status-timestamps': Open({ 'uploaded-at': Type.Optional(Timestamp), 'archived-at': Type.Optional(Timestamp) }),
    'upload-url': StringOrNull({ description: 'where to PUT the tarball, with no token: only in the answer that creates the version, null ever after' }),
    'created-at': Timestamp,
  },
  relationships: {
    workspace: ToOne('workspaces'),
    'ingress-attributes': Open({ data: Type.Null() }),
  },
});

export const ConfigurationVersionDocument = Document(ConfigurationVersionResource, 'The configuration version');
export const ConfigurationVersionListDocument = ListDocument(ConfigurationVersionResource, "A page of the workspace's configuration versions, newest first");

export const Archive = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The tar.gz as uploaded' });

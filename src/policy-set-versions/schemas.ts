import { Type } from 'typebox';
import { AlwaysNull, Document, Open, Resource, StringOrNull, Timestamp, ToOne } from '../jsonapi/schemas.ts';

export const PolicySetVersionParams = Type.Object({ policy_set_version_id: Type.String() });
/** The last segment of an upload URL, `<version id>.<credential>` (about 90 characters). */

export const PolicySetVersionResource = Resource('PolicySetVersion', 'policy-set-versions', {
  attributes: {
    source: Type.String({ description: '`tfe-api`: uploaded through the API' }),
    status: Type.Unsafe<string>(Type.Enum(['pending', 'ready', 'errored'])),
    'status-timestamps': Open({ 'pending-at': Type.Optional(Timestamp), 'ready-at': Type.Optional(Timestamp), 'errored-at': Type.Optional(Timestamp) }),
    error: StringOrNull({ description: 'why the upload was refused, when errored' }),
    'error-message': StringOrNull(),
    'ingress-attributes': AlwaysNull('Hangar ingresses no VCS repositories'),
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: {
    'policy-set': ToOne('policy-sets'),
  },
  links: { upload: Type.Optional(Type.String({ description: 'where to PUT the tar.gz, with no token: while pending, for a caller who may upload' })) },
});

export const PolicySetVersionDocument = Document(PolicySetVersionResource, 'The policy set version');

import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Resource, Timestamp, ToOne } from '../jsonapi/schemas.ts';

export const SshKeyParams = Type.Object({ ssh_key_id: Type.String() });

export const ListSshKeysQuery = Type.Object({ ...PageParams });

const Name = Type.String({ maxLength: 255 });
// The value's own limit (values.ts) is checked by the service, which answers it at its pointer
// after the caller is authorized; the schema only bounds what is parsed at all.
const Value = Type.String({ maxLength: 1024 * 1024 });

/** Name and value are required, but checked by the service: missing ones are 422s at their pointers. */
export const CreateSshKeyBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.Literal('ssh-keys')),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), value: Type.Optional(Value) })),
  }),
});

/** go-tfe sends the name only; a new value (a rotated key) is taken too, as TFE's documentation has it. */
export const UpdateSshKeyBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.Literal('ssh-keys')),
    id: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), value: Type.Optional(Value) })),
  }),
});

/** go-tfe's AssignSSHKey sends `attributes.id`; UnassignSSHKey sends it null. */
export const AssignSshKeyBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.Literal('workspaces')),
    attributes: Type.Optional(Type.Object({ id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])) })),
  }),
});

// ---- responses

export const SshKeyResource = Resource('SshKey', 'ssh-keys', {
  attributes: {
    name: Type.String(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: { organization: ToOne('organizations') },
  description: 'The private key itself is write-only: no response ever holds it',
});

export const SshKeyDocument = Document(SshKeyResource, 'The SSH key (its name; never its value)');
export const SshKeyListDocument = ListDocument(SshKeyResource, "A page of the organization's SSH keys, in creation order");

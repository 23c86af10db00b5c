import { toOne } from '../jsonapi/relationships.ts';
import type { SshKeyView } from './service.ts';

/** Never the value: the type has none to give. */
export function sshKeyResource({ key: k, organizationName }: SshKeyView) {
  return {
    id: k.id,
    type: 'ssh-keys',
    attributes: { name: k.name, 'created-at': k.createdAt, 'updated-at': k.updatedAt },
    relationships: { organization: toOne('organizations', organizationName) },
    links: { self: `/api/v2/ssh-keys/${k.id}` },
  };
}

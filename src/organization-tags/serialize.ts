import { toOne } from '../jsonapi/relationships.ts';
import type { OrganizationTagView } from './service.ts';

export function organizationTagResource(t: OrganizationTagView) {
  return {
    id: t.id,
    type: 'tags',
    attributes: { name: t.name, 'instance-count': t.instanceCount, 'created-at': t.createdAt },
    relationships: { organization: toOne('organizations', t.organizationName) },
  };
}

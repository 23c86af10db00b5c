import { toOne } from '../jsonapi/relationships.ts';
import type { Variable } from './service.ts';

/** A workspace's variable (`configurable`) or a variable set's (`varset`), as TFE shows each. */
export function variableResource(v: Variable) {
  const owner =
    v.workspaceId !== null
      ? { relationships: { configurable: toOne('workspaces', v.workspaceId) }, self: `/api/v2/workspaces/${v.workspaceId}/vars/${v.id}` }
      : { relationships: { varset: toOne('varsets', v.setId!) }, self: `/api/v2/varsets/${v.setId}/relationships/vars/${v.id}` };
  return {
    id: v.id,
    type: 'vars',
    attributes: {
      key: v.key,
      // Belt and braces: a sensitive value never leaves, whatever the caller put in `value`.
      value: v.sensitive ? null : v.value,
      description: v.description,
      category: v.category,
      hcl: v.hcl,
      sensitive: v.sensitive,
      'version-id': v.versionId,
    },
    relationships: owner.relationships,
    links: { self: owner.self },
  };
}

import { toOne } from '../jsonapi/relationships.ts';
import type { Parameter } from './service.ts';

export function parameterResource(p: Parameter) {
  const setPath = `/api/v2/policy-sets/${p.policySetId}`;
  return {
    id: p.id,
    type: 'vars',
    attributes: {
      key: p.key,
      // Belt and braces: a sensitive value never leaves, whatever the caller put in `value`.
      value: p.sensitive ? null : p.value,
      category: p.category,
      sensitive: p.sensitive,
    },
    relationships: {
      configurable: toOne('policy-sets', p.policySetId),
    },
    links: { self: `${setPath}/parameters/${p.id}` },
  };
}

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
      configurable: { data: { id: p.policySetId, type: 'policy-sets' }, links: { related: setPath } },
    },
    links: { self: `${setPath}/parameters/${p.id}` },
  };
}

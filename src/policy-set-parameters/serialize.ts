import { toOne } from '../jsonapi/relationships.ts';
import type { Parameter } from './service.ts';

/** `configurable`: the set's relationship, when the caller has it already (a list's parameters share one). */
export function parameterResource(p: Parameter, configurable = toOne('policy-sets', p.policySetId)) {
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
    relationships: { configurable },
    links: { self: `/api/v2/policy-sets/${p.policySetId}/parameters/${p.id}` },
  };
}

/** A list's parameters, all of one set: its relationship built once, shared by every resource. */
export function parameterResources(items: readonly Parameter[]) {
  const setId = items[0]?.policySetId;
  if (setId === undefined) return [];
  const configurable = toOne('policy-sets', setId);
  return items.map((p) => parameterResource(p, p.policySetId === setId ? configurable : undefined));
}

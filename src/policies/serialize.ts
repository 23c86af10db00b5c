import { toOne } from '../jsonapi/relationships.ts';
import { enforcePathOf, type PolicyView } from './service.ts';

export function policyResource({ policy, organizationName, policySetIds }: PolicyView) {
  const self = `/api/v2/policies/${policy.id}`;
  return {
    id: policy.id,
    type: 'policies',
    attributes: {
      name: policy.name,
      description: policy.description,
      kind: policy.kind,
      query: policy.query,
      // TFE lists the policy's file here only once there is one.
      enforce: policy.hasSource ? [{ path: enforcePathOf(policy), mode: policy.enforcementLevel }] : [],
      'enforcement-level': policy.enforcementLevel,
      'policy-set-count': policySetIds.length,
      'created-at': policy.createdAt,
      'updated-at': policy.updatedAt,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      'policy-sets': { data: policySetIds.map((id) => ({ id, type: 'policy-sets' })) },
    },
    links: { self, upload: `${self}/upload`, download: `${self}/download` },
  };
}

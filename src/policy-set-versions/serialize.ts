import { toOne } from '../jsonapi/relationships.ts';
import type { PolicySetVersion } from './service.ts';

/** A `policy-set-versions` resource; `uploadUrl` only where the service handed out an upload link. */
export function policySetVersionResource(v: PolicySetVersion, uploadUrl: string | null = null) {
  const self = `/api/v2/policy-set-versions/${v.id}`;
  return {
    id: v.id,
    type: 'policy-set-versions',
    attributes: {
      source: v.source,
      status: v.status,
      'status-timestamps': {
        'pending-at': v.createdAt,
        ...(v.readyAt ? { 'ready-at': v.readyAt } : {}),
        ...(v.erroredAt ? { 'errored-at': v.erroredAt } : {}),
      },
      error: v.error,
      'error-message': v.error,
      'ingress-attributes': null,
      'created-at': v.createdAt,
      'updated-at': v.updatedAt,
    },
    relationships: {
      'policy-set': toOne('policy-sets', v.policySetId),
    },
    links: { self, ...(uploadUrl ? { upload: uploadUrl } : {}) },
  };
}

import { toOne } from '../jsonapi/relationships.ts';
import type { ConfigurationVersion } from './store.ts';

/**
 * A `configuration-versions` resource. `uploadUrl` is given only by the create response: the
 * URL holds a secret that is not stored anywhere to be shown again.
 */
export function configurationVersionResource(cv: ConfigurationVersion, uploadUrl: string | null = null) {
  return {
    id: cv.id,
    type: 'configuration-versions',
    attributes: {
      'auto-queue-runs': cv.autoQueueRuns,
      error: null,
      'error-message': null,
      source: cv.source,
      speculative: cv.speculative,
      provisional: cv.provisional,
      status: cv.status,
      'status-timestamps': { ...(cv.uploadedAt ? { 'uploaded-at': cv.uploadedAt } : {}), ...(cv.archivedAt ? { 'archived-at': cv.archivedAt } : {}) },
      'upload-url': uploadUrl,
      'created-at': cv.createdAt,
    },
    relationships: {
      workspace: toOne('workspaces', cv.workspaceId),
      'ingress-attributes': { data: null },
    },
    links: { self: `/api/v2/configuration-versions/${cv.id}` },
  };
}

import { toOne } from '../jsonapi/relationships.ts';
import type { PlanExportView } from './service.ts';

export function planExportResource(v: PlanExportView) {
  const e = v.planExport;
  return {
    id: e.id,
    type: 'plan-exports',
    attributes: {
      'data-type': e.dataType,
      status: v.status,
      'status-timestamps': v.statusTimestamps,
    },
    relationships: { plan: toOne('plans', e.planId) },
    links: { self: `/api/v2/plan-exports/${e.id}`, download: `/api/v2/plan-exports/${e.id}/download` },
  };
}
